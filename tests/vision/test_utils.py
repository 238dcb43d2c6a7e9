"""npgrad.vision.utils against torchvision.utils (pure Python, so it runs through tv_oracle), plus NumPy checks
that hold without torch: grid geometry, save_image's rounding, the drawn pixels' colours and places."""
import io
import warnings

import numpy as np
import pytest
from tv_oracle import HAS_TV, torch, tv

import npgrad
from npgrad.vision import utils as U

Image = pytest.importorskip("PIL.Image", reason="the drawing functions and save_image use Pillow")


def both(array):
    """(npgrad tensor, torch tensor or None) of the same array."""
    return npgrad.from_numpy(array.copy()), (torch.from_numpy(array.copy()) if HAS_TV else None)


def same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


rs = np.random.RandomState(0)


@pytest.mark.parametrize("shape, kwargs", [
    ((5, 3, 4, 6), {}),
    ((5, 1, 4, 6), {"nrow": 2, "padding": 1, "pad_value": 0.5}),
    ((3, 3, 4, 4), {"nrow": 8, "padding": 0}),
    ((7, 3, 2, 3), {"normalize": True}),
    ((4, 3, 3, 3), {"normalize": True, "value_range": (0.2, 0.7)}),
    ((4, 3, 3, 3), {"normalize": True, "scale_each": True}),
    ((1, 1, 4, 5), {}),
    ((4, 5), {}),
    ((2, 4, 5), {"padding": 3}),
])
def test_make_grid(shape, kwargs):
    x = (rs.rand(*shape) * 3 - 1).astype(np.float32)
    ours = U.make_grid(npgrad.from_numpy(x), **kwargs)
    if len(shape) == 4 and shape[0] > 1 and not kwargs.get("normalize"):
        pad = kwargs.get("padding", 2)
        cols = min(kwargs.get("nrow", 8), shape[0])
        rows = -(-shape[0] // cols)
        assert tuple(ours.shape) == (3, rows * (shape[2] + pad) + pad, cols * (shape[3] + pad) + pad)
        top, left = pad + shape[2] + pad, pad  # the second row's first image, when there is one
        k = cols if rows > 1 else 0
        np.testing.assert_array_equal(ours.numpy()[:, top if rows > 1 else pad:][:, :shape[2], left:left + shape[3]],
                                      np.broadcast_to(x[k], (3,) + shape[2:]))
    if HAS_TV:
        same(ours, tv.utils.make_grid(torch.from_numpy(x), **kwargs))


def test_make_grid_lists_and_errors():
    imgs = [rs.rand(3, 4, 4).astype(np.float32) for _ in range(3)]
    ours = U.make_grid([npgrad.from_numpy(i) for i in imgs], nrow=3)
    np.testing.assert_array_equal(ours.numpy()[:, 2:6, 8:12], imgs[1])
    if HAS_TV:
        same(ours, tv.utils.make_grid([torch.from_numpy(i) for i in imgs], nrow=3))
    with pytest.raises(TypeError, match="tensor or list of tensors expected, got <class 'int'>"):
        U.make_grid(5)
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        U.make_grid(npgrad.rand(2, 3, 4, 4), normalize=True, value_range=[0, 1])


def test_make_grid_integers_and_gradients():
    x = rs.randint(0, 256, (5, 3, 4, 4)).astype(np.uint8)
    ours = U.make_grid(npgrad.from_numpy(x), nrow=3, pad_value=7)
    assert ours.dtype == npgrad.uint8 and (ours.numpy()[:, :2] == 7).all()
    if HAS_TV:
        same(ours, tv.utils.make_grid(torch.from_numpy(x), nrow=3, pad_value=7))
    images = npgrad.rand(3, 1, 2, 2, requires_grad=True)
    weights = npgrad.rand(3, 6, 14)
    grid = U.make_grid(images, normalize=True, value_range=(0.0, 2.0))
    assert grid.requires_grad
    np.testing.assert_array_equal(grid.detach().numpy(),  # the same values as the no-grad path
                                  U.make_grid(images.detach(), normalize=True, value_range=(0.0, 2.0)).numpy())
    (grid * weights).sum().backward()
    # each pixel appears in the three colour planes of its cell, scaled by 1/2 (the value range)
    cell = weights.numpy()[:, 2:4, 2:4].sum(0) / 2
    np.testing.assert_allclose(images.grad.numpy()[0, 0], cell, rtol=1e-6)


@pytest.mark.parametrize("fmt", ["png", "bmp"])
def test_save_image(tmp_path, fmt):
    x = (rs.rand(3, 3, 5, 4) * 1.2 - 0.1).astype(np.float32)
    U.save_image(npgrad.from_numpy(x), tmp_path / f"ours.{fmt}", nrow=2)
    got = np.asarray(Image.open(tmp_path / f"ours.{fmt}"))
    grid = U.make_grid(npgrad.from_numpy(x), nrow=2).numpy()
    np.testing.assert_array_equal(got, np.clip(np.floor(grid * 255 + 0.5), 0, 255).astype(np.uint8).transpose(1, 2, 0))
    buf = io.BytesIO()
    U.save_image(npgrad.from_numpy(x), buf, format="PNG", nrow=2)
    np.testing.assert_array_equal(np.asarray(Image.open(buf)), got)
    if HAS_TV:
        tv.utils.save_image(torch.from_numpy(x), tmp_path / f"tv.{fmt}", nrow=2)
        assert (tmp_path / f"ours.{fmt}").read_bytes() == (tmp_path / f"tv.{fmt}").read_bytes()


IMG = rs.randint(0, 256, (3, 24, 32)).astype(np.uint8)
BOXES = np.array([[1, 2, 10, 12], [5.7, 3.2, 25.9, 18.1], [0, 0, 31, 23]], dtype=np.float32)


@pytest.mark.parametrize("kwargs", [
    {},
    {"labels": ["a", "bb", None]},
    {"labels": ["a", "bb", "c"], "colors": "red", "fill": True, "width": 2},
    {"labels": ["a", "bb", "c"], "colors": [(9, 8, 7), "#00ff00", "blue"], "label_colors": "white"},
    {"labels": ["cat", "dog", "x"], "fill_labels": True},
    {"labels": ["cat", "dog", "x"], "fill_labels": True, "label_background_colors": ["yellow", (1, 2, 3), "red"],
     "label_colors": [(200, 0, 0)] * 3},
])
@pytest.mark.parametrize("kind", ["uint8", "float", "gray"])
def test_draw_bounding_boxes(kwargs, kind):
    img = {"uint8": IMG, "float": IMG.astype(np.float32) / 255, "gray": IMG[:1]}[kind]
    ours_img, their_img = both(img)
    ours = U.draw_bounding_boxes(ours_img, npgrad.from_numpy(BOXES), **kwargs)
    assert tuple(ours.shape) == (3, 24, 32) and ours.dtype == ours_img.dtype
    if kind == "uint8" and not kwargs:
        # the first box's outline in the default first colour (black), its inside untouched
        out = ours.numpy()
        assert (out[:, 2, 1:11] == 0).all() and (out[:, 2:13, 1] == 0).all()
        np.testing.assert_array_equal(out[:, 5:9, 2:5], IMG[:, 5:9, 2:5])
    if HAS_TV:
        same(ours, tv.utils.draw_bounding_boxes(their_img, torch.from_numpy(BOXES), **kwargs))


def test_draw_bounding_boxes_errors_and_warnings():
    img = npgrad.from_numpy(IMG)
    cases = [
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG.astype(np.int16)), T(BOXES)), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG[None]), T(BOXES)), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(np.zeros((4, 5, 5), np.uint8)), T(BOXES)), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG), T(np.array([[5.0, 1, 2, 3]], np.float32))), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG), T(BOXES), labels=["a"]), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG), T(BOXES), colors=["red"]), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG), T(BOXES), colors=5), ValueError),
        (lambda u, t, T: u.draw_bounding_boxes(t(IMG), T(BOXES), colors=(1, 2)), ValueError),
    ]
    for call, error in cases:
        with pytest.raises(error) as e:
            call(U, npgrad.from_numpy, npgrad.from_numpy)
        if HAS_TV:
            with pytest.raises(error) as f:
                call(tv.utils, torch.from_numpy, torch.from_numpy)
            assert str(e.value) == str(f.value).replace("torch.", "npgrad.")
    with pytest.warns(UserWarning, match="boxes doesn't contain any box"):
        assert U.draw_bounding_boxes(img, npgrad.zeros(0, 4)) is img
    with pytest.warns(UserWarning, match="'font_size' will be ignored"):
        U.draw_bounding_boxes(img, npgrad.from_numpy(BOXES), font_size=12)


