"""Empty tensors and zero-size dimensions behave as in PyTorch in every operator: the same values, shapes
and dtypes (sum of empty is 0, prod 1, mean NaN), the same exception class where PyTorch refuses (max of
empty), and backward through them gives zero gradients of the right shape.

Two sweeps over the public API (``npgrad.*`` functions and Tensor methods):

* generic calls, ``f(x)``, ``f(x, x)``, ``f(x, dim)`` ..., used for an operator when PyTorch accepts the
  same call on a non-empty tensor (so the call is meaningful and only the emptiness is under test);
* a table of operator-specific calls (matmul with a 0 dimension, cat with empties, gather with empty
  indices, split of an empty dimension ...).

``test_every_operator_is_swept`` fails when a public operator is reached by neither.
"""
import inspect

import numpy as np
import pytest

import npgrad
import npgrad.nn  # noqa: F401
from _fuzz import error_class as _error_class, flat as _flat, outcome as _outcome
from oracle import HAS_TORCH, torch
from opinfo import EMPTY_INTEGER_SWEEP, empty_calls, swept

EMPTY_SHAPES = [(0,), (2, 0), (0, 3), (3, 0, 2)]

# Public callables that are not operators on tensors (construction, state, dtype queries, I/O).
NOT_OPERATORS = {
    "arange", "as_tensor", "asarray", "can_cast", "empty", "eye", "from_numpy", "full", "get_default_dtype",
    "get_printoptions", "get_rng_state", "initial_seed", "is_grad_enabled", "is_inference_mode_enabled",
    "is_tensor", "linspace", "load", "logspace", "manual_seed", "ones", "promote_types", "rand", "randint",
    "randn", "randperm", "range", "result_type", "save", "scalar_tensor", "seed", "set_default_dtype",
    "set_printoptions", "set_rng_state", "tensor", "tril_indices", "triu_indices", "zeros", "broadcast_shapes",
    "normal", "numel", "set_default_device", "get_default_device", "is_anomaly_enabled", "set_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "thread_safe_generator", "from_file", "vmap",
    "get_autocast_dtype", "set_autocast_dtype", "is_autocast_enabled", "set_autocast_enabled",  # autocast's state
    "sparse_coo_tensor", "sparse_csr_tensor", "spmm",  # sparse layouts: tests/sparse/test_sparse_empty.py
} | {n for n in dir(npgrad._runtime) if not n.startswith("_")}  # process-wide settings: threads, compile, ...
# nn.functional's functions under their torch.* names (torch.conv2d, Tensor.prelu ...): the sweep of
# nn.functional on empty batches (tests/reliability/test_module_sweep.py) covers them as F.<name>.
NN_SPELLINGS = set(npgrad._nn_spellings.NAMES)
# Tensor attributes that are not operators, or whose result is about storage rather than values.
NOT_METHODS = {
    "backward", "register_hook", "register_post_accumulate_grad_hook", "retain_grad", "numpy", "tolist", "item",
    "cuda", "cpu", "to", "type", "type_as", "requires_grad_", "detach_", "detach", "data_ptr", "share_memory_",
    "pin_memory", "storage_offset", "stride", "element_size", "dim", "ndimension", "nelement", "numel", "size",
    "is_contiguous", "is_floating_point", "is_complex", "is_signed", "new_empty", "new_full", "new_ones",
    "new_zeros", "new_tensor", "uniform_", "normal_", "random_", "exponential_", "bernoulli_", "geometric_",
    "cauchy_", "log_normal_", "multinomial", "bernoulli", "float", "double", "half", "long", "int", "short",
    "char", "byte", "bool", "bfloat16", "apply_", "map_", "tolist", "is_set_to", "is_shared", "is_pinned",
    "contiguous", "clone", "view", "view_as", "expand", "expand_as", "reshape_as", "repeat", "set_", "resize_",
    "resize_as_", "untyped_storage", "storage", "dim_order",
    # (like data_ptr, new_empty, map_, resize_ and view_as above; x.new(n) is uninitialized memory)
    "const_data_ptr", "new", "new_empty_strided", "map2_", "resize", "resize_as", "as_subclass",
    "to_sparse", "to_sparse_coo", "to_sparse_csr",  # a sparse result: tests/sparse/test_sparse_empty.py
}


