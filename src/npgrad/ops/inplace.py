"""In-place operations (``x.add_(y)``, ``x += y``, ``x.zero_()``, ``x[i] = v`` ...) and their graph effect.

Without recording, an in-place op writes into the tensor's own array (so every view and ``.data``
alias sees it) and bumps the shared version counter. When the graph is being recorded, the op is
computed out of place on a snapshot of the old value and the result is written back; the tensor then
takes the new node as its ``grad_fn`` ("rebasing"), and if it is a view, its base is rebased too with a
``CopySlices`` node, so gradients through the base see the change. In-place ops on a leaf that
requires grad (or a view of one) raise PyTorch's error.
"""
import numpy as np

from .. import dtypes as _dt
from .._fp_quiet import QUIET as _QUIET, STATE as _FP_STATE, quiet
from ..autograd.function import Op, bump_version  # noqa: F401 (bump_version: used here and by families)
from ..autograd import record as _record
from ..autograd.record import DUAL_HOOK, relink_saved_output
from ..autograd.grad_mode import state as _grad_state
from ..tensor import Tensor
from . import _deprecated
from . import _poly as P
from ._registry import METHODS, RECORDS, method, op
from ..autograd.views import mark_current, multi_view_error, refresh_view, replay

LEAF_MSG = _LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_MSG = _VIEW_LEAF_MSG = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_OVERLAP_MSG = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.")
LEAF_MSG, VIEW_LEAF_MSG = _LEAF_MSG, _VIEW_LEAF_MSG  # public names (indexing.py raises them too)


def check_inplace(t):
    """Called before every recorded in-place op on ``t``: PyTorch's refusals, and a stale view's grad_fn
    brought up to date (the op builds on it)."""
    if t._view_of is not None:
        refresh_view(t)
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(_LEAF_MSG)
    err = multi_view_error(t)
    if err is not None:
        raise err
    info = t._view_of
    if info is not None:
        base = info[0]
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError(_VIEW_LEAF_MSG)


def _requires_grad(args):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


@quiet  # (the write casts: 1e30 into float16 is inf, silently, as PyTorch)
def _write(t, r):
    """Write result ``r`` into ``t``'s array, with PyTorch's shape and dtype rules for in-place ops."""
    dst, src = t._data, r._data
    if src is dst:
        return
    if src.shape != dst.shape:
        try:
            ok = np.broadcast_shapes(src.shape, dst.shape) == dst.shape
        except ValueError:
            ok = False
        if not ok:
            raise _shape_error(dst.shape, src.shape)
    if not dst.flags.writeable:
        raise RuntimeError(_OVERLAP_MSG)
    dst[...] = src


def _shape_error(dst_shape, src_shape):
    """PyTorch's message when an in-place operand does not fit the tensor written to."""
    try:
        full = np.broadcast_shapes(dst_shape, src_shape)
    except ValueError:
        from .products import broadcast_batch
        try:
            broadcast_batch(dst_shape, src_shape)
        except RuntimeError as e:
            return e
    return RuntimeError(f"output with shape {list(dst_shape)} doesn't match the broadcast shape {list(full)}")


def _check_cast(result_dtype, t):
    if not _dt.can_cast(result_dtype, t._data.dtype):
        raise RuntimeError(f"result type {_dt.scalar_name(result_dtype)} can't be cast to the "
                           f"desired output type {_dt.scalar_name(t._data.dtype)}")


def rebase_after_inplace(t, r):
    """Make ``t`` hold result ``r`` (already computed from t's old value) in place."""
    _check_cast(r._data.dtype, t)
    if r._data.dtype != t._data.dtype and r._grad_fn is not None:
        r = r._cast(_dt.from_numpy_dtype(t._data.dtype))
    _write(t, r)
    bump_version(t)
    if DUAL_HOOK:  # forward AD: t's tangent becomes r's
        DUAL_HOOK[1](t, r)
    if r._grad_fn is None and (not t._requires_grad or not _grad_state.enabled):
        return t  # nothing recorded (e.g. under no_grad): t keeps its place in the graph
    t._grad_fn, t._out_idx, t._requires_grad = r._grad_fn, r._out_idx, r._requires_grad
    if r._grad_fn is not None and r._grad_fn._saved_versions is not None:
        relink_saved_output(r._grad_fn, r._out_idx, t._version_counter())  # t is now that saved output
    info = t._view_of
    if info is not None and t._requires_grad:
        base, chain = info[0], info[1]
        old = Tensor._wrap(base._data, base._grad_fn, base._out_idx)
        old._requires_grad = base._requires_grad
        mark_current(t)  # t's grad_fn is the in-place result: recording it must not re-derive it
        nb = CopySlices.apply(old, t, chain)
        base._grad_fn, base._out_idx, base._requires_grad = nb._grad_fn, 0, True
    return t