@pytest.mark.parametrize("alpha", [0.8, 0.3])
@pytest.mark.parametrize("kind", ["uint8", "float"])
@pytest.mark.parametrize("colors", [None, ["red", (0, 0, 255), "#123456"], "green"])
def test_draw_segmentation_masks(alpha, kind, colors):
    img = IMG if kind == "uint8" else IMG.astype(np.float32) / 255
    masks = np.zeros((3, 24, 32), bool)
    masks[0, 2:10, 3:20] = True
    masks[1, 8:20, 15:30] = True  # overlaps the first
    masks[2, 20:, :5] = True
    ours_img, their_img = both(img)
    ours = U.draw_segmentation_masks(ours_img, npgrad.from_numpy(masks), alpha=alpha, colors=colors)
    out = ours.numpy()
    only_first = masks[0] & ~masks[1]
    first = np.array((255, 0, 0) if isinstance(colors, list) else (0, 128, 0) if colors == "green" else (0, 0, 0),
                     np.float32)
    scale = 255 if kind == "float" else 1
    expect = (img[:, only_first].astype(np.float32) * np.float32(1 - alpha)
              + (first / scale)[:, None] * np.float32(alpha)).astype(img.dtype)
    np.testing.assert_allclose(out[:, only_first], expect, atol=1 if kind == "uint8" else 1e-6)
    np.testing.assert_array_equal(out[:, ~masks.any(0)],
                                  (img[:, ~masks.any(0)].astype(np.float32) * np.float32(1 - alpha)
                                   + img[:, ~masks.any(0)] * np.float32(alpha)).astype(img.dtype))
    if HAS_TV:
        same(ours, tv.utils.draw_segmentation_masks(their_img, torch.from_numpy(masks), alpha=alpha, colors=colors))
        single = U.draw_segmentation_masks(ours_img, npgrad.from_numpy(masks[0]), alpha=alpha)
        same(single, tv.utils.draw_segmentation_masks(their_img, torch.from_numpy(masks[0]), alpha=alpha))


