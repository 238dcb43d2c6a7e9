"""roi_align and roi_pool (functional and modules), forward and backward.

torchvision's compiled RoI kernels do not load on the CPU torch wheel, so the references here are direct
loops over the documented definitions: for roi_align, per bin the average of bilinear samples on a
sampling_ratio grid (a sample more than a pixel outside the map reads 0; aligned=True shifts by half a
pixel); for roi_pool, the maximum over each bin of whole pixels after rounding the box. torchvision's pure
Python roi_align (the fallback it uses without its C++ ops) is compared too, on boxes inside the map: it
omits the kernel's zero for samples beyond the border. Gradients are checked by float64 finite differences.
"""
import math

import numpy as np
import pytest

import npgrad
from npgrad.autograd import gradcheck, gradgradcheck
from npgrad.vision import ops
from tv_oracle import HAS_TV, torch, tv


def T(a, **kw):
    return npgrad.tensor(np.asarray(a), **kw)


def bilinear(img, y, x):
    h, w = img.shape[-2:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[:-2])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[..., y0, x0] + (1 - ly) * lx * img[..., y0, x1]
            + ly * (1 - lx) * img[..., y1, x0] + ly * lx * img[..., y1, x1])


def ref_roi_align(x, rois, out, scale, sampling_ratio, aligned):
    n_ph, n_pw = out
    res = np.zeros((len(rois), x.shape[1], n_ph, n_pw))
    shift = 0.5 if aligned else 0.0
    for k, r in enumerate(rois):
        img = x[int(r[0])]
        x1, y1, x2, y2 = (v * scale - shift for v in r[1:])
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / n_ph, rw / n_pw
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / n_ph)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / n_pw)
        for ph in range(n_ph):
            for pw in range(n_pw):
                acc = np.zeros(x.shape[1])
                for iy in range(gh):
                    for ix in range(gw):
                        acc += bilinear(img, y1 + ph * bh + (iy + 0.5) * bh / gh, x1 + pw * bw + (ix + 0.5) * bw / gw)
                res[k, :, ph, pw] = acc / max(gh * gw, 1)
    return res


