"""Shared machinery of the property-based tests: strategies for shapes, broadcast pairs and dtypes, and
``check``, which runs one expression in npgrad and compares it with an oracle.

Two oracles, chosen per call with ``mode``:

* ``"torch"``: PyTorch runs the same expression (``fn(lib, *tensors)`` is written against PyTorch's API).
  Values, dtypes, shapes, errors (the same exception class) and every input's gradient must agree.
* ``"fd"``: no PyTorch. The forward value is compared with a NumPy reference (``ref``) when the case has
  one, and every float input's gradient with central finite differences of the float64 function.

``MODES`` lists the oracles this machine can run; tests parametrised over it exercise the
finite-difference path on every machine, so the no-torch configuration is tested, not just imagined.
"""
import warnings

import numpy as np
from hypothesis import strategies as st

import npgrad
from oracle import HAS_TORCH, torch

MODES = ("torch", "fd") if HAS_TORCH else ("fd",)

# Forward/gradient tolerances per result dtype (rtol, atol): PyTorch's kernels and NumPy's may round
# differently in the last bits, and sums may add in a different order.
TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}

FLOAT_DTYPES = ("float32", "float64")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
ALL_DTYPES = ("bool",) + INT_DTYPES + ("float16",) + FLOAT_DTYPES

# Sizes drawn for each dimension: 0 (empty) and 1 (broadcastable) are always in the mix.
SIDES = (1, 2, 3, 0, 4)


# -- strategies ---------------------------------------------------------------------------------------------

def shapes(min_dims=0, max_dims=5, sides=SIDES, max_numel=None):
    s = st.lists(st.sampled_from(sides), min_size=min_dims, max_size=max_dims).map(tuple)
    if max_numel is not None:
        s = s.filter(lambda sh: int(np.prod(sh)) <= max_numel)
    return s


@st.composite
def broadcast_pair(draw, max_dims=5, sides=SIDES, max_numel=None):
    """Two shapes that broadcast together: suffixes of a common shape, some sizes replaced by 1."""
    full = draw(shapes(0, max_dims, sides, max_numel))

    def operand():
        k = draw(st.integers(0, len(full)))
        suffix = full[len(full) - k:]
        ones = draw(st.lists(st.booleans(), min_size=k, max_size=k))
        return tuple(1 if o else s for s, o in zip(suffix, ones))

    return operand(), operand()


def dims_for(ndim, allow_tuple=True, allow_none=True):
    """A ``dim`` argument valid for an ``ndim``-d tensor: None, an int (maybe negative) or a tuple."""
    n = max(ndim, 1)
    options = [st.integers(-n, n - 1)]
    if allow_none:
        options.append(st.none())
    if allow_tuple and ndim:
        options.append(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(
            lambda ds: tuple(d - ndim if i % 2 else d for i, d in enumerate(ds))))
    return st.one_of(options)


seeds = st.integers(0, 2 ** 32 - 1)


def per_op(fraction=0.4):
    """Settings for a property parametrised over many operators: each operator gets ``fraction`` of the
    profile's examples (at least 5), so the whole table costs about what a few plain properties do."""
    from hypothesis import settings
    return settings(max_examples=max(5, int(settings.default.max_examples * fraction)))


# -- values --------------------------------------------------------------------------------------------------

def values(seed, shape, dtype, low=-2.0, high=2.0, away_from=None, full_int_range=False):
    """Random values of ``dtype`` (a name): floats in [low, high) (kept 0.05 away from the points in
    ``away_from``, e.g. a kink), small or full-range integers, or bools."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        lo, hi = (info.min, info.max) if full_int_range else (max(info.min, -9), min(info.max, 9))
        return np.asarray(rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype))
    a = rng.uniform(low, high, size=shape)
    for p in away_from or ():
        close = np.abs(a - p) < 0.05
        a = np.where(close, p + np.where(a >= p, 0.05, -0.05), a)
    return np.asarray(a.astype(dtype))


# -- the check -------------------------------------------------------------------------------------------------

def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def error_class(exc):
    """The PyTorch-level class an error is compared by (PyTorch's C++ errors subclass these)."""
    for cls in (IndexError, ValueError, TypeError, NotImplementedError, ZeroDivisionError, RuntimeError):
        if isinstance(exc, cls):
            return cls
    return type(exc)



def outcome(call):
    """``(result, None)``, or ``(None, exception)`` when ``call()`` raises: the suites compare failures too."""
    try:
        return call(), None
    except Exception as e:  # noqa: BLE001
        return None, e


def flat(out):
    """Every tensor of a possibly nested tuple/list result, in order."""
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in flat(x)]
    return [out]