def test_draw_segmentation_masks_errors():
    good = np.zeros((24, 32), bool)
    cases = [(IMG.astype(np.int16), good), (IMG[None], good), (IMG[:1], good), (IMG, good[None, None]),
             (IMG, good.astype(np.float32)), (IMG, np.zeros((24, 31), bool))]
    for img, masks in cases:
        with pytest.raises(ValueError) as e:
            U.draw_segmentation_masks(npgrad.from_numpy(img), npgrad.from_numpy(masks))
        if HAS_TV:
            with pytest.raises(ValueError) as f:
                tv.utils.draw_segmentation_masks(torch.from_numpy(img), torch.from_numpy(masks))
            assert str(e.value) == str(f.value).replace("torch.", "npgrad.")
    with pytest.raises(TypeError, match="The image must be a tensor"):
        U.draw_segmentation_masks(IMG, npgrad.from_numpy(good))
    with pytest.warns(UserWarning, match="masks doesn't contain any mask"):
        U.draw_segmentation_masks(npgrad.from_numpy(IMG), npgrad.zeros(0, 24, 32, dtype=npgrad.bool))


KP = np.array([[[2.5, 3.0], [10, 12], [20, 5]], [[25, 15], [30, 20], [4, 20]]], np.float32)


@pytest.mark.parametrize("kwargs", [
    {},
    {"connectivity": [(0, 1), (1, 2)], "colors": "red", "radius": 3, "width": 2},
    {"connectivity": [(0, 2)], "colors": (1, 200, 3)},
    {"connectivity": [(0, 1), (1, 2)], "visibility": np.array([[True, False, True], [True, True, False]])},
])
@pytest.mark.parametrize("kind", ["uint8", "float"])
def test_draw_keypoints(kwargs, kind):
    img = IMG if kind == "uint8" else IMG.astype(np.float32) / 255
    ours_img, their_img = both(img)
    vis = kwargs.get("visibility")
    ours_kwargs = dict(kwargs, **({"visibility": npgrad.from_numpy(vis)} if vis is not None else {}))
    ours = U.draw_keypoints(ours_img, npgrad.from_numpy(KP), **ours_kwargs)
    if kind == "uint8" and "colors" in kwargs:
        color = (255, 0, 0) if kwargs["colors"] == "red" else kwargs["colors"]
        if any(1 in pair for pair in kwargs["connectivity"]):
            color = (255, 255, 255)  # lines are drawn after the discs, in Pillow's default ink
        assert tuple(ours.numpy()[:, 12, 10].tolist()) == color  # the centre of the second keypoint
    if HAS_TV:
        their_kwargs = dict(kwargs, **({"visibility": torch.from_numpy(vis)} if vis is not None else {}))
        same(ours, tv.utils.draw_keypoints(their_img, torch.from_numpy(KP), **their_kwargs))


