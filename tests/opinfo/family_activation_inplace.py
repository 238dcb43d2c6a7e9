"""Op table: the in-place spellings F.celu_, F.selu_ and F.rrelu_ (evaluation mode), applied to a non-leaf
copy. Family "activation": tests/nn/test_activations.py runs them against PyTorch and finite differences."""
from oracle import In
from _record import FD, PARITY, OpInfo, Sample

_PARITY_FD = frozenset({PARITY, FD})


def _normal(shape, scale=1.0):
    return In(shape, values=lambda rng: rng.standard_normal(shape) * scale)


def _row(name, fn, inputs):
    return Sample(name, fn, inputs, checks=_PARITY_FD, fd_tol=1e-5)


def _F(lib):
    return lib.nn.functional


OPS = [
    OpInfo("F.celu_", "activation", lambda lib, x: _F(lib).celu_(x * 1),
           samples=[_row("celu_inplace", lambda lib, x: _F(lib).celu_(x * 1, 0.7), [_normal((4, 5), 3)]),
                    _row("celu_inplace_default", lambda lib, x: _F(lib).celu_(x * 1), [_normal((3,), 2)])]),
    OpInfo("F.selu_", "activation", lambda lib, x: _F(lib).selu_(x * 1),
           samples=[_row("selu_inplace", lambda lib, x: _F(lib).selu_(x * 1), [_normal((4, 5), 3)])]),
    OpInfo("F.rrelu_", "activation", lambda lib, x: _F(lib).rrelu_(x * 1),
           samples=[_row("rrelu_inplace_eval", lambda lib, x: _F(lib).rrelu_(x * 1, 0.1, 0.3), [_normal((4, 5))]),
                    _row("rrelu_inplace_default", lambda lib, x: _F(lib).rrelu_(x * 1), [_normal((2, 3))])]),
]
