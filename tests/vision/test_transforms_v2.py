"""transforms.v2's core on plain PIL images and tensors, against torchvision's v2 and on its own."""
import numpy as np
import pytest

import npgrad
from npgrad.vision.transforms import v2
from tv_oracle import HAS_TV, tv, needs_tv, message as _message

Image = pytest.importorskip("PIL.Image", reason="PIL-image transforms need Pillow")


rng = np.random.default_rng(2)
U8 = rng.integers(0, 256, (3, 10, 13), dtype=np.uint8)
IM = Image.fromarray(U8.transpose(1, 2, 0))


def tv2():
    from torchvision.transforms import v2 as theirs
    return theirs


def lib(m):
    return npgrad if m is v2 else __import__("torch")


def pair(arr):
    import torch
    return npgrad.from_numpy(np.array(arr)), torch.from_numpy(np.array(arr))


def plain(x):
    """torchvision's v2 returns tv_tensors (Tensor subclasses) and PIL images; compare their data."""
    if isinstance(x, Image.Image):
        return x.mode, np.asarray(x)
    if isinstance(x, npgrad.Tensor):
        return x.numpy()
    if hasattr(x, "as_subclass"):
        return x.as_subclass(__import__("torch").Tensor).numpy()
    return x


def same(a, b, tol=1e-6):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y, tol)
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            same(a[k], b[k], tol)
        return
    x, y = plain(a), plain(b)
    if isinstance(x, tuple):
        assert x[0] == y[0]
        np.testing.assert_array_equal(x[1], y[1])
    elif isinstance(x, np.ndarray):
        assert x.shape == y.shape and x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=0, atol=tol)
    else:
        assert x == y


REPRS = [
    lambda m: m.Compose([m.ToImage(), m.ToDtype(lib(m).float32, scale=True)]), lambda m: m.ToDtype(lib(m).float32),
    lambda m: m.Normalize([0.5], [0.5]), lambda m: m.Resize(32),
    lambda m: m.Resize((3, 4), m.InterpolationMode.NEAREST, antialias=False), lambda m: m.Resize(None, max_size=30),
    lambda m: m.RandomResizedCrop(5), lambda m: m.RandomHorizontalFlip(), lambda m: m.RandomVerticalFlip(0.2),
    lambda m: m.CenterCrop(3), lambda m: m.RandomCrop(3, padding=2, pad_if_needed=True), lambda m: m.RandomCrop(3, padding=(1, 2)),
    lambda m: m.ColorJitter(), lambda m: m.ColorJitter(0.1, 0.2, 0.3, 0.1), lambda m: m.ToPureTensor(),
    lambda m: m.Grayscale(3), lambda m: m.Pad(2), lambda m: m.PILToTensor(), lambda m: m.ToPILImage(), lambda m: m.ToImage(),
    lambda m: m.RandomErasing(), lambda m: m.RandomErasing(value="random"), lambda m: m.RandomErasing(value=(1, 2, 3)),
    lambda m: m.AutoAugment(), lambda m: m.AutoAugment(m.AutoAugmentPolicy.SVHN, fill=3), lambda m: m.RandAugment(),
    lambda m: m.TrivialAugmentWide(), lambda m: m.AugMix(), lambda m: m.RandomRotation(10),
    lambda m: m.RandomRotation(5, center=(1, 2), expand=True), lambda m: m.RandomAffine(10, (0.1, 0.1)),
    lambda m: m.RandomAffine(5, shear=3, fill=[1, 2, 3], center=[1, 1], interpolation=m.InterpolationMode.BILINEAR),
    lambda m: m.RandomPerspective(), lambda m: m.GaussianBlur(3), lambda m: m.GaussianBlur(3, 0.5),
    lambda m: m.RandomGrayscale(), lambda m: m.RandomInvert(), lambda m: m.RandomPosterize(3),
    lambda m: m.RandomSolarize(100), lambda m: m.RandomAdjustSharpness(2), lambda m: m.RandomAutocontrast(),
    lambda m: m.RandomEqualize(), lambda m: m.MixUp(num_classes=5), lambda m: m.CutMix(alpha=0.5, num_classes=3),
    lambda m: m.RandomApply([m.RandomHorizontalFlip()], p=0.3), lambda m: m.RandomApply([m.RandomHorizontalFlip(),
                                                                                          m.Grayscale()]),
    lambda m: m.RandomChoice([m.Grayscale(), m.RandomHorizontalFlip()], p=[1, 3]), lambda m: m.RandomOrder([m.Grayscale()]),
    lambda m: m.Lambda(abs, int), lambda m: m.Identity(), lambda m: m.RGB(), lambda m: m.ConvertImageDtype(),
    lambda m: m.FiveCrop(3), lambda m: m.TenCrop(3), lambda m: m.RandomChannelPermutation(),
    lambda m: m.ElasticTransform(), lambda m: m.ElasticTransform(10.0, (2.0, 3.0), fill=3),
    lambda m: m.RandomResize(10, 20), lambda m: m.RandomShortestSize([5, 7], 12),
]


