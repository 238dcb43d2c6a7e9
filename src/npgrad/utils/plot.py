"""Line plots of training curves, saved as PNG with or without matplotlib.

``save_curves(path, panels)`` draws one panel per entry of ``panels``, side by side, and writes a PNG.
It uses matplotlib when it is installed (``backend="auto"``); otherwise it draws the picture itself
with NumPy (axes, grid, tick labels in a built-in 5x7 pixel font, lines, markers, legend) and encodes
it with ``zlib`` and ``struct``, so the PNG exists either way and npgrad still depends on NumPy alone.

A panel is a dict::

    {"title": "loss", "xlabel": "epoch",
     "series": [{"label": "train", "x": [...], "y": [...]},
                {"label": "test", "x": [...], "y": [...], "marker": True}]}

``write_png(path, image)`` and ``encode_png(image)`` are the encoder on its own (uint8 arrays of
shape (H, W), (H, W, 3) or (H, W, 4)).
"""
import math
import os
import struct
import zlib

import numpy as np

__all__ = ["save_curves", "render_curves", "encode_png", "write_png", "PNG_SIGNATURE"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# matplotlib's default colour cycle ("tab10"), so both backends colour the series alike.
_COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75)]


# -- PNG encoding --------------------------------------------------------------------------------------------
def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def encode_png(image):
    """The bytes of a PNG file holding ``image`` (uint8; (H, W) grey, (H, W, 3) RGB or (H, W, 4) RGBA)."""
    img = np.asarray(image)
    if img.dtype != np.uint8:
        raise TypeError(f"encode_png expects a uint8 image, got dtype {img.dtype}")
    if img.ndim == 2:
        img = img[:, :, None]
    if img.ndim != 3 or img.shape[2] not in (1, 3, 4) or img.shape[0] == 0 or img.shape[1] == 0:
        raise ValueError(f"encode_png expects an image of shape (H, W), (H, W, 3) or (H, W, 4), got {image.shape}")
    h, w, c = img.shape
    color_type = {1: 0, 3: 2, 4: 6}[c]
    # Each scanline starts with its filter type; 0 ("None") keeps the encoder trivial, and zlib still
    # shrinks a plot (mostly flat colour) to a few KB.
    raw = np.zeros((h, 1 + w * c), np.uint8)
    raw[:, 1:] = img.reshape(h, w * c)
    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)  # 8 bits, deflate, no filter set, no interlace
    return (PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
            + _chunk(b"IEND", b""))


def write_png(path, image):
    """Write ``image`` (see ``encode_png``) to ``path`` as a PNG file."""
    data = encode_png(image)
    with open(path, "wb") as f:
        f.write(data)
    return path


