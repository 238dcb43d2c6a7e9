"""fractional_max_pool2d/3d (Graham, "Fractional Max-Pooling"): max pooling over windows whose starts are
spaced by a non-integer step, drawn once per (image, channel) plane from ``_random_samples`` in [0, 1).

The window starts follow PyTorch's kernel exactly (computed in the input's dtype, then truncated), so passing
the same ``_random_samples`` gives the same output and indices. The output is a gather of the winners from each
flattened plane, so the gradient is the gather's scatter-add, to any order.
"""
import math

import numpy as np

from ... import dtypes as _dt
from ...factories import rand
from ...tensor import Tensor
from ._utils import as_ints


def _intervals(sample, n_in, n_out, pool, dtype):
    """Window starts along one dim for each plane's ``sample`` (N, C) -> (N, C, n_out)."""
    seq = np.empty(sample.shape + (n_out,), np.int64)
    if n_out > 1:
        alpha = dtype.type(n_in - pool) / dtype.type(n_out - 1)
        i = np.arange(n_out - 1).astype(dtype)
        s = sample[..., None].astype(dtype)
        seq[..., :-1] = ((i + s) * alpha).astype(np.int64) - (s * alpha).astype(np.int64)
    if n_out > 0:
        seq[..., -1] = n_in - pool
    return seq


# Which column of _random_samples drives each spatial dim, as in PyTorch's kernels.
_SAMPLE_COLUMN = {2: (1, 0), 3: (0, 1, 2)}


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, n):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:  # a bare number fails len() here, as in PyTorch
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * n
        output_size = [int(input.shape[-n + d] * ratio[d]) for d in range(n)]
    for what, v in (("kernel_size", kernel_size), ("output_size", output_size)):
        if isinstance(v, (list, tuple)) and len(v) not in (1, n):
            raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
    pool = as_ints(kernel_size, n, "kernel_size")
    out = as_ints(output_size, n, "output_size")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    batched = input.dim() == n + 2
    for d in range(1 if batched else 0, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(input.shape)} with dimension {d} being empty.")
    dtype = input._data.dtype
    if dtype.kind != "f":
        raise NotImplementedError(f'"check_uniform_bounds" not implemented for \'{_dt.scalar_name(input.dtype)}\'')
    size = tuple(input.shape[-n:])
    if n == 2:
        checks = (("height", 0), ("width", 1))
        fits = [o + k - 1 <= s for o, k, s in zip(out, pool, size)]
    else:  # PyTorch's 3-D kernel checks time, width, height, each strictly
        checks = (("time", 0), ("width", 2), ("height", 1))
        fits = [o + k - 1 < s for o, k, s in zip(out, pool, size)]
    for word, d in checks:
        if not fits[d]:
            where = f"{name}()" if n == 2 else "fractional_max_pool3d_out()"
            raise RuntimeError(f"{where}: pool {word} {pool[d]} too large relative to input {word} {size[d]}")
    N = input.shape[0] if batched else 1
    C = input.shape[-n - 1]
    if _random_samples is None:
        _random_samples = rand(N, C, n, dtype=input.dtype)
    samples = _check_samples(_random_samples, N, C, n, dtype)
    x = input if batched else input.unsqueeze(0)
    winners = _winners(x._data, samples, size, out, pool, n)
    lead = (N, C)
    values = x.reshape(lead + (math.prod(size),)).gather(-1, Tensor._wrap(winners)).reshape(lead + out)
    indices = Tensor._wrap(winners.reshape(lead + out))
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values


def _check_samples(samples, N, C, n, dtype):
    s = samples._data
    if s.dtype != dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if s.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {s.ndim}")
    if s.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {s.shape[2]}.")
    if s.shape[0] < N:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if s.shape[1] != C:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    return s[:N]


def _winners(x, samples, size, out, pool, n):
    """The winners' flat indices into each plane, (N, C, prod(out)), as PyTorch reports them."""
    N, C = x.shape[:2]
    cols = _SAMPLE_COLUMN[n]
    flat = np.zeros((N, C) + out + pool, np.int64)
    for d in range(n):
        starts = _intervals(samples[..., cols[d]], size[d], out[d], pool[d], x.dtype)
        starts = starts.reshape((N, C) + tuple(out[d] if i == d else 1 for i in range(n)) + (1,) * n)
        offsets = np.arange(pool[d]).reshape((1, 1) + (1,) * n + tuple(pool[d] if i == d else 1 for i in range(n)))
        flat = flat * size[d] + starts + offsets
    flat = flat.reshape(N, C, math.prod(out), math.prod(pool))
    windows = flat.reshape(N, C, math.prod(out) * math.prod(pool))
    vals = np.take_along_axis(x.reshape(N, C, math.prod(size)), windows, -1)
    vals = vals.reshape(flat.shape)
    arg = vals.argmax(-1)
    nan = np.isnan(vals)
    if nan.any():  # PyTorch's scan keeps the last NaN of a window
        last = vals.shape[-1] - 1 - nan[..., ::-1].argmax(-1)
        arg = np.where(nan.any(-1), last, arg)
    return np.take_along_axis(flat, arg[..., None], -1)[..., 0]


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)
