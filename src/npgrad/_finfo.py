"""``torch.finfo`` and ``torch.iinfo``: the numeric limits of a dtype, as PyTorch reports them.

The numbers are NumPy's (npgrad's dtypes are NumPy's), handed out as Python floats and ints like
PyTorch's. A complex dtype reports the limits of its real and imaginary parts, as in PyTorch.
"""
import math

import ml_dtypes
import numpy as np

from . import dtypes as _dt

__all__ = ["finfo", "iinfo"]

_PY_TYPES = {float: _dt.float64, int: _dt.int64, complex: _dt.complex128, bool: _dt.bool}
_COMPLEX_PART = {"complex64": _dt.float32, "complex128": _dt.float64}
_MISSING = object()


def _dtype_arg(fn, type_):
    if isinstance(type_, _dt.dtype):
        return type_
    if type_ in _PY_TYPES:
        return _PY_TYPES[type_]
    raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not {type(type_).__name__}")


class finfo:
    """Limits of a floating-point (or complex) dtype; ``finfo()`` describes the default dtype."""

    __hash__ = None  # PyTorch's finfo is unhashable too

    def __init__(self, type=_MISSING):  # noqa: A002 - PyTorch's parameter name
        d = _dt.get_default_dtype() if type is _MISSING else _dtype_arg("finfo", type)
        d = _COMPLEX_PART.get(d.name, d)
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        low = d.np in _dt.LOW_PRECISION_NP  # bfloat16 and float8: ml_dtypes' finfo
        info = ml_dtypes.finfo(d.np) if low else np.finfo(d.np)
        self.bits = int(info.bits)
        # PyTorch's epsilon for float8_e5m2fnuz is 2**-3 (ml_dtypes': 2**-2, one mantissa step above 1)
        self.eps = 0.125 if d.name == "float8_e5m2fnuz" else float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        # 10**-precision computed in Python: NumPy's float16 resolution is a float16 (0.0010004...), not 0.001
        # (for ml_dtypes' types: 10**-digits10, the decimal digits the mantissa always holds, as PyTorch's)
        self.resolution = 10.0 ** -(int(info.nmant * math.log10(2)) if low else int(info.precision))
        self.dtype = d.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype."""

    __hash__ = None

    def __init__(self, type=_MISSING):  # noqa: A002 - PyTorch's parameter name
        if type is _MISSING:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        d = _dtype_arg("iinfo", type)
        if d is _dt.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.is_floating_point or d.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(d.np)
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), int(info.max), d.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "npgrad"
