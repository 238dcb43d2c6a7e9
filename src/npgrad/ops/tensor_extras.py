"""Tensor-only methods with no torch.* function: in-place comparisons and shifts, cumsum_/cumprod_,
fill_diagonal_, sum_to_size, the legacy constructor ``new``, new_empty_strided, resize_ and friends,
apply_/map_/map2_, dim_order, as_subclass and module_load. Loaded on first use (the properties, which cannot be
method stubs, are in tensor_attrs.py)."""
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..autograd.grad_mode import state as _grad_state
from ..tensor import Size, Tensor
from . import _poly as P
from ._registry import method
from .inplace import bump_version, check_inplace, inplace, rebase_after_inplace
from . import compare as _cmp
from .indexing import masked_fill
from .reduce import cumprod, cumsum


# -- in-place comparisons: the tensor takes 1/0 (in its own dtype); its gradient through them is zero -----------

class CompareInPlace(Op):
    """The comparison result cast to the input's dtype, recorded so the tensor stays in the graph (PyTorch
    records EqBackward0 ... whose gradient is zero)."""

    __slots__ = ()
    node_name = staticmethod(lambda node: node.__dict__.get("label", "CompareInPlaceBackward0"))

    @staticmethod
    def forward(ctx, x, result, label):
        ctx.label = label
        return result.astype(x.dtype)

    @staticmethod
    def backward(ctx, g):
        return P.zeros_like(g), None, None


def _compare_inplace(fn, node):
    def compare_(self, other):
        r = fn(self, other)
        label = f"{node}Backward{1 if isinstance(other, Tensor) else 0}"
        if _grad_state.enabled and self._requires_grad:
            check_inplace(self)
            old = Tensor._wrap(self._data, self._grad_fn, self._out_idx)
            old._requires_grad = True
            r = CompareInPlace.apply(old, r._data, label)
        return rebase_after_inplace(self, r)
    return compare_


for _names, _fn, _node in [(("eq_",), _cmp.eq, "Eq"), (("ne_", "not_equal_"), _cmp.ne, "Ne"),
                           (("lt_", "less_"), _cmp.lt, "Lt"), (("le_", "less_equal_"), _cmp.le, "Le"),
                           (("gt_", "greater_"), _cmp.gt, "Gt"), (("ge_", "greater_equal_"), _cmp.ge, "Ge")]:
    for _name in _names:
        method(_name, _compare_inplace(_fn, _node))

method("bitwise_left_shift_", lambda self, other: inplace(self, _cmp.bitwise_left_shift, other))
method("bitwise_right_shift_", lambda self, other: inplace(self, _cmp.bitwise_right_shift, other))


# -- scans and diagonal fills in place -----------------------------------------------------------------------------

def _scan_inplace(fn):
    def scan_(self, dim, *, dtype=None):
        if dtype is not None and _dt.to_dtype(dtype).np != self._data.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_cpp(self._data.dtype)} and output tensor "
                               f"dtype {_cpp(_dt.to_dtype(dtype).np)} should match")
        return inplace(self, fn, dim)
    scan_.__name__ = fn.__name__ + "_"
    return scan_


_CPP = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char", "int16": "short int",
        "int32": "int", "int64": "long int", "uint8": "unsigned char", "bool": "bool"}


def _cpp(np_dtype):
    return _CPP[np.dtype(np_dtype).name]


method("cumsum_", _scan_inplace(cumsum))
method("cumprod_", _scan_inplace(cumprod))


def fill_diagonal_(self, fill_value, wrap=False):
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return inplace(self, masked_fill, Tensor._wrap(mask), fill_value)


method("fill_diagonal_", fill_diagonal_)


def sum_to_size(self, *size):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else tuple(size)
    shape = self._data.shape
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    return self.sum(dims, keepdim=True).reshape(size) if dims else self


method("sum_to_size", sum_to_size)


# -- constructors and storage ------------------------------------------------------------------------------------

def new(self, *args, **kwargs):
    """The legacy constructor: ``x.new()`` (empty), ``x.new(2, 3)`` / ``x.new(Size)`` (uninitialized), ``x.new(data)``
    (a tensor of x's dtype), ``x.new(tensor)`` (an alias of that tensor, which must have x's dtype)."""
    dt = self._data.dtype
    if not args:
        return Tensor._wrap(np.empty((0,), dt))
    a = args[0]
    if len(args) == 1 and isinstance(a, Tensor):
        if a._data.dtype != dt:
            raise TypeError(f"expected {self.type()} (got {a.type()})")
        return a[...]  # an alias of that tensor: a view of all of it, in the graph
    if len(args) == 1 and isinstance(a, Size) or all(isinstance(x, int) and not isinstance(x, bool) for x in args):
        return Tensor._wrap(np.empty(tuple(a) if isinstance(a, Size) else args, dt))
    if len(args) == 1 and isinstance(a, (list, tuple, np.ndarray)):
        from .._convert import tensor
        return tensor(a, dtype=_dt.from_numpy_dtype(dt))
    raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                      pin_memory=False):
    dt = self._data.dtype if dtype is None else _dt.to_dtype(dtype).np
    size, stride = tuple(size), tuple(stride)
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = np.empty(n, dt)
    arr = np.lib.stride_tricks.as_strided(base, size, tuple(st * base.itemsize for st in stride))
    t = Tensor._wrap(arr)
    return t.requires_grad_() if requires_grad else t