# -- a 5x7 pixel font ----------------------------------------------------------------------------------------
# Each glyph is 7 rows of 5 bits (the top bit is the leftmost pixel), written in hex.
_FONT_HEX = {
    "0": "0E 11 13 15 19 11 0E", "1": "04 0C 04 04 04 04 0E", "2": "0E 11 01 02 04 08 1F",
    "3": "1F 02 04 02 01 11 0E", "4": "02 06 0A 12 1F 02 02", "5": "1F 10 1E 01 01 11 0E",
    "6": "06 08 10 1E 11 11 0E", "7": "1F 01 02 04 08 08 08", "8": "0E 11 11 0E 11 11 0E",
    "9": "0E 11 11 0F 01 02 0C",
    "A": "0E 11 11 11 1F 11 11", "B": "1E 11 11 1E 11 11 1E", "C": "0E 11 10 10 10 11 0E",
    "D": "1C 12 11 11 11 12 1C", "E": "1F 10 10 1E 10 10 1F", "F": "1F 10 10 1E 10 10 10",
    "G": "0E 11 10 17 11 11 0F", "H": "11 11 11 1F 11 11 11", "I": "0E 04 04 04 04 04 0E",
    "J": "07 02 02 02 02 12 0C", "K": "11 12 14 18 14 12 11", "L": "10 10 10 10 10 10 1F",
    "M": "11 1B 15 15 11 11 11", "N": "11 11 19 15 13 11 11", "O": "0E 11 11 11 11 11 0E",
    "P": "1E 11 11 1E 10 10 10", "Q": "0E 11 11 11 15 12 0D", "R": "1E 11 11 1E 14 12 11",
    "S": "0F 10 10 0E 01 01 1E", "T": "1F 04 04 04 04 04 04", "U": "11 11 11 11 11 11 0E",
    "V": "11 11 11 11 11 0A 04", "W": "11 11 11 15 15 15 0A", "X": "11 11 0A 04 0A 11 11",
    "Y": "11 11 11 0A 04 04 04", "Z": "1F 01 02 04 08 10 1F",
    "a": "00 00 0E 01 0F 11 0F", "b": "10 10 16 19 11 11 1E", "c": "00 00 0E 10 10 11 0E",
    "d": "01 01 0D 13 11 11 0F", "e": "00 00 0E 11 1F 10 0E", "f": "06 09 08 1C 08 08 08",
    "g": "00 0F 11 11 0F 01 0E", "h": "10 10 16 19 11 11 11", "i": "04 00 0C 04 04 04 0E",
    "j": "02 00 06 02 02 12 0C", "k": "10 10 12 14 18 14 12", "l": "0C 04 04 04 04 04 0E",
    "m": "00 00 1A 15 15 11 11", "n": "00 00 16 19 11 11 11", "o": "00 00 0E 11 11 11 0E",
    "p": "00 00 1E 11 1E 10 10", "q": "00 00 0D 13 0F 01 01", "r": "00 00 16 19 10 10 10",
    "s": "00 00 0E 10 0E 01 1E", "t": "08 08 1C 08 08 09 06", "u": "00 00 11 11 11 13 0D",
    "v": "00 00 11 11 11 0A 04", "w": "00 00 11 11 15 15 0A", "x": "00 00 11 0A 04 0A 11",
    "y": "00 00 11 11 0F 01 0E", "z": "00 00 1F 02 04 08 1F",
    " ": "00 00 00 00 00 00 00", ".": "00 00 00 00 00 0C 0C", ",": "00 00 00 00 0C 04 08",
    "-": "00 00 00 1F 00 00 00", "+": "00 04 04 1F 04 04 00", "%": "18 19 02 04 08 13 03",
    ":": "00 0C 0C 00 0C 0C 00", "(": "02 04 08 08 08 04 02", ")": "08 04 02 02 02 04 08",
    "/": "00 01 02 04 08 10 00", "=": "00 00 1F 00 1F 00 00", "_": "00 00 00 00 00 00 1F",
    "?": "0E 11 01 02 04 00 04", "'": "04 04 08 00 00 00 00",
}
_GLYPH_W, _GLYPH_H = 5, 7
_FONT = {ch: np.array([[(int(row, 16) >> (4 - i)) & 1 for i in range(_GLYPH_W)] for row in rows.split()], bool)
         for ch, rows in _FONT_HEX.items()}


def _text_mask(text, scale):
    """A boolean bitmap of ``text``: glyphs 5x7 pixels plus one pixel of spacing, enlarged ``scale`` times."""
    if not text:
        return np.zeros((_GLYPH_H * scale, 0), bool)
    cols = []
    for ch in text:
        glyph = _FONT.get(ch, _FONT["?"])
        cols += [glyph, np.zeros((_GLYPH_H, 1), bool)]
    mask = np.concatenate(cols[:-1], axis=1)
    return np.kron(mask, np.ones((scale, scale), bool)).astype(bool)


def _text_width(text, scale):
    return max(0, len(text) * (_GLYPH_W + 1) - 1) * scale


