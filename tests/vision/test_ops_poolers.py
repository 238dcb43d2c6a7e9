"""MultiScaleRoIAlign (boxes pooled from the pyramid level their size picks) and DropBlock.

torchvision's MultiScaleRoIAlign runs with its roi_align swapped for the eager Python one (it would
otherwise torch.compile itself); the level assignment is also checked by hand. DropBlock draws from
npgrad's generator, so it is checked by structure and statistics, and torchvision by its errors and repr.
"""
import collections
import importlib

import numpy as np
import pytest

import npgrad
from npgrad.vision import ops
from tv_oracle import HAS_TV, torch, tv


def T(a, **kw):
    return npgrad.tensor(np.asarray(a), **kw)


def pyramid(rng, n=2, c=3, size=64):
    return collections.OrderedDict((f"p{lvl}", rng.standard_normal((n, c, size >> lvl, size >> lvl)))
                                   for lvl in (2, 3, 4, 5))


def image_boxes(rng, k, size=64):
    xy = rng.uniform(0, size * 0.6, (k, 2))
    wh = np.exp(rng.uniform(np.log(2), np.log(size * 0.4), (k, 2)))
    return np.concatenate([xy, np.minimum(xy + wh, size)], 1)


def test_level_mapper_by_hand():
    mapper = importlib.import_module("npgrad.vision.ops.poolers").initLevelMapper(2, 5)
    # sqrt(area) 224 -> level 4 (index 2), 112 -> 3, 448 -> 5, 10 -> clamped to 2, 2000 -> clamped to 5
    sides = [224, 112, 448, 10, 2000, 223.9]
    boxes = [T(np.array([[0, 0, s, s] for s in sides], np.float32))]
    assert mapper(boxes).tolist() == [2, 1, 3, 0, 3, 1]


@pytest.mark.parametrize("names, out, sr", [(["p2", "p3", "p4", "p5"], 3, 2), (["p3", "p5"], (2, 4), -1),
                                            (["p4"], 2, 2)])