class CopySlices(Op):
    """The base of a view that was modified in place: the view's region takes the view's gradient."""

    node_name = "torch::autograd::CopySlices"
    _complex_native = True  # a .real/.imag view splits the gradient into parts: not linear over complex numbers

    __slots__ = ()

    @staticmethod
    def forward(ctx, base, view, chain):
        ctx.chain = chain
        return base

    @staticmethod
    def backward(ctx, g):
        chain = ctx.chain
        gb = gv = None
        if ctx.needs_input_grad[0]:  # the view's region was overwritten: no gradient flows there
            if P.data_of(g).dtype.kind == "c":
                gb = _complex_region_grad(chain, g)
            else:
                region = np.zeros(tuple(g.shape), bool)
                replay(chain, region)[...] = True
                gb = P.where(region, 0.0, g)
        if ctx.needs_input_grad[1]:
            gv = replay(chain, g)
        return gb, gv, None


def _complex_region_grad(chain, g):
    """A complex base's gradient outside the overwritten view, part by part: a ``.real``/``.imag`` view covers
    one part of each element it selects, any other view both."""
    region = np.zeros(tuple(g.shape), P.data_of(g).dtype)
    view = replay(chain, region)
    view[...] = 1 if view.dtype.kind != "c" else 1 + 1j
    keep_re, keep_im = (1 - region.real).astype(region.real.dtype), (1 - region.imag).astype(region.real.dtype)
    return g.real * keep_re + (g.imag * keep_im) * 1j


def inplace(t, fn, *args, **kwargs):
    """Apply out-of-place ``fn(t, *args, **kwargs)`` and store the result in ``t``."""
    if _grad_state.enabled and (t._requires_grad or _requires_grad(args)):
        check_inplace(t)
        old = Tensor._wrap(t._data.copy(), t._grad_fn, t._out_idx)  # saved inputs must keep the old value
        old._requires_grad = t._requires_grad
        if DUAL_HOOK:
            DUAL_HOOK[3](t, old)  # forward AD: old carries t's tangent too
        r = fn(old, *args, **kwargs)
    else:
        r = fn(t, *args, **kwargs)
    return rebase_after_inplace(t, r)


# -- fast paths for arithmetic outside the graph (optimizer updates, `p.data -= lr * g`) ----------------------

_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def _arith_inplace(rec):
    name, ufunc, slow = rec.name, _UFUNCS[rec.name], rec.fn

    def arith_(self, other, *deprecated, alpha=1, **kwargs):
        if deprecated:  # add_(alpha, other): PyTorch's deprecated order, for add_ and sub_ only
            if name not in ("add", "sub"):
                raise TypeError(f"{name}_() takes 1 positional argument but {1 + len(deprecated)} were given")
            other, alpha = _deprecated.alpha_first(name, other, deprecated, alpha, "inplace")
        if kwargs or (_grad_state.enabled and (self._requires_grad or (isinstance(other, Tensor) and
                                                                     other._requires_grad))) or \
                (DUAL_HOOK and DUAL_HOOK[2](self, other)):
            if type(alpha) is not int or alpha != 1:  # (alpha=True is no 1: PyTorch refuses it for non-bool)
                kwargs["alpha"] = alpha
            return inplace(self, slow, other, **kwargs)
        d = self._data
        o = other._data if isinstance(other, Tensor) else other
        if type(alpha) is not int or alpha != 1:
            if d.dtype.kind in "biu" or isinstance(alpha, (bool, np.bool_)):
                # PyTorch's checks of alpha against the result type (operators' _with_alpha)
                return inplace(self, slow, other, alpha=alpha)
            o = o * alpha
        if isinstance(o, (np.ndarray, np.generic)) or not isinstance(o, (int, float, bool)):
            o = np.asarray(o)
            rt = _dt.result_np_dtype(d, o) if o.dtype != d.dtype else d.dtype
        else:
            rt = _dt.result_type(Tensor._wrap(d), o).np
        if name == "div" and rt.kind in "biu":
            rt = _dt.get_default_dtype().np
        _check_cast(rt, self)
        if not d.flags.writeable:
            raise RuntimeError(_OVERLAP_MSG)
        fp = _FP_STATE.set(_QUIET)  # inf and NaN silently, as PyTorch (npgrad._fp_quiet)
        try:
            ufunc(d, o, out=d, casting="unsafe")
        except ValueError:
            raise _shape_error(d.shape, np.shape(o)) from None
        finally:
            _FP_STATE.reset(fp)
        bump_version(self)
        return self

    arith_.__name__ = name + "_"
    return arith_


# -- the generic in-place variants of out-of-place operators ------------------------------------------------------

