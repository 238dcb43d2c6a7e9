"""dtype objects (``npgrad.float32`` ...), the default dtype, and PyTorch's type-promotion rules.

A ``dtype`` wraps a NumPy dtype. Promotion follows PyTorch rather than NumPy where they differ:
an integer tensor combined with a float keeps (or takes) a float type instead of widening to
float64, and 0-d tensors and Python scalars only decide the result's *category*
(bool < integer < floating < complex), not its width.

bfloat16 and the float8 formats come from ``ml_dtypes`` (NumPy dtypes of kind ``V``, float8_e5m2's ``f``: code
asks ``LOW_PRECISION_NP`` or the npgrad dtype, not ``np.dtype.kind``, whether an array holds them). PyTorch promotes bfloat16 like any float (with
float16 it meets at float32) and refuses to promote a float8 type with anything but itself.
"""
import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    "half", "float", "double", "short", "int", "long", "complex64", "complex128", "cfloat", "cdouble",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
    "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled", "set_autocast_dtype",
]

_builtin_bool, _builtin_int, _builtin_float = bool, int, float
_INF = float("inf")


class dtype:
    """A tensor element type. ``npgrad.float32.is_floating_point``, ``.itemsize``, ``.np``."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category")

    def __init__(self, name, np_dtype, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        # ml_dtypes' types are kind "V": every one is signed but the exponent-only float8_e8m0fnu
        self.is_signed = self.np.kind in "fic" or (category == 2 and name != "float8_e8m0fnu")
        self.itemsize = self.np.itemsize
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex

    def __repr__(self):
        return "npgrad." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    # Tensors from NumPy code should be able to compare their dtype with NumPy's.
    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return self.np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.np)

    def to_complex(self):
        """The complex dtype with this float's precision (float32 -> complex64); complex stays itself."""
        c = _TO_COMPLEX.get(self.name)
        if c is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {_SCALAR_NAMES[self.name]}")
        return c

    def to_real(self):
        """The real dtype of a complex one's parts (complex64 -> float32); a real dtype stays itself."""
        return _TO_REAL.get(self.name, self)


float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
uint8 = dtype("uint8", np.uint8, 1)
bool = dtype("bool", np.bool_, 0)  # noqa: A001 - PyTorch spells it npgrad.bool
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2)
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 2)
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2, 2)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 2)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 2)
float8_e8m0fnu = dtype("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, 2)

half, float, double = float16, float32, float64  # noqa: A001 - PyTorch aliases
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

_FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
# The reduced-precision floats NumPy has no arithmetic of its own for: npgrad's ops compute them in float32 and
# round the result once, as PyTorch's CPU kernels do (ops/_lowp.py).
LOW_PRECISION_NP = frozenset([bfloat16.np] + [d.np for d in _FLOAT8])
# Set once a reduced-precision dtype is first asked for (a cast, a factory, ``tensor(..., dtype=)``): ops/_lowp.py
# then installs its op hook (``_LOW_LISTENERS``); a program that never uses one never pays for it.
_LOW_USED = [False]
_LOW_LISTENERS = []


def _to_e4m3fn(x):
    # PyTorch saturates: a value beyond float8_e4m3fn's range (infinity too) becomes +-448, where ml_dtypes' NaN
    return np.clip(x, -448.0, 448.0).astype(float8_e4m3fn.np)


def _to_e8m0fnu(x):
    # PyTorch keeps only the exponent of |x|, and 0 becomes the smallest value (2**-127), not ml_dtypes' NaN
    a = np.abs(x.astype(np.float32) if x.dtype in LOW_PRECISION_NP else x)
    return np.where(a == 0, np.float32(2.0 ** -127), a).astype(float8_e8m0fnu.np)


# The conversions where PyTorch's rounding differs from a plain ``astype`` (ops/_lowp.py routes casts here).
FIXED_CASTS = {float8_e4m3fn.np: _to_e4m3fn, float8_e8m0fnu.np: _to_e8m0fnu}


def cast_array(arr, np_dtype):
    """``arr.astype(np_dtype)`` converted as PyTorch converts."""
    fix = FIXED_CASTS.get(np_dtype)
    return arr.astype(np_dtype) if fix is None else fix(arr)


def note_dtype(np_dtype):
    """Called where a tensor of ``np_dtype`` is about to be made: arms reduced-precision arithmetic."""
    if not _LOW_USED[0] and np_dtype in LOW_PRECISION_NP:
        _LOW_USED[0] = True
        for fn in _LOW_LISTENERS:
            fn()
    return np_dtype


_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64, complex128, bfloat16) + _FLOAT8
# float16's complex partner (PyTorch's complex32) has no NumPy type: half precision widens to complex64.
_TO_COMPLEX = {"float16": complex64, "bfloat16": complex64, "float32": complex64, "float64": complex128, "complex64": complex64,
               "complex128": complex128}
