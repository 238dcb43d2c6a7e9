"""Tensor properties kept for old code or for PyTorch's other layouts: volatile (always False, with PyTorch's
warning), name (None: npgrad has no named tensors), is_mkldnn (False) and grad_dtype. Loaded with the core:
a property cannot be a lazy method stub."""
import warnings

from .. import dtypes as _dt
from ._registry import method


def _volatile_get(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.", UserWarning,
                  stacklevel=2)


method("volatile", property(_volatile_get, _volatile_set))
method("name", property(lambda self: None))  # named tensors are not supported: every tensor is unnamed
method("is_mkldnn", property(lambda self: False))


_OWN = object()


def _grad_dtype(self):
    """The dtype a leaf's .grad is accumulated in: its own by default; another dtype, or None (the incoming
    gradient's dtype, whatever it is) once set (the engine reads the ``_grad_dtype`` entry)."""
    d = self.__dict__.get("_grad_dtype", _OWN)
    return _dt.from_numpy_dtype(self._data.dtype) if d is _OWN else d


def _set_grad_dtype(self, value):
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not None:
        value = _dt.to_dtype(value)
    if value is not None and value.np == self._data.dtype:
        self.__dict__.pop("_grad_dtype", None)
    else:
        self.__dict__["_grad_dtype"] = value


method("grad_dtype", property(_grad_dtype, _set_grad_dtype))