def ref_roi_pool(x, rois, out, scale):
    n_ph, n_pw = out
    h, w = x.shape[-2:]
    res = np.zeros((len(rois), x.shape[1], n_ph, n_pw))
    where = np.full(res.shape, -1)
    rnd = lambda v: int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)  # C's round: half away from zero
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (rnd(v * scale) for v in r[1:])
        bh, bw = max(y2 - y1 + 1, 1) / n_ph, max(x2 - x1 + 1, 1) / n_pw
        for ph in range(n_ph):
            hs = min(max(math.floor(ph * bh) + y1, 0), h)
            he = min(max(math.ceil((ph + 1) * bh) + y1, 0), h)
            for pw in range(n_pw):
                ws = min(max(math.floor(pw * bw) + x1, 0), w)
                we = min(max(math.ceil((pw + 1) * bw) + x1, 0), w)
                for c in range(x.shape[1]):
                    if he <= hs or we <= ws:
                        continue
                    patch = x[int(r[0]), c, hs:he, ws:we]
                    i = int(np.argmax(patch))  # first maximum in row-major order
                    res[k, c, ph, pw] = patch.flat[i]
                    where[k, c, ph, pw] = (hs + i // (we - ws)) * w + ws + i % (we - ws)
    return res, where


def random_rois(rng, k, n, h, w, inside=False):
    if inside:
        xy = rng.uniform(0, [w - 2, h - 2], (k, 2))
        wh = rng.uniform(0.2, 1, (k, 2)) * ([w - 1, h - 1] - xy)
    else:  # partly outside, some degenerate (x2 < x1)
        xy = rng.uniform(-3, [w + 1, h + 1], (k, 2))
        wh = rng.uniform(-1, [w * 0.8, h * 0.8], (k, 2))
    return np.concatenate([rng.integers(0, n, (k, 1)), xy, xy + wh], 1)


ALIGN_CASES = [((2, 2), 1.0, -1, False), ((3, 4), 0.5, -1, True), ((1, 1), 1.0, 2, False),
               ((3, 2), 0.7, 2, True), ((4, 3), 2.0, 1, False), ((2, 5), 0.25, 3, True)]


@pytest.mark.parametrize("out, scale, sr, aligned", ALIGN_CASES)
def test_roi_align_matches_definition(out, scale, sr, aligned):
    rng = np.random.default_rng(hash((out, sr)) % 1000)
    x = rng.standard_normal((2, 3, 9, 11))
    rois = random_rois(rng, 12, 2, 9 / scale, 11 / scale)
    got = ops.roi_align(T(x), T(rois), out, scale, sr, aligned)
    assert got.shape == (12, 3, *out) and got.dtype == npgrad.float64
    np.testing.assert_allclose(got.numpy(), ref_roi_align(x, rois, out, scale, sr, aligned), rtol=1e-12, atol=1e-12)


def tv_roi_align_eager(x, rois, ph, pw, scale, sr, aligned):
    """torchvision's Python roi_align without the torch.compile it wraps itself in (a C++ build per call
    shape, tens of seconds)."""
    import importlib
    fallback = importlib.import_module("torchvision.ops.roi_align")._roi_align
    return fallback.__wrapped__(x, rois, scale, ph, pw, sr, aligned)


@pytest.mark.skipif(not HAS_TV, reason="torchvision (the oracle) is not installed")
@pytest.mark.parametrize("out, scale, sr, aligned", ALIGN_CASES[:4])
def test_roi_align_matches_torchvision_inside_the_map(out, scale, sr, aligned):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 9, 11))
    rois = random_rois(rng, 10, 2, 9 / scale, 11 / scale, inside=True)
    xt = torch.tensor(x, requires_grad=True)
    xn = T(x, requires_grad=True)
    want = tv_roi_align_eager(xt, torch.tensor(rois), *out, scale, sr, aligned)
    got = ops.roi_align(xn, T(rois), out, scale, sr, aligned)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(want.shape)
    want.backward(torch.tensor(g))
    got.backward(T(g))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_roi_align_linear_image_samples_bin_centres():
    # bilinear interpolation is exact on a plane, so a bin's average is the plane at the bin's centre
    yy, xx = np.mgrid[0:8, 0:10].astype(np.float64)
    x = (2 * yy + 3 * xx)[None, None]
    got = ops.roi_align(T(x), [T(np.array([[1.0, 2.0, 7.0, 6.0]]))], (2, 5), 1.0, 2).numpy()[0, 0]
    cy = 2 + (np.arange(2) + 0.5) * 2
    cx = 1 + (np.arange(5) + 0.5) * 1.2
    np.testing.assert_allclose(got, 2 * cy[:, None] + 3 * cx[None, :], rtol=1e-12)
    # aligned=True reads the same box half a pixel up and left
    got = ops.roi_align(T(x), [T(np.array([[1.0, 2.0, 7.0, 6.0]]))], (2, 5), 1.0, 2, aligned=True).numpy()[0, 0]
    np.testing.assert_allclose(got, 2 * (cy[:, None] - 0.5) + 3 * (cx[None, :] - 0.5), rtol=1e-12)


@pytest.mark.parametrize("sr, aligned", [(-1, False), (2, True)])
def test_roi_align_gradcheck(sr, aligned):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 5, 6))
    rois = T(random_rois(rng, 4, 2, 5, 6))
    f = lambda t: ops.roi_align(t, rois, (2, 3), 0.8, sr, aligned)
    assert gradcheck(f, (T(x, requires_grad=True),))
    assert gradgradcheck(f, (T(x, requires_grad=True),))