def _leaves(lib, arrays, no_grad_inputs):
    ts = []
    for i, a in enumerate(arrays):
        if not isinstance(a, np.ndarray):
            ts.append(a)  # a Python scalar or an argument passed through
            continue
        t = torch.from_numpy(a.copy()) if lib is torch else npgrad.tensor(a.copy())
        if a.dtype.kind == "f" and i not in no_grad_inputs:
            t.requires_grad_(True)
        ts.append(t)
    return ts


def _run(lib, fn, arrays, no_grad_inputs, upstream_seed, backward=True, finite_only=False, upstream_nan=False):
    """Forward (and backward with a random upstream gradient): (outputs, grads) or the exception raised.
    ``finite_only``: the upstream gradient is 0 where the output is not finite (finite differences
    carry no information there)."""
    ts = _leaves(lib, arrays, no_grad_inputs)
    try:
        outs = _as_tuple(fn(lib, *ts))
    except Exception as e:  # noqa: BLE001 - the oracle compares failures too
        return e, None
    grads = [None] * len(ts)
    first = outs[0]
    if backward and isinstance(first, (npgrad.Tensor,) + ((torch.Tensor,) if HAS_TORCH else ())) \
            and first.requires_grad:
        rng = np.random.default_rng(upstream_seed)
        up = rng.standard_normal(tuple(first.shape)).astype(dtype_name(first))
        if finite_only:
            up[~np.isfinite(to_numpy(first))] = 0
        if upstream_nan and up.size:  # NaN and inf arriving from above: where may they go?
            up.flat[rng.integers(0, up.size, size=max(1, up.size // 3))] = np.nan
            up.flat[rng.integers(0, up.size)] = np.inf
        try:
            first.backward(torch.from_numpy(up) if lib is torch else npgrad.tensor(up))
        except Exception as e:  # noqa: BLE001
            return outs, e
        grads = [t.grad.numpy() if hasattr(t, "grad") and t.grad is not None else None for t in ts]
    return outs, grads


def to_numpy(x):
    if isinstance(x, npgrad.Tensor):
        return x.detach().numpy()
    if HAS_TORCH and isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def loosest_tol(*dtype_names):
    tols = [TOL[d] for d in dtype_names if d in TOL] or [TOL["float64"]]
    return max(t[0] for t in tols), max(t[1] for t in tols)


def assert_same_values(actual, expected, what, tol=None):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != expected {expected.shape}"
    if expected.dtype.kind in "biu" and actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    rtol, atol = tol or TOL.get(expected.dtype.name, TOL["float64"])
    # NaN where the oracle has NaN, inf where it has inf of the same sign, close elsewhere
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=what)


def reference(ref, arrays):
    """The NumPy reference's value. On empty slices, too few degrees of freedom, log(0) and the like NumPy
    returns the NaN/inf PyTorch returns but also warns; those warnings say nothing about npgrad."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(ref(*arrays))


def check(fn, arrays, mode="torch", ref=None, tol=None, grad_tol=None, no_grad_inputs=(), upstream_seed=0,
          what="", fd_eps=1e-6, upstream_nan=False):
    """Run ``fn(lib, *tensors)`` on ``arrays`` and compare npgrad with the oracle of ``mode``.

    Float arrays become leaves that require grad (except the positions in ``no_grad_inputs``); other
    entries (Python numbers, options) pass through unchanged. ``ref(*arrays)`` is a NumPy reference
    for the forward value, used by the finite-difference mode (and checked against PyTorch in torch mode,
    so a wrong reference cannot hide).
    """
    if mode == "torch":
        return _check_torch(fn, arrays, ref, tol, grad_tol, no_grad_inputs, upstream_seed, what, upstream_nan)
    return _check_fd(fn, arrays, ref, tol, no_grad_inputs, upstream_seed, what, fd_eps)


def _check_torch(fn, arrays, ref, tol, grad_tol, no_grad_inputs, upstream_seed, what, upstream_nan=False):
    t_outs, t_grads = _run(torch, fn, arrays, no_grad_inputs, upstream_seed, upstream_nan=upstream_nan)
    n_outs, n_grads = _run(npgrad, fn, arrays, no_grad_inputs, upstream_seed, upstream_nan=upstream_nan)
    # A result computed from lower-precision inputs is judged at their precision (PyTorch and npgrad may
    # promote at different steps of a composite operator).
    in_dtypes = [a.dtype.name for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    if isinstance(t_outs, Exception):
        assert isinstance(n_outs, Exception), \
            f"{what}: PyTorch raises {type(t_outs).__name__}({t_outs}) but npgrad returns a result"
        assert error_class(n_outs) is error_class(t_outs), \
            f"{what}: npgrad raises {type(n_outs).__name__}({n_outs}), PyTorch {type(t_outs).__name__}({t_outs})"
        return "error"
    if isinstance(n_outs, Exception):
        raise AssertionError(f"{what}: npgrad raises {type(n_outs).__name__}: {n_outs}; PyTorch succeeds") \
            from n_outs
    assert len(n_outs) == len(t_outs), f"{what}: {len(n_outs)} outputs, PyTorch {len(t_outs)}"
    for i, (a, b) in enumerate(zip(n_outs, t_outs)):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, npgrad.Tensor), f"{what}: output {i} is a {type(a).__name__}"
            assert dtype_name(a) == dtype_name(b), f"{what}: output {i} dtype {a.dtype} != PyTorch {b.dtype}"
            assert_same_values(to_numpy(a), to_numpy(b), f"{what}: output {i}",
                               tol or loosest_tol(dtype_name(b), *in_dtypes))
        else:
            assert a == b or (a != a and b != b), f"{what}: output {i} {a!r} != PyTorch {b!r}"
    if ref is not None:
        t_out = to_numpy(t_outs[0])
        assert_same_values(reference(ref, arrays).astype(t_out.dtype), t_out,
                           f"{what}: the NumPy reference disagrees with PyTorch",
                           tol or loosest_tol(t_out.dtype.name, *in_dtypes))
    if isinstance(t_grads, Exception) or isinstance(n_grads, Exception):
        assert isinstance(t_grads, Exception) and isinstance(n_grads, Exception) and \
            error_class(n_grads) is error_class(t_grads), \
            f"{what}: backward: npgrad {n_grads!r}, PyTorch {t_grads!r}"
        return "error"
    for i, (gn, gt) in enumerate(zip(n_grads, t_grads)):
        assert (gn is None) == (gt is None), f"{what}: input {i} has a gradient in one library only"
        if gt is not None:
            assert gn.dtype == gt.dtype, f"{what}: grad {i} dtype {gn.dtype} != PyTorch {gt.dtype}"
            # the gradient was computed in the forward's dtype and then cast: judge it at that precision
            assert_same_values(gn, gt, f"{what}: gradient of input {i}",
                               grad_tol or tol or loosest_tol(gt.dtype.name, dtype_name(t_outs[0]), *in_dtypes))
    return "ok"


def _check_fd(fn, arrays, ref, tol, no_grad_inputs, upstream_seed, what, eps):
    arrays = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in arrays]
    outs, grads = _run(npgrad, fn, arrays, no_grad_inputs, upstream_seed, finite_only=True)
    if isinstance(outs, Exception):
        raise AssertionError(f"{what}: npgrad raises {type(outs).__name__}: {outs}") from outs
    out = to_numpy(outs[0])
    if ref is not None:
        assert_same_values(out, reference(ref, arrays).astype(out.dtype), f"{what}: forward vs NumPy", tol)
    if isinstance(grads, Exception):
        raise AssertionError(f"{what}: backward raises {grads!r}") from grads
    if out.dtype.kind != "f":
        return "ok"
    up = np.random.default_rng(upstream_seed).standard_normal(out.shape)
    up[~np.isfinite(out)] = 0
    expected = numeric_grads(fn, arrays, up, no_grad_inputs, eps)
    for i, (g, e) in enumerate(zip(grads, expected)):
        if e is None:
            continue
        assert g is not None, f"{what}: no gradient for input {i}"
        assert g.dtype == np.float64, f"{what}: a float64 input got a {g.dtype} gradient"
        if not np.isfinite(out).all():
            # a NaN output (var of one element...) has no derivative to difference: where it makes the
            # gradient NaN, only PyTorch can say whether that NaN is right (the torch mode checks it)
            keep = np.isfinite(g)
            g, e = g[keep], e[keep]
        scale = 1.0 + np.max(np.abs(e), initial=0.0)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6 * scale, err_msg=f"{what}: finite-difference grad {i}")
    return "ok"


def numeric_grads(fn, arrays, upstream, no_grad_inputs=(), eps=1e-6):
    """Central differences of sum(upstream * fn(arrays)) with respect to each float array."""
    def f(arrs):
        with npgrad.no_grad():
            ts = [npgrad.tensor(a) if isinstance(a, np.ndarray) else a for a in arrs]
            return to_numpy(_as_tuple(fn(npgrad, *ts))[0]).astype(np.float64)

    grads = []
    for i, a in enumerate(arrays):
        if not isinstance(a, np.ndarray) or a.dtype.kind != "f" or i in no_grad_inputs:
            grads.append(None)
            continue
        g = np.zeros(a.shape)
        for j in range(a.size):
            plus = list(arrays)
            minus = list(arrays)
            plus[i] = a.copy()
            minus[i] = a.copy()
            plus[i].flat[j] += eps
            minus[i].flat[j] -= eps
            diff = f(plus) - f(minus)
            g.flat[j] = np.sum(np.where(upstream == 0, 0.0, upstream * diff)) / (2 * eps)
        grads.append(g)
    return grads