def _tensor(lib, shape, dtype="float32", grad=False):
    t = lib.zeros(shape, dtype=getattr(lib, dtype))
    return t.requires_grad_(True) if grad else t


# -- running one call in both libraries --------------------------------------------------------------------

def _compare(n_out, t_out, what):
    ns, ts = _flat(n_out), _flat(t_out)
    assert len(ns) == len(ts), f"{what}: {len(ns)} results, PyTorch {len(ts)}"
    for a, b in zip(ns, ts):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, npgrad.Tensor), f"{what}: got {type(a).__name__}, PyTorch a Tensor"
            assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} != PyTorch {tuple(b.shape)}"
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], \
                f"{what}: dtype {a.dtype} != PyTorch {b.dtype}"
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy(), err_msg=what)
        elif isinstance(b, (bool, int, float)):
            assert a == b or (a != a and b != b), f"{what}: {a!r} != PyTorch {b!r}"


def _backward_both(n_out, t_out, n_ins, t_ins, what):
    """Backward from the first float result: the same gradients (zeros, of each input's shape)."""
    if not _flat(t_out):
        return  # e.g. unbind of an empty dimension: nothing to differentiate
    a, b = _flat(n_out)[0], _flat(t_out)[0]
    if isinstance(b, torch.Tensor) and b.requires_grad and isinstance(a, npgrad.Tensor) and not a.requires_grad:
        # npgrad marks a non-differentiable result (unique, sort indices ...) as such; PyTorch's result
        # requires grad but its backward refuses: both refuse to differentiate
        _, te = _outcome(lambda: b.sum().backward())
        assert te is not None, f"{what}: PyTorch differentiates, npgrad's result does not require grad"
        return
    if not (isinstance(b, torch.Tensor) and b.requires_grad):
        assert not (isinstance(a, npgrad.Tensor) and a.requires_grad and not b.dtype.is_floating_point), what
        return
    assert isinstance(a, npgrad.Tensor) and a.requires_grad, f"{what}: result does not require grad"
    _, te = _outcome(lambda: b.sum().backward())
    _, ne = _outcome(lambda: a.sum().backward())
    if te is not None or ne is not None:
        assert te is not None and ne is not None and _error_class(ne) is _error_class(te), \
            f"{what}: backward: npgrad {ne!r}, PyTorch {te!r}"
        return
    for i, (x, y) in enumerate(zip(n_ins, t_ins)):
        if isinstance(y, torch.Tensor) and y.requires_grad:
            assert x.is_leaf == y.is_leaf, f"{what}: input {i} is_leaf {x.is_leaf} vs PyTorch {y.is_leaf}"
            if not y.is_leaf:  # a non-leaf's .grad stays None (and reading it warns, in both libraries)
                continue
            assert (x.grad is None) == (y.grad is None), f"{what}: grad presence of input {i}"
            if y.grad is not None:
                assert tuple(x.grad.shape) == tuple(y.grad.shape), f"{what}: grad shape of input {i}"
                np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy(), err_msg=f"{what}: grad {i}")


def run_both(call, make_inputs, what):
    """``call(lib, *inputs)`` with ``make_inputs(lib)``; the same result or the same error class."""
    t_ins, n_ins = make_inputs(torch), make_inputs(npgrad)
    t_out, t_err = _outcome(lambda: call(torch, *t_ins))
    n_out, n_err = _outcome(lambda: call(npgrad, *n_ins))
    if t_err is not None:
        assert n_err is not None, f"{what}: PyTorch raises {type(t_err).__name__}({t_err}), npgrad returns a result"
        assert _error_class(n_err) is _error_class(t_err), \
            f"{what}: npgrad raises {type(n_err).__name__}({n_err}), PyTorch {type(t_err).__name__}({t_err})"
        return "error"
    if n_err is not None:
        raise AssertionError(f"{what}: npgrad raises {type(n_err).__name__}({n_err}); PyTorch returns") from n_err
    _compare(n_out, t_out, what)
    _backward_both(n_out, t_out, n_ins, t_ins, what)
    return "ok"


# -- generic calls ---------------------------------------------------------------------------------------------

def _x(lib, shape, grad):
    return _tensor(lib, shape, grad=grad)