@needs_tv
@pytest.mark.parametrize("make", REPRS)
def test_repr_matches_torchvision(make):
    assert repr(make(v2)) == repr(make(tv2()))


DETERMINISTIC = [
    lambda m: m.ToImage(), lambda m: m.ToDtype(lib(m).float32, scale=True), lambda m: m.ToDtype(lib(m).float64),
    lambda m: m.ToDtype(lib(m).int16, scale=True), lambda m: m.ToDtype({lib(m).Tensor: lib(m).float32}, scale=True),
    lambda m: m.Resize(7), lambda m: m.Resize([6, 5], m.InterpolationMode.NEAREST), lambda m: m.Resize(None, max_size=8),
    lambda m: m.Resize([4], max_size=5, interpolation=m.InterpolationMode.BICUBIC), lambda m: m.CenterCrop((4, 15)),
    lambda m: m.RandomHorizontalFlip(1.0), lambda m: m.RandomVerticalFlip(1.0), lambda m: m.Grayscale(3),
    lambda m: m.Pad([1, 2], padding_mode="reflect"), lambda m: m.RandomCrop((10, 13)),
    lambda m: m.RandomCrop((14, 15), padding=(1, 2), pad_if_needed=True, fill=9),
    lambda m: m.RandomResizedCrop(5, scale=(3.0, 4.0)), lambda m: m.ColorJitter(brightness=(1.4, 1.4)),
    lambda m: m.ColorJitter(hue=(0.2, 0.2)),
    lambda m: m.Compose([m.CenterCrop(8), m.ToDtype(lib(m).float32, scale=True), m.Normalize([0.4] * 3, [0.2] * 3)]),
    lambda m: m.RandomRotation((30, 30), expand=True), lambda m: m.RandomAffine((10, 10), shear=(5, 5, 2, 2), fill=7),
    lambda m: m.GaussianBlur(3, (0.8, 0.8)), lambda m: m.RandomGrayscale(1.0), lambda m: m.RandomInvert(1.0),
    lambda m: m.RandomPosterize(3, 1.0), lambda m: m.RandomSolarize(128, 1.0), lambda m: m.RandomAdjustSharpness(0.3, 1.0),
    lambda m: m.RandomAutocontrast(1.0), lambda m: m.RandomEqualize(1.0), lambda m: m.Identity(),
    lambda m: m.RGB(), lambda m: m.Compose([m.Grayscale(), m.RGB()]), lambda m: m.ConvertImageDtype(lib(m).float64),
    lambda m: m.FiveCrop(4), lambda m: m.TenCrop((3, 5), vertical_flip=True), lambda m: m.RandomApply([m.Grayscale()], p=1.0),
    lambda m: m.RandomChoice([m.Grayscale(3)]), lambda m: m.RandomOrder([m.CenterCrop(6)]),
    lambda m: m.RandomResize(8, 9), lambda m: m.RandomShortestSize([7], 12, interpolation="nearest"),
    lambda m: m.RandomShortestSize(12, 13, antialias=False),
]


