"""Op table: nn.functional's activation functions (npgrad/nn/_functional): relu/relu6/leaky_relu/hardtanh,
elu/selu/celu, gelu/silu/mish, softplus/logsigmoid/softsign, sigmoid/tanh, glu, the shrinks, hardswish/hardsigmoid,
threshold, prelu, rrelu (evaluation mode) and the in-place forms (relu_, elu_, leaky_relu_, hardtanh_, threshold_,
applied to a non-leaf copy).

tests/nn/test_activations.py runs the samples against PyTorch (float32 and float64, outputs and input gradients)
and finite differences; their inputs are standard normal values times a scale that reaches each function's
interesting range (the saturation of softplus and logsigmoid, both sides of relu6 and hardtanh). The
second-order rows run in tests/autograd/test_double_backward.py, the float16 forms in the float16 suite.
"""
from oracle import In
from _record import FD, PARITY, SECOND_ORDER, OpInfo, Sample

_PARITY_FD = frozenset({PARITY, FD})


def _normal(shape, scale=1.0):
    return In(shape, values=lambda rng: rng.standard_normal(shape) * scale)


def _row(name, fn, inputs):
    # fd_tol: the tolerance of the finite-difference check these rows had in tests/nn/test_functional_parity.py
    return Sample(name, fn, inputs, checks=_PARITY_FD, fd_tol=1e-5)


def _second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


def _F(lib):
    return lib.nn.functional


X = In((2, 3))
NONZERO = In((2, 3), nonzero=True)