def _generic(rec):
    fn = rec.fn
    if rec.name == "abs":  # |z| is real: PyTorch refuses to write it over a complex tensor
        def generic(self, *args, **kwargs):
            if self._data.dtype.kind == "c":
                raise RuntimeError("In-place abs is not supported for complex tensors.")
            return inplace(self, fn, *args, **kwargs)
        generic.__name__ = "abs_"
        return generic

    def generic(self, *args, **kwargs):
        return inplace(self, fn, *args, **kwargs)
    generic.__name__ = rec.name + "_"
    return generic


_MAKERS = {"generic": _generic, "ufunc": _arith_inplace}  # "reshape": below
_MADE = set()


# Python's augmented assignments are the in-place variants themselves (x += y is x.add_(y)).
_AUGMENTED = {"add_": "__iadd__", "sub_": "__isub__", "mul_": "__imul__", "div_": "__itruediv__",
              "pow_": "__ipow__", "floor_divide_": "__ifloordiv__", "remainder_": "__imod__",
              "bitwise_and_": "__iand__", "bitwise_or_": "__ior__", "bitwise_xor_": "__ixor__"}


def register_inplace_variants():
    """Make the ``name_`` variants the registry's records declare (and the ``__iop__`` operators that are
    them). Called once the eager op families are loaded, and again after the lazy ones (whose stubs are
    removed first)."""
    for rec in RECORDS:
        names = [n for n in rec.inplace_methods() if n not in _MADE]
        if not names:
            continue
        for n in names:
            if n in Tensor.__dict__ and not getattr(Tensor.__dict__[n], "_lazy_stub", False):
                raise RuntimeError(f"Tensor.{n} is attached twice: by {METHODS.get(n)!r} and by {rec!r}")
        fn = _MAKERS[rec.inplace](rec)
        for n in names:
            method(n, fn)
            _MADE.add(n)
            if n in _AUGMENTED:
                method(_AUGMENTED[n], fn)


# -- copy_, fill_, zero_ ---------------------------------------------------------------------------------------------

class CopyFrom(Op):
    """``dst.copy_(src)``: dst's old value gets no gradient; src gets the gradient (summed to its shape)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, dst, src):
        out = np.empty_like(dst)
        out[...] = src
        return out

    @staticmethod
    def backward(ctx, g):
        return (P.zeros_like(g) if ctx.needs_input_grad[0] else None), g


def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = Tensor._wrap(np.asarray(src))
    if src._data.shape != self._data.shape:
        try:
            if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
                raise ValueError
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must "
                               f"match the size of tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at "
                               f"non-singleton dimension {self._data.ndim - 1}") from None
    if not (_grad_state.enabled and (self._requires_grad or src._requires_grad)) and \
            not (DUAL_HOOK and DUAL_HOOK[2](self, src)):
        _write(self, src)  # through _write: an ONNX export records in-place results there
        bump_version(self)
        return self
    check_inplace(self)
    old = Tensor._wrap(self._data, self._grad_fn, self._out_idx)
    old._requires_grad = self._requires_grad
    if src._data.dtype != self._data.dtype:
        src = src._cast(_dt.from_numpy_dtype(self._data.dtype))
    return rebase_after_inplace(self, CopyFrom.apply(old, src))


method("copy_", copy_)


def fill_(self, value):
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return copy_(self, value.expand(self._data.shape) if self._data.ndim else value)
    value = _dt.checked_fill_value(value, self._data.dtype)
    if (_grad_state.enabled and self._requires_grad) or (DUAL_HOOK and DUAL_HOOK[2](self)):
        if _grad_state.enabled and self._requires_grad:
            check_inplace(self)
        return copy_(self, Tensor._wrap(np.full(self._data.shape, value, self._data.dtype)))
    if not self._data.flags.writeable:
        raise RuntimeError(_OVERLAP_MSG)
    if _record._tracer is not None:  # an ONNX export records in-place results where _write stores them
        _write(self, Tensor._wrap(np.full(self._data.shape, value, self._data.dtype)))
    else:
        self._data.fill(value)
    bump_version(self)
    return self


def zero_(self):
    return fill_(self, 0)


@op(methods=())
def fill(input, value):
    """fill_'s out-of-place form: a tensor like ``input`` holding ``value``, differentiable in a tensor value."""
    return fill_(input.clone(), value)


method("fill_", fill_)
method("zero_", zero_)


def _reshape_inplace(rec):
    """squeeze_/unsqueeze_/t_/transpose_: change the tensor's own shape (a new view of the same memory)."""
    fn = rec.fn

    def reshape_(self, *args, **kwargs):
        r = fn(self, *args, **kwargs)
        if _grad_state.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(_LEAF_MSG)
        self._data = r._data
        if DUAL_HOOK:  # forward AD: the tangent takes the new shape too
            DUAL_HOOK[3](r, self, False)
        if r._grad_fn is not None:
            self._grad_fn, self._out_idx = r._grad_fn, r._out_idx
        return self
    reshape_.__name__ = rec.name + "_"
    return reshape_


_MAKERS["reshape"] = _reshape_inplace
