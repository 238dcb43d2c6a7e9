"""npgrad.vision.io against Pillow/NumPy oracles, and against torchvision.io where its image extension loads.

(torchvision's compiled image ops usually do not load beside the CPU torch wheel; the comparison tests
then skip, and the Pillow/NumPy checks below still pin the behaviour.) They load when the 16 c10::cuda
symbols torchvision/image.so asks for are given by a stub: list them with
``nm -D --undefined-only image.so | grep cuda``, compile ``long <symbol>(void) { return 0; }`` for each (and
``void* <allocator symbol> = 0;``) into ``libc10_cuda.so``, add an empty ``libtorch_cuda.so``, and run the
tests with ``LD_LIBRARY_PATH=<stub dir>:<torch>/lib``: the CPU decoders and encoders then run as shipped.
"""
import io
import pathlib

import numpy as np
import pytest
from tv_oracle import HAS_TV, torch, tv

import npgrad
from npgrad.vision import io as vio

Image = pytest.importorskip("PIL.Image", reason="npgrad.vision.io decodes and encodes through Pillow")


def _tv_io_works():
    if not HAS_TV:
        return False
    try:
        tv.io.decode_png(tv.io.encode_png(torch.zeros(1, 1, 1, dtype=torch.uint8)))
        return True
    except RuntimeError:  # "Couldn't load the image extension"
        return False


HAS_TV_IO = _tv_io_works()
needs_tv_io = pytest.mark.skipif(not HAS_TV_IO, reason="torchvision's image extension does not load here")


def smooth(h, w, c, seed=0):
    """A smooth test picture with a little noise (JPEG-friendly, so decoders' rounding is exercised)."""
    rs = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w]
    planes = [127 + 100 * np.sin(x / 5 + k) + 20 * np.cos(y * (k + 1) / 3) + rs.randint(0, 20, (h, w)) for k in range(c)]
    return np.stack(planes, -1).clip(0, 255).astype(np.uint8)


def encoded(img, fmt="PNG", **options):
    buf = io.BytesIO()
    img.save(buf, format=fmt, **options)
    return buf.getvalue()


def as_tensor(data):
    return npgrad.from_numpy(np.frombuffer(data, np.uint8).copy())