def test_draw_keypoints_errors():
    img = npgrad.from_numpy(IMG)
    with pytest.raises(ValueError, match=r"keypoints must be of shape \(num_instances, K, 2\)"):
        U.draw_keypoints(img, npgrad.from_numpy(KP[0]))
    with pytest.raises(ValueError, match="visibility must be of shape"):
        U.draw_keypoints(img, npgrad.from_numpy(KP), visibility=npgrad.ones(2, dtype=npgrad.bool))
    with pytest.raises(ValueError, match="must have the same dimensionality"):
        U.draw_keypoints(img, npgrad.from_numpy(KP), visibility=npgrad.ones(2, 2, dtype=npgrad.bool))
    with pytest.raises(ValueError, match="Pass an RGB image"):
        U.draw_keypoints(npgrad.from_numpy(IMG[:1]), npgrad.from_numpy(KP))


@pytest.mark.parametrize("shape", [(2, 9, 11), (3, 2, 6, 5)])
def test_flow_to_image(shape):
    flow = (rs.randn(*shape) * 3).astype(np.float32)
    ours = U.flow_to_image(npgrad.from_numpy(flow)).numpy()
    assert ours.dtype == np.uint8 and ours.shape == shape[:-3] + (3,) + shape[-2:]
    uv = flow.reshape((-1,) + flow.shape[-3:])
    radius = np.sqrt((uv ** 2).sum(1))
    strongest = np.unravel_index(radius.argmax(), radius.shape)
    out = ours.reshape((-1, 3) + flow.shape[-2:])
    # the strongest flow gets a fully saturated colour: one channel at 255, at least one near 0
    px = out[strongest[0], :, strongest[1], strongest[2]]
    assert px.max() == 255 and px.min() <= 1
    # flow pointing right (+u) is at the start of the wheel, pure red; pointing left, half way round: cyan-ish
    right = U.flow_to_image(npgrad.from_numpy(np.array([[[1.0]], [[0.0]]], np.float32))).numpy()[:, 0, 0]
    assert right.tolist() == [255, 0, 0]
    left = U.flow_to_image(npgrad.from_numpy(np.array([[[-1.0]], [[0.0]]], np.float32))).numpy()[:, 0, 0]
    assert left[0] == 0 and left[2] == 255
    if HAS_TV:
        theirs = tv.utils.flow_to_image(torch.from_numpy(flow)).numpy().reshape(out.shape)
        # atan2/sqrt may differ in the last float32 bit between NumPy and torch, which floor() can turn into 1.
        # At the strongest pixel a channel meant to be 0 can round to -1, which torch wraps to 255 and npgrad
        # keeps at 0: that pixel is compared on its saturated channel only.
        diff = np.abs(out.astype(int) - theirs).transpose(0, 2, 3, 1)
        diff[strongest] = diff[strongest] * (px == 255)
        assert diff.max() <= 1 and (diff == 0).mean() > 0.99
    with pytest.raises(ValueError, match="Flow should be of dtype torch.float"):
        U.flow_to_image(npgrad.from_numpy(flow.astype(np.float64)))
    with pytest.raises(ValueError, match=r"Input flow should have shape \(2, H, W\) or \(N, 2, H, W\)"):
        U.flow_to_image(npgrad.zeros(3, 4, 4))
