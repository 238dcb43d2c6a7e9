"""feature_alpha_dropout: alpha dropout (SELU-preserving: dropped values go to SELU's negative saturation and
the result is rescaled to keep mean and variance) with one keep/drop draw per (sample, channel)."""
import numpy as np

from ...random import rng
from ...tensor import Tensor
from .dropout import _check_p

_ALPHA = 1.7580993408473766  # -SELU's negative saturation value, -scale * alpha


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    dt = input._data.dtype
    if p == 1.0:
        zero = Tensor._wrap(np.zeros((), dt))
        return input.mul_(zero) if inplace else input * zero
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = rng().random(shape) >= p
    a = 1.0 / np.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    mult = Tensor._wrap((keep * a).astype(dt))
    add = Tensor._wrap(((keep.astype(np.float64) - 1) * (_ALPHA * a) + _ALPHA * a * p).astype(dt))
    if inplace:
        return input.mul_(mult).add_(add)
    return input * mult + add
