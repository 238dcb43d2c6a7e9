"""Image kernels on NumPy arrays laid out (..., C, H, W), the tensor half of ``transforms.functional``.

Integer images are worked on in float32 and cast back the way torchvision's tensor kernels do (truncation
after a blend, rounding after a resample or a convolution), so uint8 results land on the same integers.
"""
import math

import numpy as np

from ._resample import resample

f32 = np.float32


def max_value(dt):
    if dt.kind == "f":
        return 1.0
    if dt.kind == "b":
        return 1
    return int(np.iinfo(dt).max)


def is_float(a):
    return a.dtype.kind == "f"


def channels(a):
    return 1 if a.ndim == 2 else a.shape[-3]


def check_channels(a, allowed):
    c = channels(a)
    if c not in allowed:
        raise TypeError(f"Input image tensor permitted channel values are {allowed}, but found {c}")


def to_work(a):
    """float copy to compute in (float32 for every non-float dtype) and the dtype to return."""
    return (a if is_float(a) else a.astype(f32)), a.dtype


def from_work(out, dt, rounding):
    if dt.kind == "f":
        return out.astype(dt, copy=False)
    if rounding:
        out = np.round(out)
    return cast_float(out, dt)


def cast_float(x, dt):
    """float -> integer with C truncation, as a tensor ``.to(uint8)`` does for in-range values."""
    if dt.kind == "b":
        return x != 0
    with np.errstate(invalid="ignore", over="ignore"):
        return np.trunc(x).astype(np.int64).astype(dt) if dt.kind in "ui" else x.astype(dt)


# ---------------------------------------------------------------- dtype conversion


