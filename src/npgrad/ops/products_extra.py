"""The less common products and matrix statistics: addbmm/addmv/addr (with their in-place forms),
chain_matmul, dist, nuclear_norm, frobenius_norm, cov and corrcoef.

Each is composed from differentiable operators (matmul, sums, the vector norm, the SVD), so gradients and
second-order gradients come from those; what is written here is PyTorch's argument checking and messages.
A lazily loaded family: most programs never call these.
"""
import warnings

import numpy as np

from . import _deprecated
from .. import dtypes as _dt
from ..tensor import Tensor
from ._registry import op
from .products import _check_bias, _scaled_sum, matmul


def _dtname(t):
    return _dt.scalar_name(t._data.dtype)


# -- addbmm / addmv / addr ---------------------------------------------------------------------------------------------

@op(inplace="generic")
def addbmm(input, batch1, batch2, *deprecated, beta=1, alpha=1):
    if deprecated:  # PyTorch's deprecated beta-first orders
        if not (type(beta) is int and beta == 1 and type(alpha) is int and alpha == 1):
            raise TypeError("addbmm() received an invalid combination of arguments")
        input, batch1, batch2, beta, alpha = _deprecated.beta_first("addbmm", input, batch1, batch2, deprecated)
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]."""
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) == 3 and len(s2) == 3:
        if s1[0] != s2[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {s1[0]} and {s2[0]}")
        if s1[2] != s2[1]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and {s2[1]}x{s2[2]})")
    else:
        raise RuntimeError("batch1 must be a 3D tensor" if len(s1) != 3 else "batch2 must be a 3D tensor")
    if batch1._data.dtype != batch2._data.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtname(batch1)} and {_dtname(batch2)}")
    if input._data.dtype != batch1._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_dtname(input)} and {_dtname(batch2)}")
    _check_bias(input._data.shape, (s1[1], s2[2]))
    return _scaled_sum(matmul(batch1, batch2).sum(0), input, beta, alpha)


@op(inplace="generic")
def addmv(input, mat, vec, *deprecated, beta=1, alpha=1):
    if deprecated:  # PyTorch's deprecated beta-first orders
        if not (type(beta) is int and beta == 1 and type(alpha) is int and alpha == 1):
            raise TypeError("addmv() received an invalid combination of arguments")
        input, mat, vec, beta, alpha = _deprecated.beta_first("addmv", input, mat, vec, deprecated)
    """beta * input + alpha * mat @ vec."""
    nd = (input._data.ndim, mat._data.ndim, vec._data.ndim)
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {nd[0]}, {nd[1]}, {nd[2]}")
    (m, k), n = mat._data.shape, vec._data.shape[0]
    if k != n or (input._data.ndim == 1 and input._data.shape[0] not in (1, m)):
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}), "
                           f"mat ({m}x{k}), vec ({n})")
    dts = (input._data.dtype, mat._data.dtype, vec._data.dtype)
    if len(set(dts)) > 1:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{_dtname(input)}, {_dtname(mat)}, and {_dtname(vec)}")
    return _scaled_sum(matmul(mat, vec), input, beta, alpha)


@op(inplace="generic")
def addr(input, vec1, vec2, *deprecated, beta=1, alpha=1):
    if deprecated:  # PyTorch's deprecated beta-first orders
        if not (type(beta) is int and beta == 1 and type(alpha) is int and alpha == 1):
            raise TypeError("addr() received an invalid combination of arguments")
        input, vec1, vec2, beta, alpha = _deprecated.beta_first("addr", input, vec1, vec2, deprecated)
    """beta * input + alpha * outer(vec1, vec2), with type promotion (as PyTorch's composite addr)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    kinds = {input._data.dtype.kind, vec1._data.dtype.kind, vec2._data.dtype.kind}
    if not kinds & {"f", "c"} and (isinstance(beta, float) or isinstance(alpha, float)):
        which = "beta" if isinstance(beta, float) else "alpha"
        raise RuntimeError(f"For integral input tensors, argument {which} must not be a floating point number.")
    _check_bias(input._data.shape, (vec1._data.shape[0], vec2._data.shape[0]))
    prod = vec1.unsqueeze(1) * vec2.unsqueeze(0)
    if "b" in kinds and len(kinds) == 1:  # bool: beta and alpha act as logical switches
        prod = prod if alpha else prod & False
        return prod | input if beta else prod.expand(tuple(np.broadcast_shapes(prod.shape, input.shape)))
    return _scaled_sum(prod, input, beta, alpha)


# -- chains and norms --------------------------------------------------------------------------------------------------

@op(methods=())
def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return _out(matrices[0].clone(), out)
    from .. import linalg
    return _out(linalg.multi_dot(list(matrices)), out)


@op()
def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), over all elements."""
    from .reduce import Norm
    for t in (input, other):
        if t._data.dtype.kind not in "fc" and t._data.dtype not in _dt.LOW_PRECISION_NP:
            raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                               f"{_dtname(t)} instead.")
    diff = input - other
    if diff._data.dtype.kind == "c":
        diff = diff.abs()  # the norm of complex differences is their moduli's: real
    return Norm.apply(diff, float(p), tuple(range(diff._data.ndim)), False)


@op(methods=())
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """torch.nuclear_norm(input, keepdim=False) or torch.nuclear_norm(input, dim, keepdim=False)."""
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    from .. import linalg
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim, out=out)


@op(methods=())
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    from .. import linalg
    return linalg.vector_norm(input, 2.0, dims, keepdim, out=out)


def _out(result, out):
    if out is None:
        return result
    out.copy_(result)
    return out


# -- cov / corrcoef ----------------------------------------------------------------------------------------------------

def _check_weights(name, w, n_obs, integral):
    if w._data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w._data.ndim} dimensions")
    if w._data.size != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w._data.size} != {n_obs}")
    kind_ok = w._data.dtype.kind in "iu" if integral else w._data.dtype.kind == "f"
    if not kind_ok:
        want = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {want} dtype but got {name} with {_dtname(w)} dtype")
    if (w._data < 0).any():
        raise RuntimeError(f"cov(): {name} cannot be negative")


@op()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows of ``input`` (variables) over its columns (observations), as PyTorch's."""
    if input._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    x = input if input._data.ndim == 2 else input.reshape(1, -1)
    if x._data.dtype.kind not in "fc":
        x = x._cast(_dt.get_default_dtype())
    if aweights is not None and aweights._data.dtype.kind == "f":  # a wider aweights widens the result (as PyTorch)
        x = x._cast(_dt.from_numpy_dtype(np.promote_types(x._data.dtype, aweights._data.dtype)))
    n_obs = x._data.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, n_obs, True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n_obs, False)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = n_obs
        avg = x.mean(1)
        norm = w_sum - correction
    else:
        xdt = _dt.from_numpy_dtype(x._data.dtype)
        w = w._cast(xdt)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is not None and correction != 0:
            norm = w_sum - correction * (w * aweights._cast(xdt)).sum() / w_sum
        else:
            norm = w_sum - correction
    if float(norm._data if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm * 0 if isinstance(norm, Tensor) else 0
    xc = x - avg.unsqueeze(1)
    c = xc @ (xc * w if w is not None else xc).mH
    if isinstance(norm, Tensor):
        c = c / norm
    else:
        c = c / Tensor._wrap(np.asarray(norm, c._data.dtype))
    return c.squeeze()


@op()
def corrcoef(input):
    if input._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c._data.dtype.kind == "c":  # PyTorch clips the real and imaginary parts separately
        from .complex_math import complex as _complex
        return _complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)