def test_roi_align_list_boxes_dtypes_and_empty():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    per_image = [np.array([[0.5, 1, 4, 5]], np.float32), np.array([[1, 1, 3, 2], [0, 0, 5, 5]], np.float32)]
    rows = np.array([[0, 0.5, 1, 4, 5], [1, 1, 1, 3, 2], [1, 0, 0, 5, 5]], np.float32)
    a = ops.roi_align(T(x), [T(b) for b in per_image], 3, 1.0, 2)
    b = ops.roi_align(T(x), T(rows), (3, 3), 1.0, 2)
    assert a.dtype == npgrad.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(a.numpy(), ref_roi_align(x.astype(np.float64), rows, (3, 3), 1.0, 2, False), rtol=1e-5,
                               atol=1e-6)
    half = ops.roi_align(T(x).half(), T(rows), 3, 1.0, 2)
    assert half.dtype == npgrad.float16
    np.testing.assert_allclose(half.numpy().astype(np.float32), a.numpy(), atol=1e-2)
    empty = ops.roi_align(T(x, requires_grad=True), T(np.zeros((0, 5), np.float32)), 2)
    assert empty.shape == (0, 3, 2, 2)
    empty.sum().backward()


@pytest.mark.parametrize("boxes, msg", [
    (np.zeros((3, 4)), "The boxes tensor shape is not correct as Tensor\\[K, 5\\]"),
    ([np.zeros((3, 5))], "The shape of the tensor in the boxes list is not correct as List\\[Tensor\\[L, 4\\]\\]"),
    (5, "boxes is expected to be a Tensor\\[L, 5\\] or a List\\[Tensor\\[K, 4\\]\\]"),
])
@pytest.mark.parametrize("fn", [ops.roi_align, ops.roi_pool])
def test_roi_box_format_errors(fn, boxes, msg):
    boxes = [T(b) for b in boxes] if isinstance(boxes, list) else T(boxes) if isinstance(boxes, np.ndarray) else boxes
    with pytest.raises(AssertionError, match=msg):
        fn(T(np.zeros((1, 1, 4, 4))), boxes, 2)
    if HAS_TV and fn is ops.roi_align:
        tb = [torch.tensor(b.numpy()) for b in boxes] if isinstance(boxes, list) else \
            torch.tensor(boxes.numpy()) if isinstance(boxes, npgrad.Tensor) else boxes
        with pytest.raises(AssertionError, match=msg):
            tv.ops.roi_align(torch.zeros(1, 1, 4, 4), tb, 2)


@pytest.mark.parametrize("fn", [ops.roi_align, ops.roi_pool])
def test_roi_input_errors(fn):
    with pytest.raises(ValueError, match="expects input of shape"):
        fn(T(np.zeros((1, 4, 4))), T(np.zeros((1, 5))), 2)
    with pytest.raises(IndexError, match="batch indices"):
        fn(T(np.zeros((1, 1, 4, 4))), T(np.array([[1.0, 0, 0, 2, 2]])), 2)
    with pytest.raises(RuntimeError, match="not implemented"):
        fn(T(np.zeros((1, 1, 4, 4), np.int64)), T(np.zeros((1, 5))), 2)