@needs_tv
@pytest.mark.parametrize("kind", ["uint8", "float", "pil", "sample"])
@pytest.mark.parametrize("make", DETERMINISTIC)
def test_deterministic_outputs_match_torchvision(make, kind):
    if kind == "pil":
        a = b = IM
    else:
        a, b = pair(U8 if kind != "float" else U8 / np.float32(255))
    if kind == "sample":  # an (image, label, extra tensor) tuple and a dict: only the first tensor is the image
        la, lb = pair(np.arange(3))
        a, b = {"image": a, "target": (la, 5)}, {"image": b, "target": (lb, 5)}
    try:
        ref = make(tv2())(b)
    except Exception as e:
        with pytest.raises(type(e)):
            make(v2)(a)
        return
    mine = make(v2)(a)
    name = repr(make(v2))
    resized_u8 = kind in ("uint8", "sample") and "Resize" in name and "NEAREST" not in name
    if resized_u8:  # torchvision's v2 resizes uint8 with its own fixed-point kernel: one step apart at most
        x, y = plain(mine["image"] if kind == "sample" else mine), plain(ref["image"] if kind == "sample" else ref)
        assert x.shape == y.shape and np.abs(x.astype(int) - y.astype(int)).max() <= 1
    else:
        same(mine, ref)


@needs_tv
def test_to_image_and_pil_conversions_match_torchvision():
    arr = U8.transpose(1, 2, 0).copy()
    same(v2.ToImage()(arr), tv2().ToImage()(arr))
    same(v2.ToImage()(arr[:, :, 0]), tv2().ToImage()(arr[:, :, 0]))
    same(v2.ToImage()(IM), tv2().ToImage()(IM))
    same(v2.PILToTensor()(IM), tv2().PILToTensor()(IM))
    a, b = pair(U8)
    same(v2.ToPILImage()(a), tv2().ToPILImage()(b))
    same(v2.ToPureTensor()(a), tv2().ToPureTensor()(b))


BAD = [
    lambda m: m.ColorJitter(brightness="a"), lambda m: m.Resize(None), lambda m: m.Resize([1, 2, 3]),
    lambda m: m.RandomResizedCrop(3, scale=1), lambda m: m.CenterCrop([1, 2, 3]), lambda m: m.RandomHorizontalFlip(2),
    lambda m: m.RandomCrop(3, padding=[1, 2, 3]), lambda m: m.ColorJitter(hue=0.8), lambda m: m.ColorJitter(contrast=-1),
    lambda m: m.RandomCrop(30)(pair(U8)[m is not v2]), lambda m: m.Normalize([0.5], [0.5])(IM),
    lambda m: m.Normalize([0.5], [0.5])(pair(U8)[m is not v2]),
    lambda m: m.ToDtype(lib(m).int32, scale=True)(pair(U8 / np.float32(1))[m is not v2]),
    lambda m: m.ToDtype({int: lib(m).float32})(pair(U8)[m is not v2]),
    lambda m: m.RandomChoice([m.Grayscale()], p=[1, 2]), lambda m: m.RandomApply(3),
    lambda m: m.MixUp()(*_batch(m)), lambda m: m.MixUp(num_classes=3)(_batch(m)[0][0], _batch(m)[1]),
    lambda m: m.MixUp(num_classes=3)(_batch(m)[0], _batch(m)[1][:3]), lambda m: m.CutMix(num_classes=3)(_batch(m)[0]),
]


_batch_cache = {}


def _batch(m):
    """One (images, labels) batch per library."""
    key = m is v2
    if key not in _batch_cache:
        a, b = pair(np.stack([U8, U8[:, ::-1], U8[:, :, ::-1], 255 - U8]).astype(np.float32) / 255)
        la, lb = pair(np.array([0, 1, 2, 1]))
        _batch_cache[True], _batch_cache[False] = (a, la), (b, lb)
    return _batch_cache[key]


@needs_tv
@pytest.mark.parametrize("make", BAD)
def test_errors_match_torchvision(make):
    with pytest.raises(Exception) as theirs:
        make(tv2())
    with pytest.raises(theirs.type) as ours:
        make(v2)
    assert _message(ours.value) == _message(theirs.value)


# ---------------------------------------------------------------- without the oracle


def test_one_draw_per_sample_and_labels_pass_through():
    img = npgrad.from_numpy(U8)
    flips = 0
    for seed in range(40):
        npgrad.manual_seed(seed)
        out, label, again = v2.RandomHorizontalFlip()(img, 7, img)
        assert label == 7 and again is img  # only the first plain tensor is the image
        flipped = bool((out.numpy() == U8[..., ::-1]).all())
        assert flipped or out is img
        flips += flipped
    assert 8 < flips < 32
    npgrad.manual_seed(0)
    a, b = v2.RandomResizedCrop(6)([IM, IM.copy()])  # every PIL image of a sample gets the same crop
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    out = v2.RandomCrop(5, padding=1)({"x": img, "y": [1, 2]})
    assert tuple(out["x"].shape) == (3, 5, 5) and out["y"] == [1, 2]


