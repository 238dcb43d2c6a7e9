"""Creating tensors: ``tensor``, ``as_tensor``, ``from_numpy``, and the factories (zeros, ones, full,
empty, arange, linspace, eye, rand, randn, randint, ... and their ``*_like`` forms)."""
import math

import numpy as np

from . import dtypes as _dt
from .random import rng
from .ops._dims import sizes_arg
from .ops._registry import method, op
from ._convert import _finish, _infer_array, check_python_cast, tensor  # noqa: F401 (tensor: public)
from .tensor import Tensor, _check_device
from . import _windows
from ._windows import *  # noqa: F401,F403 (hann_window ...: public here, as in torch)

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "arange", "range",
           "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand", "randn",
           "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal", "bernoulli", "multinomial",
           "is_tensor", "is_storage", "typename", "numel", "empty_strided", "empty_permuted", "frombuffer",
           "from_file", "scalar_tensor", "tril_indices", "triu_indices"] + _windows.__all__

_builtin_range = range


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a NumPy array or Tensor when no conversion is needed."""
    _check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    arr = _infer_array(data, exact=dtype is not None)
    if dtype is not None and not isinstance(data, (np.ndarray, np.generic)):
        check_python_cast(arr, _dt.to_dtype(dtype).np)
    return _finish(arr, dtype, False, False)


asarray = as_tensor


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dt.from_numpy_dtype(ndarray.dtype)
    return Tensor._wrap(ndarray)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_storage(obj):
    """False: an npgrad tensor's memory is its NumPy array, there are no Storage objects to be."""
    return False