class _Canvas:
    def __init__(self, height, width):
        self.img = np.full((height, width, 3), 255, np.uint8)
        self.h, self.w = height, width

    def fill(self, y0, y1, x0, x1, color):
        y0, y1 = max(0, int(y0)), min(self.h, int(y1))
        x0, x1 = max(0, int(x0)), min(self.w, int(x1))
        if y0 < y1 and x0 < x1:
            self.img[y0:y1, x0:x1] = color

    def text(self, text, x, y, color=(0, 0, 0), scale=2, anchor="left"):
        """Draw ``text`` with its top edge at ``y``; ``anchor`` says whether ``x`` is its left, centre or right."""
        mask = _text_mask(text, scale)
        h, w = mask.shape
        x = int(x - {"left": 0, "center": w // 2, "right": w}[anchor])
        y = int(y)
        ys, xs = np.nonzero(mask)
        ys, xs = ys + y, xs + x
        keep = (ys >= 0) & (ys < self.h) & (xs >= 0) & (xs < self.w)
        self.img[ys[keep], xs[keep]] = color

    def polyline(self, px, py, color, width=2):
        """Straight segments through the points (px, py) in pixel coordinates; non-finite points break the line."""
        px, py = np.asarray(px, float), np.asarray(py, float)
        xs, ys = [], []
        for i in range(len(px) - 1):
            a, b = (px[i], py[i]), (px[i + 1], py[i + 1])
            if not all(map(math.isfinite, a + b)):
                continue
            n = int(max(abs(b[0] - a[0]), abs(b[1] - a[1]))) + 2  # at least one sample per pixel stepped
            t = np.linspace(0.0, 1.0, n)
            xs.append(a[0] + t * (b[0] - a[0]))
            ys.append(a[1] + t * (b[1] - a[1]))
        if not xs:
            return np.zeros(0), np.zeros(0)
        xs, ys = np.concatenate(xs), np.concatenate(ys)
        self._stamp(xs, ys, color, width)
        return xs, ys

    def markers(self, px, py, color, size=7):
        px, py = np.asarray(px, float), np.asarray(py, float)
        ok = np.isfinite(px) & np.isfinite(py)
        self._stamp(px[ok], py[ok], color, size)

    def _stamp(self, xs, ys, color, size):
        # Each sample point paints a size x size square centred on it: a line `size` pixels thick.
        off = np.arange(size) - (size - 1) // 2
        xi = (np.rint(xs)[:, None, None] + off[None, None, :]).astype(np.int64)
        yi = (np.rint(ys)[:, None, None] + off[None, :, None]).astype(np.int64)
        xi, yi = np.broadcast_arrays(xi, yi)
        xi, yi = xi.ravel(), yi.ravel()
        keep = (xi >= 0) & (xi < self.w) & (yi >= 0) & (yi < self.h)
        self.img[yi[keep], xi[keep]] = color


# -- axes ----------------------------------------------------------------------------------------------------
def _nice_ticks(lo, hi, target=5):
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / target
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    v = first
    while v <= hi + 1e-9 * step:
        ticks.append(0.0 if abs(v) < 1e-12 * step else v)
        v = first + len(ticks) * step
    return ticks


def _tick_label(v, ticks):
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else abs(v) or 1.0
    big = max(abs(t) for t in ticks)
    if big >= 1e5 or (big < 1e-3 and big > 0):
        return f"{v:.1e}".replace("e-0", "e-").replace("e+0", "e")
    decimals = max(0, -int(math.floor(math.log10(step) + 1e-9))) if step > 0 else 0
    if step * 10 ** decimals % 1 > 1e-6:  # steps of 2.5 need one more digit
        decimals += 1
    return f"{v:.{decimals}f}"


def _limits(values, pad=0.05):
    vals = np.asarray([v for v in values if math.isfinite(v)], float)
    if vals.size == 0:
        return 0.0, 1.0
    lo, hi = float(vals.min()), float(vals.max())
    if hi == lo:
        d = abs(lo) * 0.05 or 0.5
        return lo - d, hi + d
    d = (hi - lo) * pad
    return lo - d, hi + d


def _draw_panel(cv, panel, left, top, width, height):
    """One panel (axes, grid, curves, legend, title) in the pixel box (left, top, width, height)."""
    black, grid = (0, 0, 0), (225, 225, 225)
    series = panel.get("series", [])
    # Room for tick labels on the left, the x label below, the title above.
    ax0, ax1 = left + 80, left + width - 16
    ay0, ay1 = top + 34, top + height - 56
    xs = [float(v) for s in series for v in s["x"]]
    ys = [float(v) for s in series for v in s["y"]]
    xlo, xhi = _limits(xs, pad=0.02)
    ylo, yhi = panel.get("ylim") or _limits(ys)

    def to_px(x, y):
        x, y = np.asarray(x, float), np.asarray(y, float)
        return (ax0 + (x - xlo) / (xhi - xlo) * (ax1 - ax0), ay1 - (y - ylo) / (yhi - ylo) * (ay1 - ay0))

    xticks, yticks = _nice_ticks(xlo, xhi), _nice_ticks(ylo, yhi)
    for t in yticks:
        py = int(round(to_px(xlo, t)[1]))
        cv.fill(py, py + 1, ax0, ax1, grid)
        cv.fill(py, py + 1, ax0 - 5, ax0, black)
        cv.text(_tick_label(t, yticks), ax0 - 9, py - 7, scale=2, anchor="right")
    for t in xticks:
        px = int(round(to_px(t, ylo)[0]))
        cv.fill(ay0, ay1, px, px + 1, grid)
        cv.fill(ay1, ay1 + 5, px, px + 1, black)
        cv.text(_tick_label(t, xticks), px, ay1 + 10, scale=2, anchor="center")
    # The frame, drawn over the grid.
    cv.fill(ay0, ay0 + 1, ax0, ax1 + 1, black)
    cv.fill(ay1, ay1 + 1, ax0, ax1 + 1, black)
    cv.fill(ay0, ay1 + 1, ax0, ax0 + 1, black)
    cv.fill(ay0, ay1 + 1, ax1, ax1 + 1, black)

    drawn_x, drawn_y = [], []  # every pixel a curve passes through, to keep the legend off them
    for i, s in enumerate(series):
        color = _COLORS[i % len(_COLORS)]
        px, py = to_px(s["x"], s["y"])
        drawn_x.append(px)
        drawn_y.append(py)
        if len(px) > 1:
            lx, ly = cv.polyline(px, py, color, width=2)
            drawn_x.append(lx)
            drawn_y.append(ly)
        if s.get("marker") or len(px) == 1:
            cv.markers(px, py, color, size=7)

    if panel.get("title"):
        cv.text(panel["title"], (ax0 + ax1) // 2, top + 8, scale=2, anchor="center")
    if panel.get("xlabel"):
        cv.text(panel["xlabel"], (ax0 + ax1) // 2, ay1 + 34, scale=2, anchor="center")

    labelled = [(i, s["label"]) for i, s in enumerate(series) if s.get("label")]
    if labelled:  # legend box in the upper right corner of the axes
        lw = max(_text_width(lab, 2) for _, lab in labelled) + 44
        lh = 20 * len(labelled) + 8
        dx, dy = np.concatenate(drawn_x), np.concatenate(drawn_y)
        corners = [(ax1 - 8 - lw, ay0 + 8), (ax0 + 8, ay0 + 8), (ax1 - 8 - lw, ay1 - 8 - lh), (ax0 + 8, ay1 - 8 - lh)]

        def covered(corner):  # how much of the curves the legend would hide in this corner
            x0, y0 = corner
            return int(np.count_nonzero((dx >= x0 - 4) & (dx <= x0 + lw + 4) & (dy >= y0 - 4) & (dy <= y0 + lh + 4)))

        bx0, by0 = min(corners, key=covered)  # min keeps the first corner on ties: upper right
        bx1 = bx0 + lw
        cv.fill(by0, by0 + lh, bx0, bx1, (200, 200, 200))
        cv.fill(by0 + 1, by0 + lh - 1, bx0 + 1, bx1 - 1, (255, 255, 255))
        for row, (i, lab) in enumerate(labelled):
            color = _COLORS[i % len(_COLORS)]
            cy = by0 + 14 + 20 * row
            cv.fill(cy - 1, cy + 1, bx0 + 8, bx0 + 30, color)
            cv.text(lab, bx0 + 36, cy - 7, scale=2)


def _check_panels(panels):
    if isinstance(panels, dict):
        panels = [panels]
    panels = list(panels)
    if not panels:
        raise ValueError("save_curves: no panels to draw")
    for p in panels:
        for s in p.get("series", []):
            if len(s["x"]) != len(s["y"]):
                raise ValueError(f"save_curves: series {s.get('label')!r} has {len(s['x'])} x values but "
                                 f"{len(s['y'])} y values")
    return panels


def render_curves(panels, panel_size=(480, 400)):
    """The picture ``save_curves`` writes without matplotlib, as a uint8 RGB array (H, W, 3)."""
    panels = _check_panels(panels)
    pw, ph = panel_size
    cv = _Canvas(ph, pw * len(panels))
    for i, panel in enumerate(panels):
        _draw_panel(cv, panel, i * pw, 0, pw, ph)
    return cv.img


def _save_matplotlib(path, panels, panel_size):
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional
    from matplotlib.figure import Figure  # optional

    dpi = 100
    # The object API, not pyplot: no global figure state, no GUI backend chosen behind the caller's back.
    fig = Figure(figsize=(panel_size[0] * len(panels) / dpi, panel_size[1] / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        for s in panel.get("series", []):
            ax.plot(s["x"], s["y"], label=s.get("label"), marker="o" if s.get("marker") or len(s["x"]) == 1 else None)
        ax.set_title(panel.get("title", ""))
        ax.set_xlabel(panel.get("xlabel", ""))
        if panel.get("ylim"):
            ax.set_ylim(*panel["ylim"])
        ax.grid(True, alpha=0.3)
        if any(s.get("label") for s in panel.get("series", [])):
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png")


def save_curves(path, panels, backend="auto", panel_size=(480, 400)):
    """Draw ``panels`` (see the module doc) side by side and write them to ``path`` as a PNG.

    ``backend``: ``"matplotlib"``, ``"numpy"`` (the built-in renderer) or ``"auto"`` (matplotlib when it
    can be imported). Returns the backend that drew the picture.
    """
    if backend not in ("auto", "matplotlib", "numpy"):
        raise ValueError(f"save_curves: backend must be 'auto', 'matplotlib' or 'numpy', got {backend!r}")
    panels = _check_panels(panels)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if backend in ("auto", "matplotlib"):
        try:
            _save_matplotlib(path, panels, panel_size)
            return "matplotlib"
        except ImportError:
            if backend == "matplotlib":
                raise
    write_png(path, render_curves(panels, panel_size))
    return "numpy"