def test_augmentations_give_every_image_of_a_sample_the_same_draw():
    img = npgrad.from_numpy(U8)
    for make in (lambda: v2.TrivialAugmentWide(), lambda: v2.RandAugment(), lambda: v2.AutoAugment(),
                 lambda: v2.RandomRotation(40), lambda: v2.RandomPerspective(p=1.0)):
        for seed in range(4):
            npgrad.manual_seed(seed)
            first, second = make()([IM, IM.copy()]) if seed % 2 else (None, None)
            if first is not None:
                np.testing.assert_array_equal(np.asarray(first), np.asarray(second))
        npgrad.manual_seed(5)
        a = make()(img)
        npgrad.manual_seed(5)
        b = make()(img)
        np.testing.assert_array_equal(a.numpy(), b.numpy())  # seeded: repeatable
    erase = v2.RandomErasing(p=1.0, value="random")
    npgrad.manual_seed(1)
    x, y, pil = erase(img.float(), img.float(), IM)
    assert (x.numpy() != U8).any() and (y.numpy() == U8).all() and pil is IM  # the first tensor only; PIL passes


def test_mixup_and_cutmix_mix_images_and_labels_alike():
    images = npgrad.from_numpy(np.stack([U8, U8[:, ::-1], U8[:, :, ::-1], 255 - U8]).astype(np.float32) / 255)
    labels = npgrad.tensor([0, 1, 2, 1])
    x = images.numpy()
    lams = []
    for seed in range(6):
        npgrad.manual_seed(seed)
        mixed, soft = v2.MixUp(num_classes=3)(images, labels)
        lam = float(soft[0, 0])  # sample 0 is class 0, its predecessor (sample 3) class 1
        lams.append(lam)
        np.testing.assert_allclose(mixed.numpy(), lam * x + (1 - lam) * np.roll(x, 1, 0), atol=1e-6)
        np.testing.assert_allclose(soft.sum(1).numpy(), 1.0, atol=1e-6)
        out = v2.CutMix(num_classes=3)({"image": images, "labels": labels})
        kept = (out["image"].numpy() == x).all(1).mean(axis=(1, 2))
        pasted = (out["image"].numpy() == np.roll(x, 1, 0)).all(1).mean(axis=(1, 2))
        assert np.allclose(kept + pasted, 1.0)
        np.testing.assert_allclose(out["labels"].numpy()[0, 0], kept[0], atol=1e-6)
    assert len(set(lams)) == 6 and all(0 <= v <= 1 for v in lams)


def test_resize_and_channel_draws():
    img = npgrad.from_numpy(U8)
    npgrad.manual_seed(0)
    sizes = {min(v2.RandomResize(5, 9)(img).shape[-2:]) for _ in range(60)}
    assert sizes == {5, 6, 7, 8}
    shapes = {tuple(v2.RandomShortestSize([4, 6], max_size=7)(img).shape[-2:]) for _ in range(40)}
    assert shapes == {(4, 5), (5, 7)}  # 6 on the short edge would put 7.8 on the long one: capped at 7
    perms = set()
    for _ in range(40):
        out = v2.RandomChannelPermutation()(img).numpy()
        perm = tuple(int(np.flatnonzero((U8 == out[c]).all(axis=(1, 2)))[0]) for c in range(3))
        perms.add(perm)
    assert len(perms) == 6
    with pytest.warns(UserWarning, match="deprecated"):
        totensor = v2.ToTensor()
    np.testing.assert_allclose(totensor(IM).numpy(), U8 / np.float32(255), atol=1e-7)


