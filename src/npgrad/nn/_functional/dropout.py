"""Dropout: one random mask, scaled by 1/(1-p), multiplied in (a single Mul node in the graph)."""
import numpy as np

from ...random import rng
from ...tensor import Tensor


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _mask(shape, p, dtype):
    keep = rng().random(shape, dtype=dtype if dtype in (np.float32, np.float64) else np.float64) >= p
    scale = np.asarray(1.0 / (1.0 - p), dtype)
    return np.multiply(keep, scale, dtype=dtype)


def _apply_mask(input, mask_shape, p, inplace):
    dt = input._data.dtype
    if p == 1.0:
        mask = np.zeros(mask_shape, dt)
    else:
        mask = _mask(mask_shape, p, dt)
    m = Tensor._wrap(mask)
    return input.mul_(m) if inplace else input * m


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1-p) (identity when not training)."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _apply_mask(input, input.shape, p, inplace)


_SPATIAL_WORDS = {1: "1 spatial dimension", 2: "2 spatial dimensions", 3: "3 spatial dimensions"}


def _feature_dropout(input, p, training, inplace, n_spatial, name):
    # PyTorch checks the rank before looking at ``training``: a wrong rank warns (errors for dropout1d) in
    # evaluation mode too
    _check_p(p)
    nd = input.dim()
    batched = nd == n_spatial + 2
    if nd not in (n_spatial + 1, n_spatial + 2):
        note = (f"Note that {name} exists to provide channel-wise dropout on inputs with {_SPATIAL_WORDS[n_spatial]}, "
                f"a channel dimension, and an optional batch dimension (i.e. {n_spatial + 1}D or {n_spatial + 2}D "
                "inputs).")
        if n_spatial == 1:
            raise RuntimeError(f"{name}: Expected 2D or 3D input, but received a {nd}D input. {note}")
        import warnings
        warnings.warn(f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error "
                      f"in a future release. To retain the behavior and silence this warning, please use dropout "
                      f"instead. {note}", stacklevel=3)
        batched = True
    if not training or p == 0.0:
        return input
    shape = tuple(input.shape)
    lead = 2 if batched else 1
    mask_shape = shape[:lead] + (1,) * (nd - lead)
    return _apply_mask(input, mask_shape, p, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() == 3:
        import warnings
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
        return _feature_dropout(input, p, training, inplace, 1, "dropout2d")
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d")


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0
    alpha = -1.7580993408473766
    dt = input._data.dtype
    keep = rng().random(tuple(input.shape)) >= p
    a = (1.0 / np.sqrt((alpha * alpha * p + 1) * (1 - p)))
    b = -a * alpha * p
    mult = Tensor._wrap((keep * a).astype(dt))
    add = Tensor._wrap(((~keep) * (a * alpha) + b).astype(dt))
    return input * mult + add
