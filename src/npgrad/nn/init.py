"""torch.nn.init: in-place initialisers with PyTorch's distributions, bounds and fan computations.

Values come from npgrad's random generator (``npgrad.manual_seed`` seeds it), so they follow the
same distributions as PyTorch's but are not the same numbers.
"""
import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops.inplace import bump_version
from ..random import rng

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_"]


def _no_elements(tensor):
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def _fill(tensor, values):
    """Write ``values`` into the tensor in place (outside the graph) and return the tensor."""
    with no_grad():
        tensor._data[...] = values
        bump_version(tensor)
    return tensor


# Gains by activation (PyTorch's table); leaky_relu's depends on its slope.
_GAINS = {**dict.fromkeys(["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                           "conv_transpose3d", "sigmoid"], 1),
          "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation (PyTorch's table)."""
    if nonlinearity in _GAINS:
        return _GAINS[nonlinearity]
    if nonlinearity != "leaky_relu":
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")
    if param is None:
        slope = 0.01
    elif isinstance(param, (int, float)) and not isinstance(param, bool):
        slope = param
    else:
        raise ValueError(f"negative_slope {param} not a valid number")
    return math.sqrt(2.0 / (1 + slope ** 2))


def _calculate_fan_in_and_fan_out(tensor):
    # (fan_in, fan_out): input and output channels, each times the receptive field (the dims after the first two).
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    field = math.prod(tensor.shape[2:])
    return tensor.size(1) * field, tensor.size(0) * field


def _fan(tensor, mode):
    mode = mode.lower()
    choices = ["fan_in", "fan_out"]
    if mode not in choices:
        raise ValueError(f"Mode {mode} not supported, please use one of {choices}")
    return _calculate_fan_in_and_fan_out(tensor)[choices.index(mode)]


def _xavier_std(tensor, gain):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / float(fan_in + fan_out))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with values drawn from U(a, b)."""
    if _no_elements(tensor):
        return tensor
    return _fill(tensor, rng(generator).uniform(a, b, tuple(tensor.shape)))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with values drawn from N(mean, std^2)."""
    if _no_elements(tensor):
        return tensor
    return _fill(tensor, mean + std * rng(generator).standard_normal(tuple(tensor.shape)))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) conditioned on [a, b] (by redrawing the values that fall outside)."""
    if _no_elements(tensor):
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    g = rng(generator)
    n = tensor.numel()
    out = mean + std * g.standard_normal(n)
    bad = (out < a) | (out > b)
    tries = 0
    while bad.any() and tries < 100:
        out[bad] = mean + std * g.standard_normal(int(bad.sum()))
        bad = (out < a) | (out > b)
        tries += 1
    if bad.any():  # a window far out in the tail: fall back to uniform inside it
        out[bad] = g.uniform(a, b, int(bad.sum()))
    return _fill(tensor, out.reshape(tuple(tensor.shape)))


def constant_(tensor, val):
    if _no_elements(tensor):
        return tensor
    return _fill(tensor, val)


def ones_(tensor):
    return _fill(tensor, 1)


def zeros_(tensor):
    return _fill(tensor, 0)


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels, in_channels, *spatial = tensor.shape
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    # Channel d of each group passes input channel d through at the kernel's centre.
    d = np.arange(min(per_group, in_channels))
    rows = (np.arange(groups)[:, None] * per_group + d).ravel()
    vals = np.zeros(tuple(tensor.shape))
    vals[(rows, np.tile(d, groups), *(s // 2 for s in spatial))] = 1
    return _fill(tensor, vals)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    a = math.sqrt(3.0) * _xavier_std(tensor, gain)
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    return normal_(tensor, 0.0, _xavier_std(tensor, gain), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan)."""
    if _no_elements(tensor):
        return tensor
    fan, gain = _fan(tensor, mode), calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if _no_elements(tensor):
        return tensor
    fan, gain = _fan(tensor, mode), calculate_gain(nonlinearity, a)
    return normal_(tensor, 0.0, gain / math.sqrt(fan), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one, signs fixed by diag(R)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = rng(generator).standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    g = rng(generator)
    vals = std * g.standard_normal((rows, cols))
    for c in range(cols):
        vals[g.permutation(rows)[:num_zeros], c] = 0
    return _fill(tensor, vals)


def _deprecated(new):
    old = new.__name__[:-1]

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.", FutureWarning,
                      stacklevel=2)
        return new(*args, **kwargs)
    alias.__name__ = old
    return alias


# PyTorch's old names without the trailing underscore, each warning once per call.
for _new in (uniform_, normal_, constant_, xavier_uniform_, xavier_normal_, kaiming_uniform_, kaiming_normal_,
             orthogonal_, dirac_, eye_):
    globals()[_new.__name__[:-1]] = _deprecated(_new)
del _new