@pytest.mark.parametrize("out, scale", [((2, 2), 1.0), ((3, 4), 0.5), ((1, 1), 1.0), ((4, 3), 0.3)])
def test_roi_pool_matches_definition_with_gradient(out, scale):
    rng = np.random.default_rng(int(scale * 10))
    x = rng.standard_normal((2, 3, 9, 11))
    x[0, 0, 2:5, 2:5] = 0.5  # ties: the first maximum in row-major order wins
    rois = random_rois(rng, 12, 2, 9 / scale, 11 / scale)
    rois[0] = [0, 2 / scale, 2 / scale, 4 / scale, 4 / scale]
    want, where = ref_roi_pool(x, rois, out, scale)
    xn = T(x, requires_grad=True)
    got = ops.roi_pool(xn, T(rois), out, scale)
    np.testing.assert_array_equal(got.detach().numpy(), want)
    g = rng.standard_normal(want.shape)
    got.backward(T(g))
    grad = np.zeros(x.size)
    n, c, h, w = x.shape
    flat = (rois[:, 0].astype(int)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * h * w + where
    np.add.at(grad, flat[where >= 0], g[where >= 0])
    np.testing.assert_allclose(xn.grad.numpy().ravel(), grad, rtol=1e-12)


def test_roi_pool_hand_case_and_modules():
    x = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)
    # box (1, 1)-(4, 4) rounds to 4x4 pixels; 2x2 bins of 2x2 pixels: each bin's maximum is its last pixel
    got = ops.RoIPool((2, 2), 1.0)(T(x), T(np.array([[0, 1.2, 0.6, 4.4, 4.0]], np.float32)))
    np.testing.assert_array_equal(got.numpy()[0, 0], [[14, 16], [26, 28]])
    assert repr(ops.RoIPool(2, 0.5)) == "RoIPool(output_size=2, spatial_scale=0.5)"
    assert repr(ops.RoIAlign((3, 2), 1.0, -1, True)) == \
        "RoIAlign(output_size=(3, 2), spatial_scale=1.0, sampling_ratio=-1, aligned=True)"
    m = ops.RoIAlign(2, 0.5, 2)
    rows = T(np.array([[0, 2, 2, 8, 8]], np.float32))
    np.testing.assert_array_equal(m(T(x), rows).numpy(), ops.roi_align(T(x), rows, 2, 0.5, 2).numpy())
    if HAS_TV:
        assert repr(tv.ops.RoIAlign((3, 2), 1.0, -1, True)) == repr(ops.RoIAlign((3, 2), 1.0, -1, True))
        assert repr(tv.ops.RoIPool(2, 0.5)) == repr(ops.RoIPool(2, 0.5))


def test_roi_pool_gradcheck_and_empty_bins():
    rng = np.random.default_rng(5)
    x = rng.permutation(2 * 2 * 6 * 7).reshape(2, 2, 6, 7).astype(np.float64)  # distinct: no ties to perturb
    rois = T(random_rois(rng, 5, 2, 6, 7))
    f = lambda t: ops.roi_pool(t, rois, (3, 2), 1.0)
    assert gradcheck(f, (T(x, requires_grad=True),), eps=1e-3)
    assert gradgradcheck(f, (T(x, requires_grad=True),), eps=1e-3)
    # a box entirely outside the map: every bin is empty and reads 0
    out = ops.roi_pool(T(x), T(np.array([[0, 20.0, 20, 30, 30]])), 2)
    np.testing.assert_array_equal(out.numpy(), 0)


# -- position-sensitive RoI pooling ---------------------------------------------------------------------------------

def ref_ps_roi_align(x, rois, out, scale, sampling_ratio):
    n_ph, n_pw = out
    c_out = x.shape[1] // (n_ph * n_pw)
    res = np.zeros((len(rois), c_out, n_ph, n_pw))
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (v * scale - 0.5 for v in r[1:])
        bh, bw = (y2 - y1) / n_ph, (x2 - x1) / n_pw
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil((y2 - y1) / n_ph)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil((x2 - x1) / n_pw)
        for c, ph, pw in np.ndindex(c_out, n_ph, n_pw):
            img = x[int(r[0]), (c * n_ph + ph) * n_pw + pw]
            total = sum(bilinear(img, y1 + ph * bh + (iy + 0.5) * bh / gh, x1 + pw * bw + (ix + 0.5) * bw / gw)
                        for iy in range(gh) for ix in range(gw))
            res[k, c, ph, pw] = total / max(gh * gw, 1)
    return res