GENERIC = {  # pattern -> (args for an input x) ; all positional
    "f(x)": lambda x: (x,),
    "f(x, x)": lambda x: (x, x),
    "f(x, 0)": lambda x: (x, 0),
    "f(x, -1)": lambda x: (x, -1),
    "f(x, 1)": lambda x: (x, 1),
    "f(x, x, x)": lambda x: (x, x, x),
    "f([x, x])": lambda x: ([x, x],),
    "f([x, x], -1)": lambda x: ([x, x], -1),
}


def _accepted_patterns(fn_of_lib, ndim):
    """The generic patterns PyTorch accepts on a non-empty tensor of the same rank."""
    ok = []
    for pattern, args in GENERIC.items():
        x = torch.rand((2, 3, 4)[:ndim]) + 0.5
        try:
            fn_of_lib(torch)(*args(x))
        except Exception:  # noqa: BLE001
            continue
        ok.append(pattern)
    return ok


def _public_functions():
    names = []
    for n in dir(npgrad):
        obj = getattr(npgrad, n, None)
        if n.startswith("_") or n in NOT_OPERATORS or not callable(obj) or inspect.isclass(obj) or \
                inspect.ismodule(obj):
            continue
        if HAS_TORCH and not hasattr(torch, n) or n in NN_SPELLINGS:
            continue
        names.append(n)
    return sorted(names)


def _public_methods():
    names = []
    for n in dir(npgrad.Tensor):
        if n.startswith("_") or n in NOT_METHODS or not callable(getattr(npgrad.Tensor, n, None)):
            continue
        if isinstance(inspect.getattr_static(npgrad.Tensor, n), property):
            continue
        if HAS_TORCH and not hasattr(torch.Tensor, n) or n in NN_SPELLINGS:
            continue
        names.append(n)
    return sorted(names)


if HAS_TORCH:
    @pytest.mark.parametrize("name", _public_functions())
    def test_functions_on_empty_tensors(name):
        swept = 0
        for shape in EMPTY_SHAPES:
            for pattern in _accepted_patterns(lambda lib: getattr(lib, name), len(shape)):
                args = GENERIC[pattern]
                run_both(lambda lib, *xs: getattr(lib, name)(*args(xs[0])),
                         lambda lib: [_x(lib, shape, name not in NO_GRAD)], f"torch.{name} {pattern} {shape}")
                swept += 1
        for case in TABLE.get(name, []):
            run_both(case.call, case.inputs, f"torch.{name}: {case.label}")
            swept += 1
        if not swept:
            pytest.fail(f"torch.{name} is reached by no generic pattern and has no TABLE entry")

    @pytest.mark.parametrize("name", _public_methods())
    def test_methods_on_empty_tensors(name):
        inplace = name.endswith("_")
        swept = 0
        for shape in EMPTY_SHAPES:
            for pattern in _accepted_patterns(lambda lib: (lambda x, *a: getattr(x, name)(*a)), len(shape)):
                args = GENERIC[pattern]
                run_both(lambda lib, *xs: getattr(xs[0], name)(*args(xs[0])[1:]),
                         lambda lib: [_x(lib, shape, not inplace and name not in NO_GRAD)],
                         f"Tensor.{name} {pattern} {shape}")
                swept += 1
        for case in TABLE.get(name, []):
            if inplace:  # in-place rows run here; out-of-place rows already ran as functions
                run_both(case.call, case.inputs, f"Tensor.{name}: {case.label}")
            swept += 1
        if not swept:
            pytest.fail(f"Tensor.{name} is reached by no generic pattern and has no TABLE entry")

    def test_integer_and_bool_empties():
        for dtype in ("int64", "int32", "uint8", "bool"):
            for shape in EMPTY_SHAPES:
                for name in ("clone", *swept(EMPTY_INTEGER_SWEEP)):
                    if not hasattr(npgrad, name):
                        continue
                    run_both(lambda lib, x: getattr(lib, name)(x), lambda lib: [_tensor(lib, shape, dtype)],
                             f"torch.{name} {dtype}{shape}")


# -- operator-specific calls -------------------------------------------------------------------------------

NO_GRAD = {"bernoulli", "multinomial", "histc", "bincount", "searchsorted", "bucketize",
           "sgn"}  # PyTorch's sgn gradient is a ZeroTensor, which cannot be read back as an array


