"""torch.fft's ``n``/``s``/``dim``/``norm`` arguments, checked with PyTorch's messages and resolved into a Plan.

A Plan is everything a transform's forward and backward need: which of the four families (complex-to-complex,
real-to-complex, complex-to-real, and their direction), the transformed dims, the input's sizes along them and
the signal sizes the transform works at (the input is zero-padded or trimmed to those), the norm, and the input's
dtype (the gradient has it: a real input gets the real part).
"""
import collections
import operator

import numpy as np

from ..dtypes import get_default_dtype

# kind: "c2c" | "r2c" | "c2r"; inverse: the transform's sign (ifft, ihfft, irfft are inverse; hfft is a forward
# c2r). sizes: the logical signal length per dim (for c2r the real output's length, for r2c the real input's).
Plan = collections.namedtuple("Plan", "name kind inverse dims in_sizes sizes norm in_dtype out_dtype")

# name -> (kind, inverse, shape of the dim argument: 1 (int), 2 (default (-2, -1)), "n" (default all))
TRANSFORMS = {
    "fft": ("c2c", False, 1), "ifft": ("c2c", True, 1),
    "fft2": ("c2c", False, 2), "ifft2": ("c2c", True, 2),
    "fftn": ("c2c", False, "n"), "ifftn": ("c2c", True, "n"),
    "rfft": ("r2c", False, 1), "ihfft": ("r2c", True, 1),
    "rfft2": ("r2c", False, 2), "ihfft2": ("r2c", True, 2),
    "rfftn": ("r2c", False, "n"), "ihfftn": ("r2c", True, "n"),
    "irfft": ("c2r", True, 1), "hfft": ("c2r", False, 1),
    "irfft2": ("c2r", True, 2), "hfft2": ("c2r", False, 2),
    "irfftn": ("c2r", True, "n"), "hfftn": ("c2r", False, "n"),
}
NORMS = (None, "backward", "ortho", "forward")
# the adjoint of a transform scaled by c is the opposite-sign transform scaled by c: "backward" puts 1/n on the
# inverse, so the adjoint of an unscaled forward is the inverse with "forward" scaling (none), and so on.
SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}

_TORCH_DTYPE_NAME = {"float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                     "complex128": "ComplexDouble"}


def torch_dtype_name(dtype):
    return _TORCH_DTYPE_NAME.get(np.dtype(dtype).name, np.dtype(dtype).name)


def check_norm(norm):
    if norm not in NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm or "backward"


def wrap_dim(d, ndim):
    d = operator.index(d)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
    return d % ndim


def compute_dtypes(dtype, kind):
    """(dtype the input is computed in, output dtype). Integers and bools compute in the default float dtype,
    as PyTorch promotes them; half precision is refused as PyTorch's CPU kernels do."""
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        dtype = np.dtype(get_default_dtype().np)
    if dtype == np.float16:
        raise RuntimeError("Unsupported dtype Half")
    if dtype.kind not in "fc":
        raise RuntimeError(f"Unsupported dtype {dtype.name}")
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    cplx = np.complex64 if real is np.float32 else np.complex128
    return dtype, (np.dtype(real) if kind == "c2r" else np.dtype(cplx))


def _as_tuple(v):
    if v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return (operator.index(v),)
    return tuple(operator.index(i) for i in v)


def _dims_and_sizes(shape, n_or_s, dim, arity, kind, name):
    ndim = len(shape)
    if arity == 1:
        dims = (wrap_dim(dim, ndim),)
        s = None if n_or_s is None else (operator.index(n_or_s),)
    else:
        s, dims = _as_tuple(n_or_s), _as_tuple(dim)
        if dims is not None and s is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if dims is None:
            if s is not None:
                if len(s) > ndim:
                    raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
                dims = tuple(range(ndim - len(s), ndim))
            else:
                dims = tuple(range(ndim))
        else:
            dims = tuple(wrap_dim(d, ndim) for d in dims)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if not dims and kind != "c2c":
            raise RuntimeError(f"{name.rstrip('2n')}n must transform at least one axis")
    sizes = []
    for i, d in enumerate(dims):
        n = -1 if s is None else s[i]
        if n == -1:
            n = 2 * (shape[d] - 1) if (kind == "c2r" and i == len(dims) - 1) else shape[d]
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
        sizes.append(n)
    return dims, tuple(sizes)


def make_plan(name, shape, dtype, n_or_s=None, dim=None, norm=None):
    """Check torch.fft.<name>'s arguments for an input of this shape and dtype and resolve them.

    ``n_or_s`` is ``n`` for the one-dimensional transforms and ``s`` for the 2/n forms; ``dim`` is their ``dim``
    (``None`` means the default: -1, (-2, -1) or every dim)."""
    kind, inverse, arity = TRANSFORMS[name]
    norm = check_norm(norm)
    if kind == "r2c" and np.dtype(dtype).kind == "c":
        if name in ("rfft", "ihfft"):
            msg = f"{name} expects a real input tensor, but got {torch_dtype_name(dtype)}"
        elif name in ("rfft2", "rfftn"):
            msg = f"rfftn expects a real-valued input tensor, but got {torch_dtype_name(dtype)}"
        else:
            msg = f"Only supports floating-point dtypes, but found: {torch_dtype_name(dtype)}"
        raise RuntimeError(msg)
    if dim is None and arity != "n":
        dim = -1 if arity == 1 else (-2, -1)
    dims, sizes = _dims_and_sizes(tuple(shape), n_or_s, dim, arity, kind, name)
    _, out_dtype = compute_dtypes(dtype, kind)
    in_sizes = tuple(shape[d] for d in dims)
    return Plan(name, kind, inverse, dims, in_sizes, sizes, norm, np.dtype(dtype), out_dtype)