_TO_REAL = {"complex64": float32, "complex128": float64}
_FROM_NP = {d.np: d for d in _ALL if d.np not in LOW_PRECISION_NP}
_FROM_NP.update({d.np.type: d for d in _ALL if d.np not in LOW_PRECISION_NP})
# Reduced-precision dtypes join _FROM_NP when an array of one is first met (from_numpy_dtype's slow path), which
# arms their arithmetic (note_dtype) however the array arrived (a NumPy array of ml_dtypes' type, a checkpoint).
_FROM_NP_LOW = {k: d for d in _ALL if d.np in LOW_PRECISION_NP for k in (d.np, d.np.type)}
# As PyTorch: ``dtype=float`` means float64 (a Python float is a double), whatever the default type.
_FROM_PY = {_builtin_float: float64, _builtin_int: int64, _builtin_bool: bool, complex: complex128}

# The C++ scalar-type names PyTorch's messages use ("not implemented for 'Float'").
_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
                 "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble", "bfloat16": "BFloat16", "float8_e4m3fn": "Float8_e4m3fn",
                 "float8_e5m2": "Float8_e5m2", "float8_e4m3fnuz": "Float8_e4m3fnuz",
                 "float8_e5m2fnuz": "Float8_e5m2fnuz", "float8_e8m0fnu": "Float8_e8m0fnu"}


def scalar_name(d):
    """PyTorch's name for a dtype in error messages: ``Float`` for float32, ``Long`` for int64."""
    d = d if type(d) is dtype else from_numpy_dtype(d)
    return _SCALAR_NAMES[d.name]


# The C++ value types PyTorch names when a scalar does not fit a dtype ("cannot be converted to type int64_t").
_VALUE_TYPES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "int8_t", "int16": "int16_t",
                "int32": "int", "int64": "int64_t", "uint8": "uint8_t", "bool": "bool", "bfloat16": "c10::BFloat16"}


def overflow_error(np_dtype):
    return RuntimeError(f"value cannot be converted to type {_VALUE_TYPES[np.dtype(np_dtype).name]} without overflow")


# The largest finite value of each narrower float dtype: PyTorch's checked conversion of a fill value refuses a
# finite one beyond it (inf and NaN pass); float64 holds every Python float.
_FLOAT_MAX = {2: 65504.0, 4: 3.4028234663852886e38}


def checked_fill_value(value, np_dtype, setitem=False):
    """A Python scalar about to be written into a tensor of ``np_dtype``, checked as PyTorch checks it: a complex
    one keeps its real part in a real tensor when its imaginary part is zero (for bool, any nonzero is True), an
    integer tensor takes no NaN or infinity, and a float tensor no finite value beyond its range (fill_, full,
    masked_fill: 1e5 into float16 raises; ``setitem``: PyTorch checks float32 items only, so 1e300 into float16
    is inf and into float32 raises); PyTorch refuses the rest as an overflow."""
    dt = np.dtype(np_dtype)
    kind = dt.kind
    t = type(value)
    if t is _builtin_int or t is _builtin_bool:  # the common writes
        return value
    if kind == "f" and (t is _builtin_float or isinstance(value, np.floating)):
        limit = _FLOAT_MAX.get(dt.itemsize) if not setitem or dt.itemsize == 4 else None
        if limit is not None and limit < abs(value) < _INF:
            raise overflow_error(np_dtype)
        return value
    if t is _builtin_float and kind == "c":
        return value
    if isinstance(value, (complex, np.complexfloating)) and kind != "c":
        if kind == "b":
            return _builtin_bool(value)
        if value.imag != 0:  # (NaN included)
            raise overflow_error(np_dtype)
        value = value.real
    if kind in "iu" and isinstance(value, (_builtin_float, np.floating)) and not np.isfinite(value):
        raise overflow_error(np_dtype)
    return value


def not_implemented(kernel, d):
    """PyTorch's error for a kernel without this dtype: ``"max_all" not implemented for 'ComplexFloat'``."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(d)}'")


def _by_name(name):
    return globals()[name]


def from_numpy_dtype(np_dtype):
    """The npgrad dtype of a NumPy dtype, with PyTorch's error for the ones it has no tensor for."""
    d = _FROM_NP.get(np_dtype)
    if d is None:
        d = _FROM_NP.get(np.dtype(np_dtype))
        if d is None:
            d = _FROM_NP_LOW.get(np_dtype) or _FROM_NP_LOW.get(np.dtype(np_dtype))
            if d is not None:
                note_dtype(d.np)
                _FROM_NP[d.np] = _FROM_NP[d.np.type] = d
                return d
            raise TypeError(
                f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
                "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")
    return d


def to_dtype(d):
    """Accept an npgrad dtype, a NumPy dtype/type, or a Python type (``float`` -> float64, as PyTorch)."""
    if type(d) is dtype:
        return d
    if d in _FROM_PY:
        return _FROM_PY[d]
    return from_numpy_dtype(d)