method("new", new)
method("new_empty_strided", new_empty_strided)


def _sizes(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else tuple(size)


def resize_(self, *sizes, memory_format=None):
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _sizes(sizes)
    n = int(np.prod(shape))
    flat = self._data.reshape(-1) if self._data.flags.c_contiguous else None
    if flat is not None and n <= flat.size:
        self._data = flat[:n].reshape(shape)  # shrinking keeps the memory (and the views that share it)
    else:
        grown = np.zeros(n, self._data.dtype)  # new elements are uninitialized in PyTorch; zeros here
        old = self._data.reshape(-1)
        grown[:min(n, old.size)] = old[:n]
        self._data = grown.reshape(shape)
    bump_version(self)
    return self


method("resize_", resize_)
method("resize_as_", lambda self, the_template, *, memory_format=None: resize_(self, the_template._data.shape))


def _resize_copy(self, shape, what):
    warnings.warn(f"non-inplace {what} is deprecated", UserWarning, stacklevel=3)
    n = int(np.prod(shape))
    if n != self._data.size:
        raise RuntimeError(f"requested resize to {'x'.join(map(str, shape))} ({n} elements in total), but the given "
                           f"tensor has a size of {'x'.join(map(str, self._data.shape))} ({self._data.size} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")
    return self.reshape(shape)


method("resize", lambda self, *sizes: _resize_copy(self, _sizes(sizes), "resize"))
method("resize_as", lambda self, tensor: _resize_copy(self, tensor._data.shape, "resize_as"))


# -- Python callables applied elementwise ---------------------------------------------------------------------------

def _no_grad_target(self, name):
    if self._requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _elementwise(self, fn, *others):
    d = self._data
    args = [np.broadcast_to(o._data, d.shape) for o in others]
    flat = [a.reshape(-1) for a in [d, *args]]
    out = np.array([fn(*(x.item() for x in xs)) for xs in zip(*flat)], dtype=object).reshape(d.shape)
    d[...] = out.astype(d.dtype) if out.size else d
    bump_version(self)
    return self


def apply_(self, callable):  # noqa: A002 - PyTorch's name
    _no_grad_target(self, "apply_")
    return _elementwise(self, callable)


def _check_other_type(self, name, other, argname):
    if other._data.dtype != self._data.dtype:
        raise TypeError(f"{name}: expected {self.type()} for '{argname}' (got {other.type()})")


def map_(self, tensor, callable):  # noqa: A002
    _no_grad_target(self, "map_")
    _check_other_type(self, "map_", tensor, "other")
    return _elementwise(self, callable, tensor)


def map2_(self, x, y, callable):  # noqa: A002
    _no_grad_target(self, "map2_")
    _check_other_type(self, "map2_", x, "x")
    _check_other_type(self, "map2_", y, "y")
    return _elementwise(self, callable, x, y)


method("apply_", apply_)
method("map_", map_)
method("map2_", map2_)


# -- attributes kept for old code and for PyTorch's other layouts ---------------------------------------------------

def dim_order(self, *, ambiguity_check=False):
    strides = self.stride()
    order = tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))
    if ambiguity_check is not False:
        shape = self._data.shape
        if len(set(strides)) != len(strides) or any(s == 1 for s in shape):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                               "memory formats.")
    return order


method("dim_order", dim_order)
method("const_data_ptr", lambda self: self.data_ptr())
def module_load(self, other, assign=False):
    """What load_state_dict puts in a module for ``other``: a detached ``other`` (assign=True), else this
    tensor with ``other`` copied in, detached."""
    return other.detach() if assign else self.copy_(other).detach()


method("module_load", module_load)


def as_subclass(self, cls):
    """A ``cls`` instance sharing this tensor's data and place in the graph (no ``cls.__init__`` runs)."""
    out = self[...]  # a new view of all of it (view_as would answer self itself)
    out.__class__ = cls
    return out


method("as_subclass", as_subclass)


def to_dense(self, dtype=None, *, masked_grad=None):
    """A strided (dense) tensor is already dense: itself, or a differentiable copy in ``dtype``."""
    return self if dtype is None else self.to(dtype)


method("to_dense", to_dense)