def typename(obj, /):
    """A tensor's legacy type name ("torch.FloatTensor"), else the object's module-qualified name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def numel(input):
    return input.numel()


def _size(size, fn="empty", keyword=None):
    """A shape from ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(Size)``, ``f(size=...)`` or 0-d integer tensors."""
    size = sizes_arg(size, keyword, fn, "size")
    if len(size) == 1 and not _is_int(size[0]):
        if not isinstance(size[0], (tuple, list)):
            raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(size[0]).__name__}")
        size = tuple(size[0])
    for i, s in enumerate(size):
        if not _is_int(s):
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(s).__name__}\"")
    size = tuple(int(s) for s in size)
    for s in size:
        if s < 0:
            if fn == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return size


def _is_int(v):
    if isinstance(v, Tensor):
        return v._data.ndim == 0 and v._data.dtype.kind in "iu"
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _float_dtype(dtype):
    return _dt.get_default_dtype().np if dtype is None else _dt.note_dtype(_dt.to_dtype(dtype).np)


def _make(arr, requires_grad, out=None, dtype=None):
    if out is not None:
        # PyTorch writes in out's dtype, and refuses a dtype= that differs from it (never a silent retype of out)
        have = out._data.dtype
        if dtype is not None and _dt.to_dtype(dtype).np != have:
            raise RuntimeError(f"dtype {_dt.scalar_name(_dt.to_dtype(dtype).np)} does not match dtype of out "
                               f"parameter ({_dt.scalar_name(have)})")
        out.data = Tensor._wrap(arr if arr.dtype == have else arr.astype(have))
        return out
    return _finish(arr, None, requires_grad, False)


def zeros(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    _check_device(device)
    return _make(np.zeros(_size(sizes, "zeros", size), _float_dtype(dtype)), requires_grad, out, dtype)


def ones(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    _check_device(device)
    return _make(np.ones(_size(sizes, "ones", size), _float_dtype(dtype)), requires_grad, out, dtype)


def empty(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    _check_device(device)
    return _make(np.empty(_size(sizes, "empty", size), _float_dtype(dtype)), requires_grad, out, dtype)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialised tensor with the given strides (in elements), over just enough memory for them."""
    _check_device(device)
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    base = np.empty(1 + sum((n - 1) * st for n, st in zip(size, stride)) if all(size) else 0, _float_dtype(dtype))
    arr = np.lib.stride_tricks.as_strided(base, size, tuple(st * base.itemsize for st in stride))
    return _make(arr, requires_grad, None)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised dense tensor of shape ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first): ``(0, 2, 3, 1)`` is NHWC for an NCHW ``size``."""
    _check_device(device)
    size, physical_layout = tuple(size), tuple(physical_layout)
    if len(size) != len(physical_layout):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(physical_layout)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(n for n in size if n < 0)}: {list(size)}")
    for i, d in enumerate(physical_layout):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you "
                               f"want it.")
    if len(set(physical_layout)) != len(physical_layout):
        raise RuntimeError("Duplicate dim not allowed")
    # Allocated in physical order and transposed back: a view of a NumPy array is how an npgrad tensor
    # carries strides other than the contiguous ones.
    physical = np.empty(tuple(size[d] for d in physical_layout), _float_dtype(dtype))
    return _make(physical.transpose(np.argsort(physical_layout)), requires_grad)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """A 1-D tensor of ``size`` elements over a memory-mapped file of raw values: with ``shared=True``
    writes to the tensor go to the file (created, or extended, to fit); otherwise they stay private."""
    import mmap
    import os
    if not isinstance(filename, str):
        raise TypeError(f"from_file(): argument 'filename' (position 1) must be str, not {type(filename).__name__}")
    _check_device(device)
    npd = _float_dtype(dtype)
    nbytes = size * npd.itemsize
    mode = "read-write" if shared else "read-only"
    try:
        fd = os.open(filename, os.O_RDWR | os.O_CREAT if shared else os.O_RDONLY, 0o666)
    except OSError as e:
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: {e.strerror} ({e.errno})") from None
    try:
        if nbytes < 0:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot allocate memory (12)")
        if nbytes == 0:  # mmap cannot map nothing; the tensor is empty whatever the file holds
            return _make(np.empty(0, npd), requires_grad)
        have = os.fstat(fd).st_size
        if have < nbytes:
            if not shared:
                raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required mapping size "
                                   f"<{nbytes}>")
            os.ftruncate(fd, nbytes)
        # MAP_PRIVATE (ACCESS_COPY) when not shared: the tensor is writable, the file untouched.
        buf = mmap.mmap(fd, nbytes, access=mmap.ACCESS_WRITE if shared else mmap.ACCESS_COPY)
    finally:
        os.close(fd)
    return _make(np.frombuffer(buf, npd), requires_grad)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of a Python buffer (bytearray, array.array, memoryview ...), sharing them."""
    try:
        mem = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    npd = _dt.to_dtype(dtype).np
    length = mem.nbytes
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % npd.itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({npd.itemsize})")
        count = (length - offset) // npd.itemsize
    elif offset + count * npd.itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {npd.itemsize} bytes) after offset ({offset} bytes) "
                         f"must not be greater than actual buffer length ({length} bytes)")
    arr = np.frombuffer(mem.cast("B") if mem.ndim != 1 or mem.format != "B" else mem, npd, count, offset)
    if not arr.flags.writeable:
        # NumPy cannot write through a read-only buffer as PyTorch's tensor does: the tensor gets a copy
        from ._runtime import warn_once
        warn_once("frombuffer", "The given buffer is not writable, and PyTorch does not support non-writable "
                  "tensors. npgrad copies it, so writing to the tensor leaves the buffer as it was. This type of "
                  "warning will be suppressed for the rest of this program.")
        arr = arr.copy()
    return _make(arr, requires_grad, None)


def _scalar_dtype(value):
    if isinstance(value, Tensor):
        return value._data.dtype
    return _dt._scalar_dtype(value).np


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    _check_device(device)
    npd = _scalar_dtype(fill_value) if dtype is None else _dt.note_dtype(_dt.to_dtype(dtype).np)
    fill_value = _dt.checked_fill_value(fill_value, npd)
    return _make(np.full(_size((size,)) if not isinstance(size, int) else (size,), fill_value, npd),
                 requires_grad, out, dtype)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return _make(np.asarray(s, _float_dtype(dtype)), requires_grad)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    _check_device(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        npd = np.int64 if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals) \
            else _dt.get_default_dtype().np
    else:
        npd = _dt.note_dtype(_dt.to_dtype(dtype).np)
        if npd == np.bool_:
            raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    n = int(math.ceil((end - start) / step))
    # Computed in float64 then cast, as PyTorch does, so float32 ranges do not drift.
    arr = (start + step * np.arange(n, dtype=np.float64)).astype(npd) if np.dtype(npd).kind == "f" else \
        np.arange(start, end, step, dtype=npd)
    return _make(arr, requires_grad, out, dtype)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """Deprecated in PyTorch: includes ``end``."""
    if end is None:
        start, end = 0, start
    npd = _float_dtype(dtype)
    if npd == np.bool_:
        raise NotImplementedError("\"range_cpu\" not implemented for 'Bool'")
    n = int(math.floor((end - start) / step)) + 1
    arr = (start + step * np.arange(n, dtype=np.float64)).astype(npd)
    return _make(arr, requires_grad)