_default = [float32]


def get_default_dtype():
    return _default[0]


def default_complex_dtype():
    """The dtype a Python complex number gets: complex128 under a float64 default, else complex64."""
    return complex128 if _default[0] is float64 else complex64


def set_default_dtype(d):
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def promote_types(a, b):
    """PyTorch's promote_types: a float beats any integer whatever its width; complex beats both,
    taking a float's precision (float64 with complex64 is complex128)."""
    a, b = to_dtype(a), to_dtype(b)
    if a is b:
        return a
    if a in _FLOAT8 or b in _FLOAT8:
        raise RuntimeError("Promotion for Float8 Types is not supported, attempted to promote "
                           f"{_SCALAR_NAMES[a.name]} and {_SCALAR_NAMES[b.name]}")
    if 3 in (a._category, b._category):
        wide = complex128 in (a, b) or float64 in (a, b)
        return complex128 if wide else complex64
    if a._category != b._category and 2 in (a._category, b._category):
        return a if a._category == 2 else b
    if bfloat16 in (a, b):  # with another float: PyTorch's table (ml_dtypes before 0.7 gives NumPy none for float16)
        other = b if a is bfloat16 else a
        return float32 if other is float16 else other
    return _FROM_NP[np.promote_types(a.np, b.np)]


def _combine(higher, lower):
    # Mirrors c10's combine_categories: `higher` comes from the stronger participant group.
    if higher is None:
        return lower
    if lower is None or higher._category == 3:
        return higher
    if lower._category == 3:  # a complex scalar keeps a float tensor's precision (float64 -> complex128)
        return higher.to_complex() if higher._category == 2 else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def _scalar_dtype(x):
    t = type(x)
    if t is _builtin_bool or t is np.bool_:
        return bool
    if t is _builtin_int or isinstance(x, np.integer):
        return int64
    if t is _builtin_float or isinstance(x, np.floating):
        return _default[0]
    if t is complex or isinstance(x, np.complexfloating):
        return default_complex_dtype()
    raise TypeError(f"unsupported scalar type {t.__name__}")


def result_type(*operands):
    """Result dtype of an operation over tensors and Python scalars (PyTorch's torch.result_type)."""
    dim = zero = wrapped = None
    for x in operands:
        d = getattr(x, "_data", None)
        if d is not None:
            dt = from_numpy_dtype(d.dtype)
            if d.ndim:
                dim = dt if dim is None else promote_types(dim, dt)
            else:
                zero = dt if zero is None else promote_types(zero, dt)
        else:
            dt = _scalar_dtype(x)
            wrapped = dt if wrapped is None else promote_types(wrapped, dt)
    return _combine(dim, _combine(zero, wrapped))


_array_cache = {}


def result_np_dtype(a, b):
    """Result NumPy dtype for two arrays from tensors, cached: this sits on the binary-op path."""
    key = (a.dtype, b.dtype, a.ndim == 0, b.ndim == 0)
    r = _array_cache.get(key)
    if r is None:
        da, db = from_numpy_dtype(a.dtype), from_numpy_dtype(b.dtype)
        dims = [d for d, arr in ((da, a), (db, b)) if arr.ndim]
        zeros = [d for d, arr in ((da, a), (db, b)) if not arr.ndim]
        dim = zero = None
        for d in dims:
            dim = d if dim is None else promote_types(dim, d)
        for d in zeros:
            zero = d if zero is None else promote_types(zero, d)
        r = _array_cache[key] = _combine(dim, zero).np
    return r


def can_cast(from_, to):
    """PyTorch's can_cast: no casting to a lower category (complex -> float, float -> int, int -> bool)."""
    return to_dtype(from_)._category <= to_dtype(to)._category


# Autocast's per-device state ([enabled, dtype]), kept on the ground floor so that the operators can read it.
# ``_AUTOCAST_LISTENERS`` are told of every change (ops/_lowp.py arms its op hook only while it is needed).
_AUTOCAST = {"cpu": [False, bfloat16], "cuda": [False, float16]}
_AUTOCAST_LISTENERS = []


def _autocast_entry(device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"is_autocast_enabled(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    e = _AUTOCAST.get(device_type)
    if e is None:
        raise RuntimeError("Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                           "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
                           f"device string: {device_type}")
    return e


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for ``device_type`` (with no argument, CUDA's, as PyTorch answers)."""
    return _AUTOCAST.get(device_type, _autocast_entry(device_type))[0]


def get_autocast_dtype(device_type):
    return _autocast_entry(device_type)[1]


def set_autocast_enabled(device_type, enabled):
    _autocast_entry(device_type)[0] = _builtin_bool(enabled)
    for fn in _AUTOCAST_LISTENERS:
        fn()


def set_autocast_dtype(device_type, dtype):
    _autocast_entry(device_type)[1] = to_dtype(dtype)
    for fn in _AUTOCAST_LISTENERS:
        fn()