class Case:
    def __init__(self, label, call, *specs):
        """``specs``: one (shape, dtype[, grad]) per input; float inputs require grad unless told."""
        self.label, self.call, self.specs = label, call, specs

    def inputs(self, lib):
        out = []
        for spec in self.specs:
            shape, dtype = spec[0], spec[1]
            grad = spec[2] if len(spec) > 2 else dtype.startswith("float")
            if dtype.startswith("index"):  # an int64 index tensor with values in range(n)
                n = int(dtype[5:] or 1)
                out.append(lib.zeros(shape, dtype=lib.int64) + (n - 1 if n else 0))
            elif dtype == "mask":
                out.append(lib.zeros(shape, dtype=lib.bool))
            else:
                out.append(_tensor(lib, shape, dtype, grad))
        return out


F = "float32"


def _cases(*rows):
    table = {}
    for name, label, call, *specs in rows:
        table.setdefault(name, []).append(Case(label, call, *specs))
    return table


TABLE = _cases(
    # factories whose result is empty
    *[(w, "length 0", lambda L, w=w: getattr(L, w)(0)) for w in
      ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")],
    ("empty_strided", "size (0, 3)", lambda L: L.empty_strided((0, 3), (3, 1)).shape),
    ("empty_permuted", "size (2, 0)", lambda L: L.empty_permuted((2, 0), (1, 0)).shape),
    ("frombuffer", "empty buffer", lambda L: L.frombuffer(bytearray(), dtype=L.float32)),
    ("where", "empty condition", lambda L, m, a, b: L.where(m, a, b), ((0, 3), "mask"), ((0, 3), F), ((1, 3), F)),
    ("where", "one-argument", lambda L, m: L.where(m), ((2, 0), "mask")),
    ("trace", "of (0,0)", lambda L, x: L.trace(x), ((0, 0), F)),
    ("clamp", "empty", lambda L, x: L.clamp(x, -1, 1), ((0, 3), F)),
    ("clip", "empty", lambda L, x: L.clip(x, max=1), ((0, 3), F)),
    ("clamp_min", "empty", lambda L, x: L.clamp_min(x, 0), ((2, 0), F)),
    ("clamp_max", "empty", lambda L, x: L.clamp_max(x, 0), ((2, 0), F)),
    ("lerp", "empty", lambda L, a, b: L.lerp(a, b, 0.5), ((0, 3), F), ((0, 3), F)),
    ("addcmul", "empty", lambda L, a, b, c: L.addcmul(a, b, c), ((0, 3), F), ((1, 3), F), ((0, 1), F)),
    ("addcdiv", "empty", lambda L, a, b, c: L.addcdiv(a, b, c), ((0, 3), F), ((1, 3), F), ((0, 1), F)),
    ("multinomial", "from empty rows", lambda L, p: L.multinomial(p, 1), ((0, 3), F, False)),
    ("bernoulli", "empty", lambda L, p: L.bernoulli(p), ((0, 3), F, False)),
    ("nan_to_num", "empty", lambda L, x: L.nan_to_num(x, 0.0), ((0, 3), F)),
    # in-place methods, on tensors that do not require grad
    ("addmm_", "k=0", lambda L, c, a, b: c.addmm_(a, b), ((2, 3), F, False), ((2, 0), F), ((0, 3), F)),
    ("addbmm_", "k=0", lambda L, c, a, b: c.addbmm_(a, b), ((2, 3), F, False), ((2, 2, 0), F), ((2, 0, 3), F)),
    ("addmv_", "k=0", lambda L, c, a, v: c.addmv_(a, v), ((3,), F, False), ((3, 0), F), ((0,), F)),
    ("addr_", "empty", lambda L, c, a, b: c.addr_(a, b), ((0, 3), F, False), ((0,), F), ((3,), F)),
    ("baddbmm_", "batch 0", lambda L, c, a, b: c.baddbmm_(a, b), ((0, 2, 3), F, False), ((0, 2, 1), F),
     ((0, 1, 3), F)),
    ("bitwise_and_", "int", lambda L, a, b: a.bitwise_and_(b), ((0, 3), "int64"), ((1, 3), "int64")),
    ("bitwise_or_", "int", lambda L, a, b: a.bitwise_or_(b), ((0, 3), "int64"), ((0, 3), "int64")),
    ("bitwise_xor_", "bool", lambda L, a, b: a.bitwise_xor_(b), ((0,), "bool"), ((0,), "bool")),
    ("bitwise_not_", "int", lambda L, a: a.bitwise_not_(), ((2, 0), "int16")),
    ("float_power_", "float64", lambda L, a: a.float_power_(2), ((0, 3), "float64", False)),
    ("float_power_", "float32 refused", lambda L, a: a.float_power_(2), ((0, 3), F, False)),
    ("index_add_", "empty index", lambda L, x, i, s: x.index_add_(0, i, s), ((2, 3), F, False), ((0,), "index2"),
     ((0, 3), F)),
    ("masked_fill_", "empty", lambda L, x, m: x.masked_fill_(m, 2.0), ((0, 3), F, False), ((0, 3), "mask")),
    ("scatter_", "empty index", lambda L, x, i, s: x.scatter_(1, i, s), ((2, 3), F, False), ((2, 0), "index3"),
     ((2, 0), F)),
    ("scatter_add_", "empty index", lambda L, x, i, s: x.scatter_add_(0, i, s), ((2, 3), F, False),
     ((0, 3), "index2"), ((0, 3), F)),
    ("swapaxes_", "empty", lambda L, x: x.swapaxes_(0, 1), ((0, 3), F, False)),
    ("swapdims_", "empty", lambda L, x: x.swapdims_(0, 1), ((0, 3), F, False)),
    ("transpose_", "empty", lambda L, x: x.transpose_(0, 1), ((2, 0), F, False)),
    ("unfold", "empty", lambda L, x: x.unfold(1, 2, 1), ((0, 3), F)),
    ("as_strided_", "empty", lambda L, x: x.as_strided_((0, 2), (1, 1)), ((2, 3), F, False)),
    ("index_copy_", "empty index", lambda L, x, i, s: x.index_copy_(0, i, s), ((2, 3), F, False), ((0,), "index2"),
     ((0, 3), F)),
    ("index_fill_", "empty", lambda L, x, i: x.index_fill_(1, i, 1.0), ((0, 3), F, False), ((2,), "index3")),
    ("index_put_", "empty index", lambda L, x, i, v: x.index_put_((i,), v, True), ((2, 3), F, False),
     ((0,), "index2"), ((0, 3), F)),
    ("index_reduce_", "empty index", lambda L, x, i, s: x.index_reduce_(0, i, s, "prod"), ((2, 3), F, False),
     ((0,), "index2"), ((0, 3), F)),
    ("masked_scatter_", "empty", lambda L, x, m, s: x.masked_scatter_(m, s), ((0, 3), F, False), ((0, 3), "mask"),
     ((0,), F)),
    ("put_", "empty index", lambda L, x, i, s: x.put_(i, s), ((2, 3), F, False), ((0,), "index2"), ((0,), F)),
    ("scatter_reduce_", "empty index", lambda L, x, i, s: x.scatter_reduce_(0, i, s, "amax"), ((2, 3), F, False),
     ((0, 3), "index2"), ((0, 3), F)),
    # the recurrent kernels: an empty batch runs (zero-size outputs, gradients), an empty sequence is refused
    ("lstm", "batch 0", lambda L, x, h, c, wi, wh: L.lstm(x, (h, c), [wi, wh], False, 1, 0.0, True, False, False),
     ((5, 0, 3), F), ((1, 0, 4), F), ((1, 0, 4), F), ((16, 3), F), ((16, 4), F)),
    ("gru", "bidirectional, one direction's params", lambda L, x, h, wi, wh: L.gru(x, h, [wi, wh], False, 1, 0.0,
                                                                                   True, True, False),
     ((5, 0, 3), F), ((2, 0, 4), F), ((12, 3), F), ((12, 4), F)),
    ("gru", "sequence 0", lambda L, x, h, wi, wh: L.gru(x, h, [wi, wh], False, 1, 0.0, True, False, False),
     ((0, 2, 3), F), ((1, 2, 4), F), ((12, 3), F), ((12, 4), F)),
    ("rnn_tanh", "batch 0", lambda L, x, h, wi, wh: L.rnn_tanh(x, h, [wi, wh], False, 1, 0.0, True, False, True),
     ((0, 5, 3), F), ((1, 0, 4), F), ((4, 3), F), ((4, 4), F)),
    ("rnn_relu", "batch 0", lambda L, x, h, wi, wh: L.rnn_relu(x, h, [wi, wh], False, 1, 0.0, True, False, False),
     ((5, 0, 3), F), ((1, 0, 4), F), ((4, 3), F), ((4, 4), F)),
    ("lstm_cell", "batch 0", lambda L, x, h, c, wi, wh: L.lstm_cell(x, (h, c), wi, wh),
     ((0, 3), F), ((0, 4), F), ((0, 4), F), ((16, 3), F), ((16, 4), F)),
    ("gru_cell", "batch 0", lambda L, x, h, wi, wh: L.gru_cell(x, h, wi, wh), ((0, 3), F), ((0, 4), F), ((12, 3), F),
     ((12, 4), F)),
    ("rnn_tanh_cell", "batch 0", lambda L, x, h, wi, wh: L.rnn_tanh_cell(x, h, wi, wh), ((0, 3), F), ((0, 4), F),
     ((4, 3), F), ((4, 4), F)),
    ("rnn_relu_cell", "batch 0", lambda L, x, h, wi, wh: L.rnn_relu_cell(x, h, wi, wh), ((0, 3), F), ((0, 4), F),
     ((4, 3), F), ((4, 4), F)),
    # the operators already in the op table (tests/opinfo); nn.functional's run in the test below
    *[row for row in empty_calls() if not row[0].startswith("F.")],
    ("gcd_", "int", lambda L, a, b: a.gcd_(b), ((0, 3), "int64"), ((1, 3), "int32")),
    ("lcm_", "int", lambda L, a, b: a.lcm_(b), ((2, 0), "int32"), ((2, 0), "int32")),
    ("renorm_", "empty rows", lambda L, x: x.renorm_(2, 0, 1.0), ((0, 3), F, False)),
    ("bitwise_left_shift_", "int", lambda L, a, b: a.bitwise_left_shift_(b), ((0, 3), "int64"), ((3,), "int64")),
    ("bitwise_right_shift_", "int", lambda L, a: a.bitwise_right_shift_(1), ((2, 0), "uint8")),
)
FUNCTIONAL_TABLE = _cases(*[row for row in empty_calls() if row[0].startswith("F.")])


if HAS_TORCH:
    @pytest.mark.parametrize("name", sorted(FUNCTIONAL_TABLE))
    def test_functional_on_empty_tensors(name):
        for case in FUNCTIONAL_TABLE[name]:
            run_both(case.call, case.inputs, f"{name}: {case.label}")


def test_table_names_are_public_operators():
    missing = sorted(n for n in TABLE if not hasattr(npgrad, n) and not hasattr(npgrad.Tensor, n))
    assert not missing, f"TABLE rows for names npgrad does not have: {missing}"


# -- the headline facts, without PyTorch ------------------------------------------------------------------------

def test_reductions_of_empty_tensors():
    x = npgrad.zeros(0, 3, requires_grad=True)
    assert x.sum().item() == 0.0 and x.prod().item() == 1.0
    assert np.isnan(x.mean().item())
    assert x.sum(0).tolist() == [0.0, 0.0, 0.0] and x.sum(1).shape == (0,)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        x.max()
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        x.max(0)
    assert x.max(1).values.shape == (0,)
    (x.sum() + x.prod() + x.logsumexp(1).sum()).backward()
    assert x.grad.shape == (0, 3)


def test_matmul_and_cat_with_empties():
    a = npgrad.zeros(2, 0, requires_grad=True)
    b = npgrad.zeros(0, 3, requires_grad=True)
    out = a @ b
    assert out.shape == (2, 3) and out.abs().sum().item() == 0.0
    (out * npgrad.ones(2, 3)).sum().backward()
    assert a.grad.shape == (2, 0) and b.grad.shape == (0, 3)
    c = npgrad.cat([npgrad.zeros(0, 3), npgrad.ones(2, 3), npgrad.zeros(0)])  # legacy (0,) is skipped
    assert c.shape == (2, 3)