def _space_args(fn, start, end, dtype):
    """The end points as Python numbers and the result's NumPy dtype: PyTorch infers the default complex dtype
    from a complex end point, which a real ``dtype=`` cannot hold."""
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    if not any(isinstance(v, complex) for v in (start, end)):
        return float(start), float(end), _float_dtype(dtype)
    inferred = _dt.default_complex_dtype()
    if dtype is not None and not _dt.to_dtype(dtype).is_complex:
        from .ops.products import cpp_type_name
        raise RuntimeError(f"torch.{fn}(): inferred dtype {cpp_type_name(inferred.np)} can't be safely cast to "
                           f"passed dtype {_dt.scalar_name(_dt.to_dtype(dtype))}")
    return complex(start), complex(end), (inferred if dtype is None else _dt.to_dtype(dtype)).np


def _no_bool_kernel(fn, npd, steps):
    # PyTorch has no bool kernel for these; 0 or 1 steps never reach it (the start point is written directly)
    if npd == np.bool_ and steps > 1:
        raise NotImplementedError(f"\"{fn}_cpu\" not implemented for 'Bool'")


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    _check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end, npd = _space_args("linspace", start, end, dtype)
    _no_bool_kernel("linspace", npd, steps)
    wide = np.complex128 if np.dtype(npd).kind == "c" else np.float64
    arr = np.linspace(start, end, int(steps), dtype=wide).astype(npd)
    return _make(arr, requires_grad, out, dtype)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    start, end, npd = _space_args("logspace", start, end, dtype)
    _no_bool_kernel("logspace", npd, steps)
    arr = np.logspace(start, end, int(steps), base=base).astype(npd)
    return _make(arr, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    _check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _make(np.eye(n, n if m is None else m, dtype=_float_dtype(dtype)), requires_grad, out, dtype)


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    r, c = np.tril_indices(row, offset, col)
    return Tensor._wrap(np.stack([r, c]).astype(np.int64 if dtype is None else _dt.to_dtype(dtype).np))


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    r, c = np.triu_indices(row, offset, col)
    return Tensor._wrap(np.stack([r, c]).astype(np.int64 if dtype is None else _dt.to_dtype(dtype).np))


def _like_dtype(input, dtype):
    return input._data.dtype if dtype is None else _dt.to_dtype(dtype).np


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _make(np.zeros(input._data.shape, _like_dtype(input, dtype)), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _make(np.ones(input._data.shape, _like_dtype(input, dtype)), requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _make(np.empty(input._data.shape, _like_dtype(input, dtype)), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    npd = _like_dtype(input, dtype)
    return _make(np.full(input._data.shape, _dt.checked_fill_value(fill_value, npd), npd), requires_grad)


# -- random ----------------------------------------------------------------------------------------------------

def _random_float(draw, size, dtype, kernel="check_uniform_bounds", complex_scale=1.0):
    npd = np.dtype(_float_dtype(dtype))
    if npd.kind == "c":
        # real and imaginary parts drawn independently; randn scales each to variance 1/2 so |z|^2 has mean 1
        part = npd.type(0).real.dtype
        z = draw(tuple(size) + (2,), part).view(npd)[..., 0]
        return z * npd.type(complex_scale) if complex_scale != 1.0 else z
    if npd.kind != "f" and npd not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dt.scalar_name(npd)}'")
    if npd == np.float16 or npd in _dt.LOW_PRECISION_NP:
        return draw(size, np.float32).astype(npd)
    return draw(size, npd)


def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    _check_device(device)
    g = rng(generator)
    arr = _random_float(lambda s, d: g.random(s, dtype=d), _size(sizes, "rand", size), dtype)
    return _make(arr, requires_grad, out, dtype)


def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    _check_device(device)
    g = rng(generator)
    return _make(_random_float(lambda s, d: g.standard_normal(s, dtype=d), _size(sizes, "randn", size), dtype,
                               "normal_kernel_cpu", complex_scale=0.5 ** 0.5), requires_grad, out)


_RANDINT_FORMS = "".join(
    f"\n * ({head}tuple of ints size, *, {gen}Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
    for head in ("int high, ", "int low, int high, ") for gen in ("torch.Generator generator, ", ""))
_UNSET = object()


def _randint_error(args, given):
    names = [_type_label(a) for a in args] + [f"{k}={_type_label(v)}" for k, v in sorted(given.items())]
    return TypeError(f"randint() received an invalid combination of arguments - got ({', '.join(names)}), but "
                     f"expected one of:{_RANDINT_FORMS}\n")


def _type_label(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def randint(*args, low=_UNSET, high=_UNSET, size=_UNSET, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False, pin_memory=False):
    """``randint(high, size)`` or ``randint(low, high, size)``, each argument positional or by keyword."""
    _check_device(device)
    given = {k: v for k, v in (("low", low), ("high", high), ("size", size)) if v is not _UNSET}
    names = ("low", "high", "size") if len(args) + len(given) == 3 else ("high", "size")
    values = dict(zip(names, args))
    if len(args) > len(names) or any(k not in names or k in values for k in given) or \
            len(values) + len(given) != len(names):
        raise _randint_error(args, given)
    values.update(given)
    bounds = []
    for name in names[:-1]:
        v = values[name]
        if isinstance(v, Tensor) and v._data.size == 1 and v._data.dtype.kind in "iu":
            v = int(v._data.reshape(()))
        if not _is_int(v):
            if len(names) == 3:
                raise _randint_error(args, given)
            raise TypeError(f"randint(): argument '{name}' (position 1) must be int, not {_type_label(v)}")
        bounds.append(int(v))
    low, high = bounds if len(bounds) == 2 else (0, bounds[0])
    size = values["size"]
    if not isinstance(size, (tuple, list)):
        if len(names) == 3 or "size" in given:
            raise _randint_error(args, given)
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not {_type_label(size)}")
    bad = next((i for i, s in enumerate(size) if not _is_int(s)), None)
    if bad is not None:
        raise TypeError(f"randint(): argument 'size' (position {len(names)}) must be tuple of ints, but found element "
                        f"of type {_type_label(size[bad])} at pos {bad}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    npd = np.int64 if dtype is None else _dt.to_dtype(dtype).np
    _check_random_range(low, high, npd)
    arr = rng(generator).integers(low, high, size=_size((tuple(size),), "randint"))
    return _make(arr.astype(npd), requires_grad, out, dtype)


_C_TYPES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
            "int64": "long int", "float16": "c10::Half"}


def _check_random_range(low, high, npd):
    """PyTorch's bounds check for random integers of a small type (``randint(0, 300, dtype=uint8)``)."""
    npd = np.dtype(npd)
    if npd.kind == "b":
        lo, hi = 0, 1
    elif npd.kind in "iu":
        lo, hi = np.iinfo(npd).min, np.iinfo(npd).max
    elif npd == np.float16:
        lo, hi = -65504, 65504
    else:
        return
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {_C_TYPES[npd.name]}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_TYPES[npd.name]}")


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    npd = np.int64 if dtype is None else _dt.to_dtype(dtype).np
    return _make(rng(generator).permutation(int(n)).astype(npd), requires_grad, out, dtype)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return rand(input._data.shape, dtype=_dt.from_numpy_dtype(_like_dtype(input, dtype)), requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return randn(input._data.shape, dtype=_dt.from_numpy_dtype(_like_dtype(input, dtype)), requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=_dt.from_numpy_dtype(_like_dtype(input, dtype)))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    g = rng(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        ref = mean if isinstance(mean, Tensor) else std
        arr = (m + s * g.standard_normal(shape)).astype(ref._data.dtype)
        return _make(arr, requires_grad, out, dtype)
    shape = _size((size,)) if size is not None and not isinstance(size, int) else ((size,) if size else ())
    arr = (mean + std * g.standard_normal(shape)).astype(_float_dtype(dtype))
    return _make(arr, requires_grad, out, dtype)


@op()
def bernoulli(input, p=None, *, generator=None, out=None):
    if p is not None and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    if p is None and ((input._data < 0) | (input._data > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    probs = input._data if p is None else np.full(input._data.shape, p)
    arr = (rng(generator).random(input._data.shape) < probs).astype(input._data.dtype)
    return _make(arr, False, out)


@op()
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    probs = np.asarray(input._data, np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    g = rng(generator)
    rows = probs.reshape(int(np.prod(probs.shape[:-1])), probs.shape[-1])  # (-1, 0) cannot be inferred
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    result = []
    for row in rows:
        total = row.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if replacement:
            cdf = np.cumsum(row / total)
            result.append(np.minimum(np.searchsorted(cdf, g.random(num_samples), side="right"), len(row) - 1))
        else:
            # Gumbel top-k: sampling without replacement in proportion to the weights.
            keys = np.log(g.random(len(row))) / np.where(row > 0, row, np.nan)
            keys = np.where(row > 0, keys, -np.inf)
            result.append(np.argsort(-keys, kind="stable")[:num_samples])
    arr = np.stack(result).astype(np.int64) if result else np.zeros((0, num_samples), np.int64)
    return _make(arr if probs.ndim == 2 else arr[0], False, out)




# -- in-place random fills used by nn.init ---------------------------------------------------------------------

def _fill_inplace(t, arr):
    from .ops.inplace import check_inplace, bump_version
    from .autograd.grad_mode import state
    if state.enabled and t._requires_grad:
        check_inplace(t)
    t._data[...] = arr
    bump_version(t)
    return t


def _uniform_(self, a=0.0, b=1.0, *, generator=None):
    return _fill_inplace(self, rng(generator).uniform(a, b, self._data.shape))


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _fill_inplace(self, mean + std * rng(generator).standard_normal(self._data.shape))


def _bernoulli_(self, p=0.5, *, generator=None):
    probs = p._data if isinstance(p, Tensor) else p
    return _fill_inplace(self, rng(generator).random(self._data.shape) < probs)


def _exponential_(self, lambd=1.0, *, generator=None):
    return _fill_inplace(self, rng(generator).exponential(1.0 / lambd, self._data.shape))


def _random_(self, from_=0, to=None, *, generator=None):
    if to is None:
        from_, to = 0, from_ if from_ else 2 ** 24
    return _fill_inplace(self, rng(generator).integers(from_, to, self._data.shape))


method("uniform_", _uniform_)
method("normal_", _normal_)
method("bernoulli_", _bernoulli_)
method("exponential_", _exponential_)
method("random_", _random_)
method("new_tensor", lambda self, data, dtype=None, requires_grad=False, **kw: tensor(
    data, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad))


def _new_sized(name, make):
    """``t.new_zeros(2, 3)``, ``t.new_zeros((2, 3))`` and ``t.new_zeros(size=(2, 3))``, in ``t``'s dtype
    unless ``dtype=`` says otherwise; any other keyword is refused (it once silently dropped ``size=``)."""
    def new(self, *size, dtype=None, requires_grad=False, device=None, layout=None, pin_memory=False, **kw):
        if "size" in kw:
            if size:
                raise TypeError(f"{name}() got multiple values for argument 'size'")
            size = (kw.pop("size"),)
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        _check_device(device)
        return make(*size, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad)
    new.__name__ = name
    return new


method("new_zeros", _new_sized("new_zeros", zeros))
method("new_ones", _new_sized("new_ones", ones))
method("new_empty", _new_sized("new_empty", empty))
method("new_full", lambda self, size, fill_value, dtype=None, requires_grad=False, **kw: full(
    size, fill_value, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad))
