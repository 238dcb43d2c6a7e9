"""DropBlock (Ghiasi et al., 2018): dropout for convolutional features that zeroes contiguous squares
(cubes) rather than single activations, then rescales what is left so the expected sum is kept.

Block corners are drawn as Bernoulli seeds on the positions where a whole block fits, with the rate
gamma chosen so that about a fraction p of the map is covered; each seed then blanks the block_size-wide
block that starts at it.
"""
import numpy as np

from ... import nn
from ...factories import empty
from ...tensor import Tensor

__all__ = ["drop_block2d", "DropBlock2d", "drop_block3d", "DropBlock3d"]


def _grow_blocks(seeds, block_size, dims):
    """1 where some seed's block (the block_size-wide window starting at the seed) covers the position."""
    out_shape = seeds.shape[:-dims] + tuple(s + block_size - 1 for s in seeds.shape[-dims:])
    covered = np.zeros(out_shape, seeds.dtype)
    # the union of block_size**dims shifted copies of the seeds (a dilation by the block)
    for offset in np.ndindex(*(block_size,) * dims):
        region = (Ellipsis,) + tuple(slice(o, o + s) for o, s in zip(offset, seeds.shape[-dims:]))
        np.maximum(covered[region], seeds, out=covered[region])
    return covered


def _drop_block(input, p, block_size, inplace, eps, training, dims):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.ndim != dims + 2:
        raise ValueError(f"input should be {dims + 2} dimensional. Got {input.ndim} dimensions.")
    if not training or p == 0.0:
        return input
    spatial = tuple(input.shape[-dims:])
    block_size = min([block_size, *spatial[::-1]])
    if block_size % 2 == 0:
        raise ValueError(f"block size should be odd. Got {block_size} which is even.")
    fits = tuple(s - block_size + 1 for s in spatial)
    gamma = p * float(np.prod(spatial)) / (block_size ** dims * float(np.prod(fits)))
    seeds = empty(tuple(input.shape[:2]) + fits, dtype=input.dtype).bernoulli_(gamma)
    keep = 1 - _grow_blocks(np.asarray(seeds._data), block_size, dims)
    scale = keep.size / (eps + keep.sum())
    mask = Tensor._wrap((keep * scale).astype(keep.dtype, copy=False))
    if inplace:
        return input.mul_(mask)
    return input * mask


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock on (N, C, H, W): blocks of block_size x block_size zeroed (block_size odd, at most the
    map's side), the rest scaled by numel / kept."""
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock on (N, C, D, H, W) with cubic blocks."""
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(nn.Module):
    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        self.p = p
        self.block_size = block_size
        self.inplace = inplace
        self.eps = eps

    def forward(self, input):
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps, self.training)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, block_size={self.block_size}, inplace={self.inplace})"


class DropBlock3d(DropBlock2d):
    def forward(self, input):
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps, self.training)