OPS = [
    OpInfo("F.gelu", "activation", lambda lib, x: _F(lib).gelu(x),
           samples=[_row("gelu", lambda lib, x: _F(lib).gelu(x), [_normal((4, 5), 3)]),
                    _row("gelu_tanh", lambda lib, x: _F(lib).gelu(x, approximate="tanh"), [_normal((4, 5), 3)]),
                    _second("gelu", lambda lib, x: _F(lib).gelu(x), [X]),
                    _second("gelu_tanh", lambda lib, x: _F(lib).gelu(x, approximate="tanh"), [X])],
           float16=[("F.gelu", lambda lib, x, y: _F(lib).gelu(x))]),
    OpInfo("F.silu", "activation", lambda lib, x: _F(lib).silu(x),
           samples=[_row("silu", lambda lib, x: _F(lib).silu(x), [_normal((4, 5), 3)]),
                    _second("silu", lambda lib, x: _F(lib).silu(x), [X])],
           float16=[("F.silu", lambda lib, x, y: _F(lib).silu(x))]),
    OpInfo("F.elu", "activation", lambda lib, x: _F(lib).elu(x),
           samples=[_row("elu", lambda lib, x: _F(lib).elu(x, alpha=1.3), [_normal((4, 5), 3)]),
                    _second("elu", lambda lib, x: _F(lib).elu(x), [NONZERO])],
           float16=[("F.elu", lambda lib, x, y: _F(lib).elu(x - 1))]),
    OpInfo("F.selu", "activation", lambda lib, x: _F(lib).selu(x),
           samples=[_row("selu", lambda lib, x: _F(lib).selu(x), [_normal((4, 5), 3)])]),
    OpInfo("F.celu", "activation", lambda lib, x: _F(lib).celu(x),
           samples=[_row("celu", lambda lib, x: _F(lib).celu(x, 0.7), [_normal((4, 5), 3)])]),
    OpInfo("F.leaky_relu", "activation", lambda lib, x: _F(lib).leaky_relu(x, 0.1),
           samples=[_row("leaky_relu", lambda lib, x: _F(lib).leaky_relu(x, 0.1), [_normal((4, 5))]),
                    _second("leaky_relu", lambda lib, x: _F(lib).leaky_relu(x, 0.1) * x, [NONZERO])],
           float16=[("F.leaky_relu", lambda lib, x, y: _F(lib).leaky_relu(x - 1, 0.1))]),
    OpInfo("F.relu", "activation", lambda lib, x: _F(lib).relu(x),
           samples=[_row("relu", lambda lib, x: _F(lib).relu(x), [_normal((4, 5))])]),
    OpInfo("F.relu6", "activation", lambda lib, x: _F(lib).relu6(x),
           samples=[_row("relu6", lambda lib, x: _F(lib).relu6(x), [_normal((4, 5), 5)])]),
    OpInfo("F.hardtanh", "activation", lambda lib, x: _F(lib).hardtanh(x),
           samples=[_row("hardtanh", lambda lib, x: _F(lib).hardtanh(x, -2.0, 1.5), [_normal((4, 5), 3)])]),
    OpInfo("F.softplus", "activation", lambda lib, x: _F(lib).softplus(x),
           samples=[_row("softplus", lambda lib, x: _F(lib).softplus(x, beta=0.5, threshold=2.0),
                         [_normal((4, 5), 6)]),
                    _second("softplus", lambda lib, x: _F(lib).softplus(x), [X])],
           float16=[("F.softplus", lambda lib, x, y: _F(lib).softplus(x))]),
    OpInfo("F.logsigmoid", "activation", lambda lib, x: _F(lib).logsigmoid(x),
           samples=[_row("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x), [_normal((4, 5), 5)]),
                    _second("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x), [X])],
           float16=[("F.logsigmoid", lambda lib, x, y: _F(lib).logsigmoid(x))]),
    OpInfo("F.mish", "activation", lambda lib, x: _F(lib).mish(x),
           samples=[_row("mish", lambda lib, x: _F(lib).mish(x), [_normal((4, 5), 3)])]),
    OpInfo("F.sigmoid", "activation", lambda lib, x: _F(lib).sigmoid(x),
           samples=[_row("sigmoid_tanh", lambda lib, x: _F(lib).sigmoid(x) * _F(lib).tanh(x), [_normal((4, 5))])]),
    OpInfo("F.tanh", "activation", lambda lib, x: _F(lib).tanh(x),
           samples=[_row("F_tanh", lambda lib, x: _F(lib).tanh(x), [_normal((4, 5), 2)])]),
    OpInfo("F.softsign", "activation", lambda lib, x: _F(lib).softsign(x),
           samples=[_row("softsign", lambda lib, x: _F(lib).softsign(x), [_normal((4, 5))])]),
    OpInfo("F.glu", "activation", lambda lib, x: _F(lib).glu(x, 0),
           samples=[_row("glu", lambda lib, x: _F(lib).glu(x, 0), [_normal((4, 5))])]),
    OpInfo("F.hardshrink", "activation", lambda lib, x: _F(lib).hardshrink(x),
           samples=[_row("hardshrink", lambda lib, x: _F(lib).hardshrink(x, 0.4), [_normal((4, 5))])]),
    OpInfo("F.softshrink", "activation", lambda lib, x: _F(lib).softshrink(x),
           samples=[_row("softshrink", lambda lib, x: _F(lib).softshrink(x, 0.3), [_normal((4, 5))])]),
    OpInfo("F.tanhshrink", "activation", lambda lib, x: _F(lib).tanhshrink(x),
           samples=[_row("tanhshrink", lambda lib, x: _F(lib).tanhshrink(x), [_normal((4, 5), 2)])]),
    OpInfo("F.hardswish", "activation", lambda lib, x: _F(lib).hardswish(x),
           samples=[_row("hardswish", lambda lib, x: _F(lib).hardswish(x), [_normal((4, 5), 4)])]),
    # gradients within float32's tolerance: PyTorch's float64 gradient uses a float32 1/6 (relative error 3e-8)
    OpInfo("F.hardsigmoid", "activation", lambda lib, x: _F(lib).hardsigmoid(x),
           samples=[Sample("hardsigmoid", lambda lib, x: _F(lib).hardsigmoid(x), [_normal((4, 5), 4)],
                           checks=_PARITY_FD, fd_tol=1e-5, grad_tol=dict(rtol=1e-5, atol=1e-6))]),
    OpInfo("F.threshold", "activation", lambda lib, x: _F(lib).threshold(x, 0.1, 20.0),
           samples=[_row("threshold", lambda lib, x: _F(lib).threshold(x, 0.1, 20.0), [_normal((4, 5))])]),
    OpInfo("F.prelu", "activation", lambda lib, x, w: _F(lib).prelu(x, w),
           samples=[_row("prelu", lambda lib, x, w: _F(lib).prelu(x, w), [_normal((2, 3, 4)), In((3,), 0.05, 0.5)])]),
    OpInfo("F.rrelu", "activation", lambda lib, x: _F(lib).rrelu(x, training=False),
           samples=[_row("rrelu_eval", lambda lib, x: _F(lib).rrelu(x, 0.1, 0.3, training=False), [_normal((4, 5))])]),
    OpInfo("F.relu_", "activation", lambda lib, x: _F(lib).relu_(x * 1),
           samples=[_row("relu_inplace", lambda lib, x: _F(lib).relu_(x * 1), [_normal((4, 5))])]),
    OpInfo("F.elu_", "activation", lambda lib, x: _F(lib).elu_(x * 1),
           samples=[_row("elu_inplace", lambda lib, x: _F(lib).elu_(x * 1, 0.8), [_normal((4, 5), 2)])]),
    OpInfo("F.leaky_relu_", "activation", lambda lib, x: _F(lib).leaky_relu_(x * 1),
           samples=[_row("leaky_relu_inplace", lambda lib, x: _F(lib).leaky_relu_(x * 1, 0.2), [_normal((4, 5))])]),
    OpInfo("F.hardtanh_", "activation", lambda lib, x: _F(lib).hardtanh_(x * 1),
           samples=[_row("hardtanh_inplace", lambda lib, x: _F(lib).hardtanh_(x * 1, -0.5, 0.8), [_normal((4, 5))])]),
    OpInfo("F.threshold_", "activation", lambda lib, x: _F(lib).threshold_(x * 1, 0.1, 20.0),
           samples=[_row("threshold_inplace", lambda lib, x: _F(lib).threshold_(x * 1, 0.1, 20.0),
                         [_normal((4, 5))])]),
]

# The special-value property's forms (tests/reliability/test_special_values.py). (hardsigmoid has none: PyTorch's
# float64 gradient uses a float32 1/6, so float64 parity is impossible.)
_SPECIAL_FUZZ = {
    "F.softplus": [("softplus", lambda L, x: _F(L).softplus(x))],
    "F.logsigmoid": [("logsigmoid", lambda L, x: _F(L).logsigmoid(x))],
    "F.silu": [("silu", lambda L, x: _F(L).silu(x))],
    "F.gelu": [("gelu", lambda L, x: _F(L).gelu(x)), ("gelu_tanh", lambda L, x: _F(L).gelu(x, approximate="tanh"))],
    "F.leaky_relu": [("leaky_relu", lambda L, x: _F(L).leaky_relu(x, 0.1))],
    "F.mish": [("mish", lambda L, x: _F(L).mish(x))],
    "F.softsign": [("softsign", lambda L, x: _F(L).softsign(x))],
    "F.tanhshrink": [("tanhshrink", lambda L, x: _F(L).tanhshrink(x))],
    "F.elu": [("elu", lambda L, x: _F(L).elu(x))],
    "F.selu": [("selu", lambda L, x: _F(L).selu(x))],
    "F.celu": [("celu", lambda L, x: _F(L).celu(x))],
    "F.hardswish": [("hardswish", lambda L, x: _F(L).hardswish(x))],
    "F.hardtanh": [("hardtanh", lambda L, x: _F(L).hardtanh(x))],
    "F.relu6": [("relu6", lambda L, x: _F(L).relu6(x))],
    "F.softshrink": [("softshrink", lambda L, x: _F(L).softshrink(x))],
    "F.hardshrink": [("hardshrink", lambda L, x: _F(L).hardshrink(x))],
}
for _op in OPS:
    _op.special_fuzz = _SPECIAL_FUZZ.get(_op.name, ())
