"""The orthogonal polynomials of ``torch.special``: Chebyshev T, U, V, W (and shifted to [0, 1]), Hermite
H (physicists') and He (probabilists'), Laguerre L and Legendre P, each ``f(input, n)``.

As PyTorch: either argument may be a Python number (not both), the two promote like a binary operator
(integer results become the default float type), float16 raises, ``n`` is truncated to an integer (NaN
and infinities become the most negative integer) and a negative ``n`` gives 0. The value comes from the
three-term recurrence; for Chebyshev T (n > 6) and U, V, W (n > 8) with |x| < 1 it comes from the
trigonometric form (T_n(cos t) = cos(n t), U_n = sin((n + 1) t) / sin t, V_n = cos((n + 1/2) t) /
cos(t / 2), W_n = sin((n + 1/2) t) / sin(t / 2)), which PyTorch also uses there. PyTorch defines no
derivative: the result does not require grad.
"""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._registry import op

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
           "legendre_polynomial_p"]


def float_pair(name, input, other, names=("input", "other")):
    """(a, b) as Tensors of PyTorch's result dtype for ``name(input, other)``: one may be a Python number
    (wrapped), integer results become the default float type, float16 raises PyTorch's error."""
    from .arith import promote
    from .broadcast import broadcast_error
    a_t, b_t = isinstance(input, Tensor), isinstance(other, Tensor)
    if not a_t and not b_t:
        first = "self" if names[0] == "input" else names[0]
        raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                        f" * (Tensor {names[0]}, Tensor {names[1]}, *, Tensor out = None)\n"
                        f" * (Number {first}, Tensor {names[1]}, *, Tensor out = None)\n"
                        f" * (Tensor {names[0]}, Number {names[1]}, *, Tensor out = None)\n")
    if a_t:
        a, b = promote(input, other)
    else:
        b, a = promote(other, input)
    like = a if isinstance(a, Tensor) else b
    a = a if isinstance(a, Tensor) else Tensor._wrap(np.asarray(a, like._data.dtype))
    b = b if isinstance(b, Tensor) else Tensor._wrap(np.asarray(b, like._data.dtype))
    if like._data.dtype.kind == "c":  # real kernels: PyTorch refuses complex input
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dt.scalar_name(like._data.dtype)}'")
    if like._data.dtype.kind != "f":
        a, b = a._cast(_dt.get_default_dtype()), b._cast(_dt.get_default_dtype())
    if a._data.dtype == np.float16:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Half'")
    err = broadcast_error(a._data.shape, b._data.shape)
    if err is not None:
        raise err
    return a, b


def _degree(n):
    """n truncated to int64 as PyTorch's cast does (NaN, infinities and out-of-range values: INT64_MIN)."""
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(n) & (np.abs(n) < 2.0 ** 63)
    return np.where(ok, np.trunc(np.where(ok, n, 0)), -2.0 ** 63).astype(np.int64)


def _recurrence(x, n, first, step):
    """p_n(x) from p_0 = 1, p_1 = first(x) and p_(k+1) = step(k, x, p_k, p_(k-1)), elementwise in n (negative: 0)."""
    one, zero = x.dtype.type(1), x.dtype.type(0)
    out = np.where(n == 0, one, zero)
    with np.errstate(all="ignore"):
        out = np.where(n == 1, first(x), out)
    live = n >= 2
    if not live.any():
        return out
    idx = np.flatnonzero(live)
    xs, ns = x[live], n[live]
    prev, cur = np.ones_like(xs), first(xs)
    flat = out.reshape(-1)
    k = 1
    with np.errstate(all="ignore"):
        while idx.size:
            prev, cur = cur, step(k, xs, cur, prev)
            k += 1
            done = ns == k
            if k % 64 == 0 and np.isnan(cur).all():  # NaN (inf - inf after an overflow) stays NaN: stop early
                done = np.ones(ns.shape, bool)
            if done.any():
                flat[idx[done]] = cur[done]
                keep = ~done
                idx, xs, ns, prev, cur = idx[keep], xs[keep], ns[keep], prev[keep], cur[keep]
    return out


def _chebyshev_step(k, x, cur, prev):
    return 2 * x * cur - prev


def _trig(x, n, threshold, formula, base):
    """The trigonometric form where n > threshold and |x| < 1, the recurrence elsewhere."""
    use = (n > threshold) & (np.abs(x) < 1)
    out = base(x, np.where(use, 0, n))
    if use.any():
        t = np.arccos(x[use])
        with np.errstate(all="ignore"):
            out[use] = formula(t, n[use].astype(x.dtype))
    return out


def _t(x, n):
    return _trig(x, n, 6, lambda t, m: np.cos(m * t), lambda x, n: _recurrence(x, n, lambda v: v, _chebyshev_step))


def _u(x, n):
    return _trig(x, n, 8, lambda t, m: np.sin((m + 1) * t) / np.sin(t),
                 lambda x, n: _recurrence(x, n, lambda v: 2 * v, _chebyshev_step))


def _v(x, n):
    return _trig(x, n, 8, lambda t, m: np.cos((m + 0.5) * t) / np.cos(t / 2),
                 lambda x, n: _recurrence(x, n, lambda v: 2 * v - 1, _chebyshev_step))


def _w(x, n):
    return _trig(x, n, 8, lambda t, m: np.sin((m + 0.5) * t) / np.sin(t / 2),
                 lambda x, n: _recurrence(x, n, lambda v: 2 * v + 1, _chebyshev_step))


def _h(x, n):
    return _recurrence(x, n, lambda v: 2 * v, lambda k, x, c, p: 2 * x * c - 2 * k * p)


def _he(x, n):
    return _recurrence(x, n, lambda v: v, lambda k, x, c, p: x * c - k * p)


def _l(x, n):
    return _recurrence(x, n, lambda v: 1 - v, lambda k, x, c, p: ((2 * k + 1 - x) * c - k * p) / (k + 1))


def _p(x, n):
    return _recurrence(x, n, lambda v: v, lambda k, x, c, p: ((2 * k + 1) * x * c - k * p) / (k + 1))


def _shifted(kernel):
    return lambda x, n: kernel(x + x - 1, n)


def _polynomial(name, kernel, doc):
    def fn(input, n):
        x, m = float_pair(name, input, n, ("x", "n"))
        x, m = np.broadcast_arrays(x._data, m._data)
        # evaluated in the result's dtype, as PyTorch: a float32 recurrence overflows (to inf, and inf - inf
        # to NaN) where PyTorch's does
        out = kernel(np.array(x).reshape(-1), _degree(m).reshape(-1))
        return Tensor._wrap(out.reshape(x.shape).astype(x.dtype, copy=False))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + " (not differentiable, as in PyTorch)."
    return op(methods=())(fn)


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _t, "Chebyshev polynomial of the first kind T_n(x)")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _u, "Chebyshev polynomial of the second kind U_n(x)")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _v, "Chebyshev polynomial of the third kind V_n(x)")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _w, "Chebyshev polynomial of the fourth kind W_n(x)")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", _shifted(_t), "T_n(2x - 1)")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", _shifted(_u), "U_n(2x - 1)")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", _shifted(_v), "V_n(2x - 1)")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", _shifted(_w), "W_n(2x - 1)")
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _h, "Physicists' Hermite polynomial H_n(x)")
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _he, "Probabilists' Hermite polynomial He_n(x)")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _l, "Laguerre polynomial L_n(x)")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _p, "Legendre polynomial P_n(x)")