PIC = smooth(9, 11, 4)
PALETTE = Image.fromarray(PIC[..., :3]).convert("P", palette=Image.ADAPTIVE, colors=23)
PNGS = {
    "L": encoded(Image.fromarray(PIC[..., 0])),
    "LA": encoded(Image.fromarray(PIC[..., :2], "LA")),
    "RGB": encoded(Image.fromarray(PIC[..., :3])),
    "RGBA": encoded(Image.fromarray(PIC)),
    "P": encoded(PALETTE),
    "P_tRNS": encoded(PALETTE, transparency=bytes(range(0, 230, 10))),
    "1": encoded(Image.fromarray(PIC[..., 0] > 128)),
    "P4": encoded(PALETTE.quantize(colors=16), bits=4),  # 4-bit palette indices
    "L2": encoded(Image.fromarray((PIC[..., 0] // 64 * 85).astype(np.uint8)), bits=2),  # 2-bit gray
}
PNG16 = encoded(Image.fromarray(PIC[..., 0].astype(np.uint16) * 257 + 1))
MODES = ["UNCHANGED", "GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA"]


def libpng_gray(rgb):
    """libpng's rgb-to-gray with torchvision's weights (0.2989, 0.587): 15-bit fixed point, truncated."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    mixed = (9794 * r + 19234 * g + 3740 * b) // 32768
    return np.where((r == g) & (g == b), r, mixed).astype(rgb.dtype)


def expected_png(name, mode):
    """What the PNG ``name`` decodes to in ``mode``, from Pillow's pixels and libpng's conversion rules."""
    pil = Image.open(io.BytesIO(PNGS[name]))
    if name.startswith("P") and mode == "UNCHANGED":
        return np.asarray(pil)[None]  # the palette indices
    else:
        rgba_like = pil.convert("RGBA") if name.startswith("P") else pil.convert("L") if name == "1" else pil
        stored = np.atleast_3d(np.asarray(rgba_like))
    if mode == "UNCHANGED":
        return stored.transpose(2, 0, 1)
    full = np.iinfo(stored.dtype).max
    has_alpha = stored.shape[2] in (2, 4)
    colour = stored[..., :3] if stored.shape[2] >= 3 else stored[..., :1]
    alpha = stored[..., -1:] if has_alpha else np.full(stored.shape[:2] + (1,), full, stored.dtype)
    gray = libpng_gray(colour)[..., None] if colour.shape[2] == 3 else colour
    rgb = colour if colour.shape[2] == 3 else np.repeat(colour, 3, 2)
    out = {"GRAY": gray, "GRAY_ALPHA": np.concatenate([gray, alpha], 2), "RGB": rgb,
           "RGB_ALPHA": np.concatenate([rgb, alpha], 2)}[mode]
    return out.transpose(2, 0, 1)


@pytest.mark.parametrize("name", list(PNGS))
@pytest.mark.parametrize("mode", MODES)
def test_decode_png_modes(name, mode):
    got = vio.decode_png(as_tensor(PNGS[name]), getattr(vio.ImageReadMode, mode))
    want = expected_png(name, mode)
    assert got.dtype == npgrad.uint8
    np.testing.assert_array_equal(got.numpy(), want)


def test_16_bit_png_is_refused():
    with pytest.raises(RuntimeError, match="16-bit PNGs decode to uint16 in torchvision, a dtype npgrad does not have"):
        vio.decode_image(as_tensor(PNG16))


# Left out, where torchvision's libpng set-up gives wrong pixels (test_decode_png_modes pins the right ones):
# *_ALPHA of a palette PNG without tRNS (scrambled) and of a 1/2-bit gray PNG (alpha 1 or 3, not 255), and
# UNCHANGED of a palette PNG of fewer than 8 bits (packed bytes, not indices).
TV_PNG_CASES = [(n, m) for n in PNGS for m in MODES
                if not (m.endswith("ALPHA") and n in ("P", "P4", "1", "L2")) and (n, m) != ("P4", "UNCHANGED")]


@needs_tv_io
@pytest.mark.parametrize("name, mode", TV_PNG_CASES)
def test_decode_png_matches_torchvision(name, mode):
    theirs = tv.io.decode_png(torch.frombuffer(bytearray(PNGS[name]), dtype=torch.uint8),
                              getattr(tv.io.ImageReadMode, mode))
    ours = vio.decode_png(as_tensor(PNGS[name]), mode)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def jpeg_bytes(kind, quality=80, subsampling="4:2:0", progressive=False):
    arr = smooth(21, 26, 3, seed=1)
    img = Image.fromarray(arr if kind == "RGB" else arr[..., 0])
    return encoded(img, "JPEG", quality=quality, subsampling=subsampling, progressive=progressive)


@pytest.mark.parametrize("kind", ["RGB", "L"])
@pytest.mark.parametrize("options", [{}, {"subsampling": "4:4:4", "quality": 95}, {"progressive": True}])
def test_decode_jpeg(kind, options):
    data = jpeg_bytes(kind, **options)
    pil = Image.open(io.BytesIO(data))
    unchanged = vio.decode_jpeg(as_tensor(data))
    np.testing.assert_array_equal(unchanged.numpy(), np.atleast_3d(np.asarray(pil)).transpose(2, 0, 1))
    rgb = vio.decode_jpeg(as_tensor(data), mode=vio.ImageReadMode.RGB)
    np.testing.assert_array_equal(rgb.numpy(), np.asarray(pil.convert("RGB")).transpose(2, 0, 1))
    gray = vio.decode_jpeg(as_tensor(data), mode="gray").numpy()
    assert gray.shape == (1, 21, 26)
    if kind == "L":
        np.testing.assert_array_equal(gray, unchanged.numpy())
    else:  # the decoder's luma channel: within rounding of the BT.601 luma of the decoded RGB
        luma = np.asarray(pil.convert("RGB")).astype(float) @ [0.299, 0.587, 0.114]
        assert np.abs(gray[0] - luma).max() <= 3
    if HAS_TV_IO:
        t = torch.frombuffer(bytearray(data), dtype=torch.uint8)
        for mode in ("UNCHANGED", "GRAY", "RGB"):
            np.testing.assert_array_equal(vio.decode_jpeg(as_tensor(data), mode).numpy(),
                                          tv.io.decode_jpeg(t, getattr(tv.io.ImageReadMode, mode)).numpy())


def test_decode_jpeg_lists_and_refusals():
    data = as_tensor(jpeg_bytes("RGB"))
    both = vio.decode_jpeg([data, data])
    assert len(both) == 2 and both[0].numpy().tobytes() == both[1].numpy().tobytes()
    with pytest.raises(RuntimeError, match="The provided mode is not supported for JPEG files"):
        vio.decode_jpeg(data, vio.ImageReadMode.RGB_ALPHA)
    with pytest.raises(RuntimeError, match="Not a JPEG file: starts with 0x89 0x50"):
        vio.decode_jpeg(as_tensor(PNGS["L"]))


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("level", [0, 6, 9])
def test_encode_png_round_trips(channels, level):
    x = npgrad.from_numpy(smooth(7, 5, channels).transpose(2, 0, 1).copy())
    data = vio.encode_png(x, compression_level=level)
    assert data.dtype == npgrad.uint8 and data.dim() == 1
    np.testing.assert_array_equal(np.atleast_3d(np.asarray(Image.open(io.BytesIO(data.numpy().tobytes())))),
                                  x.numpy().transpose(1, 2, 0))
    if HAS_TV_IO:
        np.testing.assert_array_equal(tv.io.decode_png(torch.from_numpy(data.numpy())).numpy(), x.numpy())


def sampling_factors(jpeg):
    """The (h, v) sampling factor bytes of each component, read from the SOF0 marker."""
    at = jpeg.index(b"\xff\xc0")
    count = jpeg[at + 9]
    return [jpeg[at + 11 + 3 * i] for i in range(count)]


@pytest.mark.parametrize("quality", [10, 75, 100])
@pytest.mark.parametrize("channels", [3, 1])
def test_encode_jpeg_is_libjpegs_default_encoding(quality, channels):
    arr = smooth(16, 24, 3)[..., :channels]
    chw = arr.transpose(2, 0, 1).copy()
    ours = vio.encode_jpeg(npgrad.from_numpy(chw), quality=quality).numpy().tobytes()
    # libjpeg's defaults: 2x2 luma sampling (4:2:0) for colour, 1x1 for a lone gray component
    assert sampling_factors(ours) == ([0x22, 0x11, 0x11] if channels == 3 else [0x11])
    pil = Image.fromarray(arr if channels == 3 else arr[..., 0])
    assert ours == encoded(pil, "JPEG", quality=quality, **({"subsampling": "4:2:0"} if channels == 3 else {}))
    if HAS_TV_IO:
        assert ours == tv.io.encode_jpeg(torch.from_numpy(chw), quality=quality).numpy().tobytes()
    pair = vio.encode_jpeg([npgrad.from_numpy(chw)] * 2, quality=quality)
    assert [p.numpy().tobytes() for p in pair] == [ours, ours]


def gif_frames(kind, n=3):
    base = smooth(12, 15, 3, seed=2)
    frames = []
    for i in range(n):
        c = np.roll(base, i, 1) if kind == "full" else base.copy()
        if kind == "hole":
            c[1:6, 2 + i:9 + i] = 0
        frames.append(Image.fromarray(c).convert("P", palette=Image.ADAPTIVE, colors=16))
    return frames


def gif_bytes(frames, **options):
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=len(frames) > 1, append_images=frames[1:], **options)
    return buf.getvalue()


def test_decode_gif_frames_and_transparency():
    frames = gif_frames("full")
    still = vio.decode_gif(as_tensor(gif_bytes(frames[:1])))
    np.testing.assert_array_equal(still.numpy(), np.asarray(frames[0].convert("RGB")).transpose(2, 0, 1))
    anim = vio.decode_image(as_tensor(gif_bytes(frames, duration=40)), mode="GRAY")  # GIFs are always RGB
    assert tuple(anim.shape) == (3, 3, 12, 15)
    for got, frame in zip(anim.numpy(), frames):
        np.testing.assert_array_equal(got, np.asarray(frame.convert("RGB")).transpose(2, 0, 1))
    # a transparent pixel of the first frame shows the background colour (palette entry 0 here)
    data = gif_bytes(frames[:1], transparency=3)
    clear = np.asarray(frames[0]) == 3
    assert clear.any()
    got = vio.decode_gif(as_tensor(data)).numpy()
    palette = np.array(frames[0].getpalette()[:3])
    assert (got[:, clear] == palette[:, None]).all()
    with pytest.raises(RuntimeError, match="Content is not gif"):
        vio.decode_gif(as_tensor(PNGS["L"]))


@needs_tv_io
@pytest.mark.parametrize("kind", ["full", "hole"])
@pytest.mark.parametrize("disposal", [0, 1, 2])  # torchvision treats 3 ("restore to previous") like 1
@pytest.mark.parametrize("transparency", [None, 2])
def test_decode_gif_matches_torchvision(kind, disposal, transparency):
    options = {"duration": 40, "disposal": disposal, **({"transparency": transparency} if transparency is not None
                                                         else {})}
    data = gif_bytes(gif_frames(kind, 4), **options)
    np.testing.assert_array_equal(vio.decode_gif(as_tensor(data)).numpy(),
                                  tv.io.decode_gif(torch.frombuffer(bytearray(data), dtype=torch.uint8)).numpy())


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("lossless", [True, False])
def test_decode_webp(channels, lossless):
    arr = smooth(10, 12, channels, seed=3)
    data = encoded(Image.fromarray(arr), "WEBP", lossless=lossless, quality=80)
    pil = np.asarray(Image.open(io.BytesIO(data)))
    if lossless:
        np.testing.assert_array_equal(pil, arr)
    for mode, want in (("UNCHANGED", pil), ("GRAY", pil), ("RGB", pil[..., :3]),
                       ("RGB_ALPHA", pil if channels == 4 else np.dstack([pil, np.full(pil.shape[:2], 255, np.uint8)]))):
        got = vio.decode_webp(as_tensor(data), mode)
        np.testing.assert_array_equal(got.numpy(), want.transpose(2, 0, 1))
        if HAS_TV_IO:
            theirs = tv.io.decode_webp(torch.frombuffer(bytearray(data), dtype=torch.uint8),
                                       getattr(tv.io.ImageReadMode, mode))
            np.testing.assert_array_equal(got.numpy(), theirs.numpy())


@pytest.mark.parametrize("call, error, match", [
    (lambda: vio.encode_png(npgrad.zeros(3, 2, 2)), RuntimeError, "Input tensor dtype should be uint8"),
    (lambda: vio.encode_png(npgrad.zeros(2, 2, dtype=npgrad.uint8)), RuntimeError, "dimension should be 3"),
    (lambda: vio.encode_jpeg(npgrad.zeros(4, 2, 2, dtype=npgrad.uint8)), RuntimeError,
     "The number of channels should be 1 or 3, got: 4"),
    (lambda: vio.encode_jpeg(npgrad.zeros(3, 2, 2, dtype=npgrad.uint8), quality=0), ValueError,
     "Image quality should be a positive number between 1 and 100"),
    (lambda: vio.encode_jpeg([]), ValueError, "requires at least one input tensor"),
    (lambda: vio.encode_png(npgrad.zeros(1, 2, 2, dtype=npgrad.uint8), 10), RuntimeError,
     "Compression level should be between 0 and 9"),
    (lambda: vio.decode_png(npgrad.zeros(4)), RuntimeError, "Expected a torch.uint8 tensor"),
    (lambda: vio.decode_image(npgrad.zeros(0, dtype=npgrad.uint8)), RuntimeError,
     "Expected a non empty 1-dimensional tensor"),
    (lambda: vio.decode_png(as_tensor(b"GIF89a....")), RuntimeError, "Content is not png"),
    (lambda: vio.decode_image(as_tensor(b"BM not an image")), RuntimeError, "Unsupported image file"),
    (lambda: vio.decode_png(as_tensor(PNGS["RGB"][:40])), RuntimeError, "Out of bound read in decode_png"),
    (lambda: vio.decode_jpeg(as_tensor(jpeg_bytes("RGB")[:300])), RuntimeError, "Image is incomplete or truncated"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_files_and_paths(tmp_path):
    x = npgrad.from_numpy(smooth(6, 4, 3).transpose(2, 0, 1).copy())
    vio.write_png(x, str(tmp_path / "a.png"))
    assert vio.read_file(tmp_path / "a.png").numpy().tobytes() == (tmp_path / "a.png").read_bytes()
    np.testing.assert_array_equal(vio.read_image(str(tmp_path / "a.png")).numpy(), x.numpy())
    np.testing.assert_array_equal(vio.decode_image(tmp_path / "a.png", mode="RGBA").numpy()[3], 255)
    vio.write_jpeg(x, tmp_path / "a.jpg", quality=90)
    assert vio.read_image(tmp_path / "a.jpg", vio.ImageReadMode.GRAY).shape == (1, 6, 4)
    vio.write_file(tmp_path / "copy.bin", vio.read_file(tmp_path / "a.jpg"))
    assert (tmp_path / "copy.bin").read_bytes() == (tmp_path / "a.jpg").read_bytes()
    webp = tmp_path / "a.webp"
    Image.fromarray(smooth(6, 4, 4)).save(webp, lossless=True)
    np.testing.assert_array_equal(vio.read_image(webp).numpy().transpose(1, 2, 0), np.asarray(Image.open(webp)))
    with pytest.raises(RuntimeError, match=r"\[Errno 2\] No such file or directory: '.*nope.png'"):
        vio.read_image(tmp_path / "nope.png")


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_exif_orientation(fmt):
    arr = smooth(5, 8, 3)
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to view"
    data = encoded(Image.fromarray(arr), fmt, exif=exif.tobytes(), **({"quality": 95} if fmt == "JPEG" else {}))
    stored = vio.decode_image(as_tensor(data)).numpy()
    turned = vio.decode_image(as_tensor(data), apply_exif_orientation=True).numpy()
    assert stored.shape == (3, 5, 8) and turned.shape == (3, 8, 5)
    np.testing.assert_array_equal(turned, np.rot90(stored, k=-1, axes=(1, 2)))


def test_read_modes_are_torchvisions():
    assert {m.name: m.value for m in vio.ImageReadMode} == {"UNCHANGED": 0, "GRAY": 1, "GRAY_ALPHA": 2, "RGB": 3,
                                                            "RGB_ALPHA": 4}
    assert vio.ImageReadMode.RGBA is vio.ImageReadMode.RGB_ALPHA
    if HAS_TV:
        assert {k: v.value for k, v in vio.ImageReadMode.__members__.items()} == \
            {k: v.value for k, v in tv.io.ImageReadMode.__members__.items()}


def test_pillow_and_scipy_are_imported_only_inside_functions():
    import ast
    import npgrad.vision
    root = pathlib.Path(npgrad.vision.__file__).parent
    files = [root / "utils.py", *sorted((root / "io").glob("*.py")), *sorted((root / "datasets").glob("*.py"))]
    for path in files:
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
        names += [n.module for n in top if isinstance(n, ast.ImportFrom) and n.module and not n.level]
        assert not [m for m in names if m.split(".")[0] in ("PIL", "scipy")], (path, names)