def ref_ps_roi_pool(x, rois, out, scale):
    n_ph, n_pw = out
    h, w = x.shape[-2:]
    c_out = x.shape[1] // (n_ph * n_pw)
    res = np.zeros((len(rois), c_out, n_ph, n_pw))
    rnd = lambda v: int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (rnd(v * scale) for v in r[1:])
        bh, bw = max(y2 - y1, 1) / n_ph, max(x2 - x1, 1) / n_pw
        for c, ph, pw in np.ndindex(c_out, n_ph, n_pw):
            hs, he = (min(max(v + y1, 0), h) for v in (math.floor(ph * bh), math.ceil((ph + 1) * bh)))
            ws, we = (min(max(v + x1, 0), w) for v in (math.floor(pw * bw), math.ceil((pw + 1) * bw)))
            if he > hs and we > ws:
                res[k, c, ph, pw] = x[int(r[0]), (c * n_ph + ph) * n_pw + pw, hs:he, ws:we].mean()
    return res


@pytest.mark.parametrize("out, scale, sr", [((2, 2), 1.0, -1), ((3, 2), 0.5, 2), ((1, 1), 1.0, 1)])
def test_ps_roi_align_and_pool_match_definition(out, scale, sr):
    rng = np.random.default_rng(8)
    c_in = 2 * out[0] * out[1]
    x = rng.standard_normal((2, c_in, 8, 9))
    rois = random_rois(rng, 7, 2, 8 / scale, 9 / scale, inside=True)
    got = ops.ps_roi_align(T(x), T(rois), out, scale, sr)
    assert got.shape == (7, 2, *out)
    np.testing.assert_allclose(got.numpy(), ref_ps_roi_align(x, rois, out, scale, sr), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ops.ps_roi_pool(T(x), T(rois), out, scale).numpy(), ref_ps_roi_pool(x, rois, out, scale),
                               rtol=1e-12, atol=1e-12)
    for fn in (lambda t: ops.ps_roi_align(t, T(rois[:3]), out, scale, sr), lambda t: ops.ps_roi_pool(t, T(rois[:3]), out, scale)):
        assert gradcheck(fn, (T(x[:, :, :5, :6], requires_grad=True),))


def test_ps_roi_modules_and_errors():
    x = T(np.random.default_rng(9).standard_normal((1, 8, 6, 6)).astype(np.float32))
    rois = [T(np.array([[0.5, 1, 4, 5]], np.float32))]
    np.testing.assert_array_equal(ops.PSRoIAlign(2, 1.0, 2)(x, rois).numpy(), ops.ps_roi_align(x, rois, 2, 1.0, 2).numpy())
    np.testing.assert_array_equal(ops.PSRoIPool(2, 1.0)(x, rois).numpy(), ops.ps_roi_pool(x, rois, 2).numpy())
    assert repr(ops.PSRoIAlign(2, 0.5, 2)) == "PSRoIAlign(output_size=2, spatial_scale=0.5, sampling_ratio=2)"
    assert repr(ops.PSRoIPool((2, 3), 1.0)) == "PSRoIPool(output_size=(2, 3), spatial_scale=1.0)"
    if HAS_TV:
        assert repr(tv.ops.PSRoIAlign(2, 0.5, 2)) == repr(ops.PSRoIAlign(2, 0.5, 2))
        assert repr(tv.ops.PSRoIPool((2, 3), 1.0)) == repr(ops.PSRoIPool((2, 3), 1.0))
    for fn in (ops.ps_roi_align, ops.ps_roi_pool):
        with pytest.raises(RuntimeError, match="input channels must be a multiple of pooling height \\* pooling width"):
            fn(x, rois, 3)


def test_roi_pool_without_grad_gives_the_same_values():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 3, 9, 11))
    x[0, 1, 3:6, 2:7] = np.nan  # NaN never wins, tracked or not
    rois = T(random_rois(rng, 15, 2, 9, 11))
    plain = ops.roi_pool(T(x), rois, (3, 3), 1.0)
    tracked = ops.roi_pool(T(x, requires_grad=True), rois, (3, 3), 1.0)
    assert not plain.requires_grad and tracked.requires_grad
    np.testing.assert_array_equal(plain.numpy(), tracked.detach().numpy())
    with npgrad.no_grad():
        np.testing.assert_array_equal(ops.roi_pool(T(x, requires_grad=True), rois, (3, 3)).numpy(), plain.numpy())