def convert_dtype(a, dt):
    if a.dtype == dt:
        return a
    if is_float(a):
        if dt.kind == "f":
            return a.astype(dt)
        if (a.dtype == np.float32 and dt in (np.int32, np.int64)) or (a.dtype == np.float64 and dt == np.int64):
            return None  # unsafe: caller raises torchvision's message
        top = float(np.iinfo(dt).max)
        return cast_float(a * a.dtype.type(top + 1.0 - 1e-3), dt)
    top_in = max_value(a.dtype)
    if dt.kind == "f":
        return (a.astype(dt) / dt.type(top_in)).astype(dt)
    top_out = max_value(dt)
    if top_in > top_out:
        factor = (top_in + 1) // (top_out + 1)
        return (a // factor).astype(dt)
    factor = (top_out + 1) // (top_in + 1)
    return a.astype(dt) * dt.type(factor)


# ---------------------------------------------------------------- geometry


def pad(a, left, top, right, bottom, fill, mode):
    if min(left, top, right, bottom) < 0:
        h, w = a.shape[-2:]
        a = a[..., max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]
        left, top, right, bottom = (max(p, 0) for p in (left, top, right, bottom))
    widths = [(0, 0)] * (a.ndim - 2) + [(top, bottom), (left, right)]
    if mode == "constant":
        if a.dtype.kind in "ui":
            value = cast_float(np.float32(fill), a.dtype)
        else:
            value = a.dtype.type(fill)
        return np.pad(a, widths, mode="constant", constant_values=value)
    if mode == "reflect":
        h, w = a.shape[-2:]
        # PyTorch reports on the 4-d (N, C, H, W) view torchvision pads through
        view = [1] * max(4 - a.ndim, 0) + [int(np.prod(a.shape[:-3]))] * (a.ndim > 4) + list(a.shape[-min(a.ndim, 4):])
        for arg, dim, (lo, hi), size in ((4, 3, (left, right), w), (6, 2, (top, bottom), h)):
            if lo >= size or hi >= size:
                raise RuntimeError(
                    f"Argument #{arg}: Padding size should be less than the corresponding input dimension, but got: "
                    f"padding ({lo}, {hi}) at dimension {dim} of input {view}")
    return np.pad(a, widths, mode={"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}[mode])


def crop(a, top, left, height, width):
    h, w = a.shape[-2:]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        a = pad(a, max(-left, 0), max(-top, 0), max(right - w, 0), max(bottom - h, 0), 0, "constant")
        top, left = max(top, 0), max(left, 0)
    return a[..., top:top + height, left:left + width]


def resize(a, size, mode, antialias):
    work, dt = to_work(a)
    lead = work.shape[:-2]
    flat = work.reshape((-1,) + work.shape[-2:])
    out = resample(flat, size, mode, antialias).reshape(lead + tuple(size))
    if mode == "bicubic" and dt == np.uint8:
        out = np.clip(out, 0, 255)
    return from_work(out, dt, rounding=True)


def _grid_sample(work, gx, gy, mode):
    """Sample (N, C, H, W) ``work`` at unnormalised-by-us grid coords (align_corners=False, zeros outside)."""
    n, c, h, w = work.shape
    sx = (gx + f32(1)) * f32(w / 2) - f32(0.5)
    sy = (gy + f32(1)) * f32(h / 2) - f32(0.5)
    if mode == "nearest":
        ix = np.rint(sx).astype(np.int64)
        iy = np.rint(sy).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        vals = work[:, :, np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]
        return np.where(inside, vals, f32(0)).astype(f32)
    x0 = np.floor(sx)
    y0 = np.floor(sy)
    fx = (sx - x0).astype(f32)
    fy = (sy - y0).astype(f32)
    x0 = x0.astype(np.int64)
    y0 = y0.astype(np.int64)
    out = np.zeros((n, c) + gx.shape, f32)
    for dy, wy in ((0, f32(1) - fy), (1, fy)):
        for dx, wx in ((0, f32(1) - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
            vals = work[:, :, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
            out = out + np.where(inside, vals * (wx * wy), f32(0))
    return out


def grid_transform(a, gx, gy, mode, fill):
    """Sample ``a`` at normalised coords (gx, gy), each (oh, ow), filling outside with ``fill`` (None: zeros)."""
    work, dt = to_work(a)
    lead = work.shape[:-3] if work.ndim > 2 else ()
    flat = work.reshape((-1,) + work.shape[-3:]) if work.ndim > 2 else work[None, None]
    if fill is not None:
        flat = np.concatenate([flat, np.ones_like(flat[:, :1])], axis=1)
    out = _grid_sample(flat.astype(f32), gx, gy, mode)
    if fill is not None:
        mask = out[:, -1:]
        out = out[:, :-1]
        values = np.asarray(fill, dtype=f32).reshape(-1, 1, 1)
        if values.size not in (1, out.shape[1]):
            raise ValueError(f"The number of elements in 'fill' does not match the number of channels of the "
                             f"image ({values.size} != {out.shape[1]})")
        if mode == "nearest":
            out = np.where(mask < 0.5, values, out)
        else:
            out = out * mask + (f32(1) - mask) * values
    out = out.astype(work.dtype, copy=False)
    out = out.reshape(lead + out.shape[-3:]) if a.ndim > 2 else out[0, 0]
    return from_work(out, dt, rounding=True)


def _base_grid(xs, ys):
    """(h*w, 3) rows of (x, y, 1): the points a grid transform maps."""
    base = np.empty((ys.size, xs.size, 3), f32)
    base[..., 0] = xs
    base[..., 1] = ys[:, None]
    base[..., 2] = 1
    return base.reshape(-1, 3)


def affine_grid(theta, w, h, ow, oh):
    """Normalised sampling coords for an output (oh, ow) under the inverse map ``theta`` (2x3, pixel units
    about the image centre)."""
    xs = (np.arange(ow, dtype=f32) - f32(ow * 0.5) + f32(0.5))
    ys = (np.arange(oh, dtype=f32) - f32(oh * 0.5) + f32(0.5))
    t = np.asarray(theta, f32).reshape(2, 3).T / np.array([0.5 * w, 0.5 * h], f32)
    # one float32 product through BLAS, as torchvision's grid is: nearest sampling at a half-pixel tie
    # follows the last bit, and BLAS's fused multiply-adds round differently from three separate passes
    g = (_base_grid(xs, ys) @ t).reshape(oh, ow, 2)
    return g[..., 0], g[..., 1]


def perspective_grid(coeffs, w, h):
    c = np.asarray(coeffs, np.float64).astype(f32)
    xs = np.arange(w, dtype=f32) + f32(0.5)
    ys = np.arange(h, dtype=f32) + f32(0.5)
    base = _base_grid(xs, ys)
    num = base @ (c[:6].reshape(2, 3).T / np.array([0.5 * w, 0.5 * h], f32))
    den = base @ np.array([[c[6], c[6]], [c[7], c[7]], [1, 1]], f32)
    g = (num / den - f32(1)).reshape(h, w, 2)
    return g[..., 0], g[..., 1]


def affine_output_size(matrix, w, h):
    corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                        [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], f32)
    pts = corners @ np.asarray(matrix, f32).reshape(2, 3).T
    tol = f32(1e-4)
    # measured from the top-left corner, as PIL's expand=True sizes the canvas
    origin = np.array([0.5 * w, 0.5 * h], f32)
    hi = np.ceil(np.trunc((pts.max(0) + origin) / tol) * tol)
    lo = np.floor(np.trunc((pts.min(0) + origin) / tol) * tol)
    size = hi - lo
    return int(size[0]), int(size[1])


# ---------------------------------------------------------------- colour


def blend(a, b, ratio):
    top = max_value(a.dtype)
    r = float(ratio)
    mixed = f32(r) * a.astype(f32) + f32(1.0 - r) * np.asarray(b, f32) if not is_float(a) else \
        a.dtype.type(r) * a + a.dtype.type(1.0 - r) * np.asarray(b, a.dtype)
    mixed = np.clip(mixed, 0, top)
    return mixed.astype(a.dtype) if is_float(a) else cast_float(mixed, a.dtype)


def grayscale(a, out_channels):
    if channels(a) == 1:
        return a.copy()
    r, g, b = (a[..., i, :, :] for i in range(3))
    if is_float(a):
        t = a.dtype.type
        lum = (t(0.2989) * r + t(0.587) * g + t(0.114) * b).astype(a.dtype)
    else:
        lum = cast_float(f32(0.2989) * r + f32(0.587) * g + f32(0.114) * b, a.dtype)
    lum = lum[..., None, :, :]
    return np.broadcast_to(lum, lum.shape[:-3] + (out_channels,) + lum.shape[-2:]).copy()


def _mean_image(a):
    dt = a.dtype if is_float(a) else np.dtype(f32)
    src = grayscale(a, 1) if channels(a) == 3 else a
    n = src.shape[-1] * src.shape[-2] * (src.shape[-3] if src.ndim > 2 else 1)
    axes = (-3, -2, -1) if src.ndim > 2 else (-2, -1)
    total = src.astype(np.float64).sum(axis=axes, keepdims=True).astype(dt)
    return total / dt.type(n)


def contrast(a, factor):
    return blend(a, _mean_image(a), factor)


def saturation(a, factor):
    if channels(a) == 1:
        return a
    return blend(a, grayscale(a, 1), factor)


def _rgb_to_hsv(x):
    r, g, b = x[..., 0, :, :], x[..., 1, :, :], x[..., 2, :, :]
    hi = np.maximum(np.maximum(r, g), b)
    lo = np.minimum(np.minimum(r, g), b)
    same = hi == lo
    spread = hi - lo
    one = x.dtype.type(1)
    sat = spread / np.where(same, one, hi)
    safe = np.where(same, one, spread)
    rc, gc, bc = (hi - r) / safe, (hi - g) / safe, (hi - b) / safe
    hue = np.where(hi == r, bc - gc, 0)
    hue = hue + np.where((hi == g) & (hi != r), x.dtype.type(2.0) + rc - bc, 0)
    hue = hue + np.where((hi != g) & (hi != r), x.dtype.type(4.0) + gc - rc, 0)
    hue = np.fmod(hue / x.dtype.type(6.0) + one, one)
    return hue.astype(x.dtype), sat.astype(x.dtype), hi


def _hsv_to_rgb(h, s, v):
    t = h.dtype.type
    sector = np.floor(h * t(6.0))
    frac = h * t(6.0) - sector
    sector = sector.astype(np.int64) % 6
    p = np.clip(v * (t(1.0) - s), 0.0, 1.0)
    q = np.clip(v * (t(1.0) - s * frac), 0.0, 1.0)
    u = np.clip(v * (t(1.0) - s * (t(1.0) - frac)), 0.0, 1.0)
    table = [(v, u, p), (q, v, p), (p, v, u), (p, q, v), (u, p, v), (v, p, q)]
    chans = []
    for ch in range(3):
        out = np.zeros_like(v)
        for k, combo in enumerate(table):
            out = np.where(sector == k, combo[ch], out)
        chans.append(out)
    return np.stack(chans, axis=-3).astype(h.dtype)


def hue(a, factor):
    if channels(a) == 1:
        return a
    dt = a.dtype
    x = convert_dtype(a, np.dtype(f32)) if not is_float(a) else a
    h, s, v = _rgb_to_hsv(x)
    h = np.fmod(h + h.dtype.type(factor), h.dtype.type(1.0))
    h = np.where(h < 0, h + h.dtype.type(1.0), h).astype(x.dtype)
    out = _hsv_to_rgb(h, s, v)
    return convert_dtype(out, dt) if dt != out.dtype else out


def gamma(a, g, gain):
    dt = a.dtype
    x = a if is_float(a) else convert_dtype(a, np.dtype(f32))
    t = x.dtype.type
    out = np.clip(t(gain) * np.power(x, t(g)), 0, 1).astype(x.dtype)
    return out if dt == out.dtype else convert_dtype(out, dt)


def _depthwise(work, kernel):
    """'valid' correlation of (N, C, H, W) with one 2-d kernel, summed in float64."""
    kh, kw = kernel.shape
    h, w = work.shape[-2:]
    acc = np.zeros(work.shape[:-2] + (h - kh + 1, w - kw + 1), np.float64)
    for i in range(kh):
        for j in range(kw):
            acc += float(kernel[i, j]) * work[..., i:i + h - kh + 1, j:j + w - kw + 1]
    return acc.astype(work.dtype)


def sharpness(a, factor):
    if a.shape[-1] <= 2 or a.shape[-2] <= 2:
        return a
    work, dt = to_work(a)
    k = np.ones((3, 3), work.dtype)
    k[1, 1] = 5
    k = k / k.sum()
    smooth = _depthwise(work, k)
    if not is_float(a):
        smooth = np.round(smooth)
    degenerate = a.copy()
    degenerate[..., 1:-1, 1:-1] = smooth.astype(dt) if dt.kind == "f" else cast_float(smooth, dt)
    return blend(a, degenerate, factor)


def gaussian_kernel(size, sigma, dtype):
    half = (size - 1) * 0.5
    x = np.linspace(-half, half, size).astype(dtype)
    pdf = np.exp(-0.5 * (x / dtype.type(sigma)) ** 2)
    return (pdf / pdf.sum()).astype(dtype)


def gaussian_blur(a, ksize, sigma):
    work, dt = to_work(a)
    kx = gaussian_kernel(ksize[0], sigma[0], work.dtype)
    ky = gaussian_kernel(ksize[1], sigma[1], work.dtype)
    kernel = np.outer(ky, kx).astype(work.dtype)
    px, py = ksize[0] // 2, ksize[1] // 2
    padded = pad(work, px, py, px, py, 0, "reflect")
    return from_work(_depthwise(padded, kernel), dt, rounding=True)


def invert(a):
    if a.dtype.kind == "b":
        return ~a
    top = max_value(a.dtype)
    return (a.dtype.type(top) - a).astype(a.dtype)


def solarize(a, threshold):
    return np.where(a >= threshold, invert(a), a)


def autocontrast(a):
    top = max_value(a.dtype)
    dt = a.dtype if is_float(a) else np.dtype(f32)
    lo = a.min(axis=(-2, -1), keepdims=True).astype(dt)
    hi = a.max(axis=(-2, -1), keepdims=True).astype(dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        # scalar / tensor is a reciprocal then a product in PyTorch; the rounding of that is what matches
        scale = (dt.type(1) / (hi - lo)) * dt.type(top)
    flat = ~np.isfinite(scale)
    lo = np.where(flat, 0, lo).astype(dt)
    scale = np.where(flat, 1, scale).astype(dt)
    out = np.clip((a - lo) * scale, 0, top)
    return out.astype(a.dtype) if is_float(a) else cast_float(out, a.dtype)


def _equalize_plane(plane):
    counts = np.bincount(plane.ravel(), minlength=256)
    used = counts[counts != 0]
    step = int(used[:-1].sum()) // 255
    if step == 0:
        return plane
    lut = (np.cumsum(counts) + step // 2) // step
    lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255).astype(np.uint8)
    return lut[plane]


def equalize(a):
    planes = a.reshape((-1,) + a.shape[-2:])
    return np.stack([_equalize_plane(p) for p in planes]).reshape(a.shape)
