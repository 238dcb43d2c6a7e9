"""max_unpool1d/2d/3d: the partial inverse of a max pool, each value written back at its recorded index.

The output is a zero tensor with the pooled values scattered into each flattened plane; the scatter's
gradient (a gather at the same indices) is the unpooling's, to any order.
"""
import math

import numpy as np

from ... import dtypes as _dt
from ...factories import zeros
from ._utils import as_ints


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return list(output_size)


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    k = as_ints(kernel_size, n, "kernel_size")
    s = k if stride is None else as_ints(stride, n, "stride")
    p = as_ints(padding, n, "padding")
    sizes = [int(v) for v in _unpool_output_size(input, k, s, p, output_size)]
    impl = max(n, 2)  # PyTorch unpools 1-D inputs as images of width 1
    dims = input.dim() + (impl - n)
    if dims not in (impl + 1, impl + 2):
        raise RuntimeError(f"Input to max_unpooling{impl}d should be a {impl + 1}d or {impl + 2}d Tensor, but got a "
                           f"tensor with {dims} dimensions.")
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dt.scalar_name(indices.dtype)}")
    if tuple(indices.shape) != tuple(input.shape):
        shape = lambda t: list(t.shape) + [1] * (impl - n)  # noqa: E731
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({shape(input)}) but "
                           f"got indices tensor with shape: {shape(indices)}")
    volume = math.prod(sizes)
    idx = indices._data
    if idx.size and (idx.min() < 0 or idx.max() >= volume):
        bad = idx[(idx < 0) | (idx >= volume)].flat[0]
        dims = sizes + [1] * (impl - n)
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(v) for v in dims)})")
    lead = tuple(input.shape[:-n])
    out = zeros(lead + (volume,), dtype=input.dtype)
    pooled = lead + (math.prod(input.shape[-n:]),)
    out = out.scatter(-1, indices.reshape(pooled), input.reshape(pooled))
    return out.reshape(lead + tuple(sizes))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