def test_classification_pipeline_without_oracle():
    pipeline = v2.Compose([v2.ToImage(), v2.Resize(8), v2.CenterCrop(8), v2.ToDtype(npgrad.float32, scale=True),
                           v2.Normalize([0.5] * 3, [0.25] * 3)])
    x = pipeline(IM)
    ref = np.asarray(IM.resize((10, 8), Image.Resampling.BILINEAR)).transpose(2, 0, 1)[:, :, 1:9] / 255
    # a uint8 tensor resize (antialiased) against Pillow's: within one step of 255
    np.testing.assert_allclose(x.numpy(), (ref - 0.5) / 0.25, atol=1.01 / 255 / 0.25)
    u = v2.ToDtype(npgrad.int16, scale=True)(npgrad.from_numpy(U8)).numpy()
    np.testing.assert_array_equal(u, U8.astype(np.int16) << 7)
    f = v2.ToDtype(npgrad.uint8, scale=True)(npgrad.from_numpy(U8 / np.float32(255))).numpy()
    np.testing.assert_array_equal(f, U8)
    npgrad.manual_seed(3)
    j = v2.ColorJitter(0.5, 0.5, 0.5, 0.2)(npgrad.from_numpy(U8))
    assert j.dtype == npgrad.uint8 and j.shape == (3, 10, 13) and (j.numpy() != U8).any()


FUNCTIONAL = [
    lambda f, x: f.resize(x, [6, 7]), lambda f, x: f.resize(x, [5], interpolation="nearest"),
    lambda f, x: f.resize(x, None, max_size=9, antialias=False) if not isinstance(x, Image.Image) else f.resize(x, [4]),
    lambda f, x: f.center_crop(x, [4, 5]), lambda f, x: f.crop(x, 1, 2, 5, 6), lambda f, x: f.pad(x, [1, 2]),
    lambda f, x: f.pad(x, 2, fill=3, padding_mode="symmetric"), lambda f, x: f.horizontal_flip(x),
    lambda f, x: f.vertical_flip(x), lambda f, x: f.hflip(x), lambda f, x: f.rotate(x, 20.0, "bilinear"),
    lambda f, x: f.affine(x, 10.0, [1, 2], 1.1, [3.0, 4.0]), lambda f, x: f.resized_crop(x, 1, 1, 6, 7, [4, 4]),
    lambda f, x: f.perspective(x, None, None, coefficients=[1.0, 0.1, 0.5, 0.05, 1.0, -0.5, 0.001, 0.002]),
    lambda f, x: f.perspective(x, [[0, 0], [12, 0], [12, 9], [0, 9]], [[1, 1], [11, 0], [12, 8], [0, 9]]),
    lambda f, x: f.five_crop(x, 4), lambda f, x: f.ten_crop(x, [3, 4], vertical_flip=True),
    lambda f, x: f.adjust_brightness(x, 1.3), lambda f, x: f.adjust_contrast(x, 0.6), lambda f, x: f.adjust_hue(x, 0.2),
    lambda f, x: f.adjust_gamma(x, 0.7), lambda f, x: f.adjust_sharpness(x, 0.3), lambda f, x: f.rgb_to_grayscale(x),
    lambda f, x: f.to_grayscale(x, 3), lambda f, x: f.grayscale_to_rgb(f.rgb_to_grayscale(x)),
    lambda f, x: f.gaussian_blur(x, [3, 3], [0.8, 0.8]), lambda f, x: f.invert(x), lambda f, x: f.posterize(x, 3),
    lambda f, x: f.autocontrast(x), lambda f, x: f.equalize(x), lambda f, x: f.get_dimensions(x),
    lambda f, x: f.get_size(x), lambda f, x: f.get_num_channels(x), lambda f, x: f.to_image(x),
]


@needs_tv
@pytest.mark.parametrize("kind", ["uint8", "float", "pil"])
@pytest.mark.parametrize("call", FUNCTIONAL)
def test_functional_matches_torchvision(call, kind):
    from torchvision.transforms.v2 import functional as theirs
    if kind == "pil":
        a = b = IM
    else:
        a, b = pair(U8 if kind == "uint8" else U8 / np.float32(255))
    try:
        ref = call(theirs, b)
    except Exception as e:  # e.g. posterize of a PIL float image: refused alike
        with pytest.raises(type(e)):
            call(v2.functional, a)
        return
    mine = call(v2.functional, a)
    if kind == "uint8" and "resize" in str(call.__code__.co_names) and "nearest" not in str(call.__code__.co_consts):
        x, y = plain(mine), plain(ref)
        assert x.shape == y.shape and np.abs(x.astype(int) - y.astype(int)).max() <= 1
    else:
        same(mine, ref)
    a8, b8 = pair(U8)
    same(v2.functional.to_dtype(a8, npgrad.float32, scale=True), theirs.to_dtype(b8, __import__("torch").float32,
                                                                                   scale=True))
