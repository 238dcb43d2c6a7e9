"""Gradient clipping: clip_grad_norm_ (any p-norm, inf included) and clip_grad_value_, in place on .grad."""
import math
import warnings

import numpy as np

from ..._fp_quiet import quiet
from ...ops.inplace import bump_version
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@quiet  # an overflowing norm is inf (clip_grad_norm_'s error_if_nonfinite reports it), silently
def _vector_norm(a, norm_type):
    if norm_type == math.inf:
        return np.max(np.abs(a)) if a.size else np.asarray(0, a.dtype)
    if norm_type == -math.inf:
        return np.min(np.abs(a))
    if norm_type == 2:
        flat = a.reshape(-1)
        return np.sqrt(np.dot(flat, flat))
    if norm_type == 1:
        return np.sum(np.abs(a))
    if norm_type == 0:
        return np.asarray(np.count_nonzero(a), a.dtype)
    return np.sum(np.abs(a) ** norm_type) ** (1.0 / norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the per-tensor norms (the norm of all values together)."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    norms = np.array([_vector_norm(t._data, norm_type) for t in tensors])
    dt = np.result_type(*[t._data.dtype for t in tensors])
    total = np.asarray(_vector_norm(norms, norm_type), dt)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return Tensor._wrap(total)


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    grads = _grads(parameters)
    if not grads:
        return
    coef = min(float(max_norm) / (float(total_norm) + 1e-6), 1.0)
    for g in grads:
        d = g._data
        np.multiply(d, np.asarray(coef, d.dtype), out=d)
        bump_version(g)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients together so their total ``norm_type``-norm is at most ``max_norm``.

    Returns the total norm before clipping (a 0-d tensor)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)
    grads = _grads(parameters)
    if not grads:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        d = g._data
        np.clip(d, -clip_value, clip_value, out=d)
        bump_version(g)