def test_multiscale_roi_align(names, out, sr, monkeypatch):
    rng = np.random.default_rng(len(names))
    feats = pyramid(rng, size=512)
    boxes = [image_boxes(rng, 9, 512), image_boxes(rng, 5, 512)]
    shapes = [(512, 512), (500, 480)]
    pool = ops.MultiScaleRoIAlign(names, out, sr)
    nin = collections.OrderedDict((k, T(v, requires_grad=True)) for k, v in feats.items())
    got = pool(nin, [T(b) for b in boxes], shapes)
    assert got.shape == (14, 3, *pool.output_size)
    assert pool.scales == [2.0 ** -int(n[1]) for n in names]
    # each box from the level its size picks, at that level's scale
    levels = np.clip(np.floor(4 + np.log2(np.sqrt(np.concatenate([(b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
                                                                      for b in boxes])) / 224) + 1e-6),
                     int(names[0][1]), int(names[-1][1])).astype(int)
    rows = np.concatenate([np.concatenate([np.full((len(b), 1), i), b], 1) for i, b in enumerate(boxes)])
    for j, lvl in enumerate(levels):
        ref = ops.roi_align(T(feats[f"p{lvl}"]), T(rows[j:j + 1]), out, 2.0 ** -lvl, sr)
        np.testing.assert_allclose(got[j].detach().numpy(), ref[0].numpy(), rtol=1e-12)
    got.sum().backward()
    used = {f"p{lvl}" for lvl in levels}
    assert all((nin[k].grad is not None and np.abs(nin[k].grad.numpy()).sum() > 0) == (k in used) or
               (nin[k].grad is None and k not in used) for k in feats)
    if HAS_TV:
        poolers = importlib.import_module("torchvision.ops.poolers")
        eager = importlib.import_module("torchvision.ops.roi_align")._roi_align.__wrapped__

        def roi_align_eager(x, rois, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
            size = (output_size, output_size) if isinstance(output_size, int) else output_size
            return eager(x, rois, spatial_scale, size[0], size[1], sampling_ratio, aligned)

        monkeypatch.setattr(poolers, "roi_align", roi_align_eager)
        ref = tv.ops.MultiScaleRoIAlign(names, out, sr)
        assert repr(ref) == repr(pool)
        want = ref(collections.OrderedDict((k, torch.tensor(v)) for k, v in feats.items()),
                   [torch.tensor(b) for b in boxes], shapes)
        np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
        assert ref.scales == pool.scales


# -- DropBlock ------------------------------------------------------------------------------------------------------

def blocks_of(zero, bs):
    """Whether every zero lies in some all-zero block (side bs) inside the map (2-D or 3-D)."""
    covered = np.zeros_like(zero)
    for corner in np.ndindex(*(s - bs + 1 for s in zero.shape)):
        region = tuple(slice(i, i + bs) for i in corner)
        if zero[region].all():
            covered[region] = True
    return np.array_equal(covered, zero)


def test_drop_block2d_structure_and_statistics():
    npgrad.manual_seed(0)
    x = T(np.ones((8, 4, 20, 20), np.float32), requires_grad=True)
    out = ops.drop_block2d(x, 0.1, 5)
    o = out.detach().numpy()
    zero = o == 0
    assert all(blocks_of(zero[n, c], 5) for n in range(2) for c in range(4))
    kept = (~zero).sum()
    np.testing.assert_allclose(o[~zero], o.size / (1e-6 + kept), rtol=1e-5)  # one rescale for the whole batch
    # gamma makes the seeds cover about p of the map (less where blocks overlap)
    assert 0.06 < zero.mean() < 0.11
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), o)
    assert ops.drop_block2d(x, 0.5, 3, training=False) is x
    assert ops.drop_block2d(x, 0.0, 3) is x
    m = ops.DropBlock2d(0.3, 3)
    m.eval()
    assert m(x) is x
    assert repr(m) == "DropBlock2d(p=0.3, block_size=3, inplace=False)"
    small = ops.drop_block2d(T(np.ones((1, 1, 3, 8), np.float32)), 0.5, 4)  # the block shrinks to the map: 3
    assert small.shape == (1, 1, 3, 8)


def test_drop_block3d_and_inplace():
    npgrad.manual_seed(1)
    x = T(np.ones((4, 2, 9, 9, 9), np.float32))
    out = ops.drop_block3d(x, 0.2, 3)
    zero = out.numpy() == 0
    assert 0.1 < zero.mean() < 0.25
    assert all(blocks_of(zero[n, c], 3) for n in range(2) for c in range(2))  # zeros come as whole cubes
    y = T(np.ones((2, 1, 6, 6), np.float32))
    r = ops.drop_block2d(y, 0.4, 3, inplace=True)
    assert r is y
    assert repr(ops.DropBlock3d(0.2, 5, True)) == "DropBlock3d(p=0.2, block_size=5, inplace=True)"


@pytest.mark.parametrize("fn, shape, args, msg", [
    ("drop_block2d", (1, 1, 5, 5), (1.5, 3), "drop probability has to be between 0 and 1, but got 1.5."),
    ("drop_block2d", (1, 5, 5), (0.5, 3), "input should be 4 dimensional. Got 3 dimensions."),
    ("drop_block2d", (1, 1, 5, 5), (0.5, 4), "block size should be odd. Got 4 which is even."),
    ("drop_block3d", (1, 1, 5, 5), (0.5, 3), "input should be 5 dimensional. Got 4 dimensions."),
])
def test_drop_block_errors(fn, shape, args, msg):
    with pytest.raises(ValueError, match=msg.replace(".", "\\.")):
        getattr(ops, fn)(T(np.zeros(shape, np.float32)), *args)
    if HAS_TV:
        with pytest.raises(ValueError, match=msg.replace(".", "\\.")):
            getattr(tv.ops, fn)(torch.zeros(shape), *args)
