"""Training curves: a PNG drawn by matplotlib when it is installed, else the numbers as CSV.

``save_curves(path, panels)`` draws one panel per entry of ``panels``, side by side, and writes a PNG
to ``path``. Without matplotlib it writes the same curves to ``path`` with a ``.csv`` suffix instead,
so npgrad itself still depends on NumPy alone; it returns the path it wrote.

A panel is a dict::

    {"title": "loss", "xlabel": "epoch",
     "series": [{"label": "train", "x": [...], "y": [...]},
                {"label": "test", "x": [...], "y": [...], "marker": True}]}

The CSV has one row per x value (the union over all series, ascending) and one column per series,
named ``"<title>/<label>"``; a series with no point at a row's x leaves that cell empty.
"""
import csv
import os

from .._optional import require

__all__ = ["save_curves"]


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


def _save_matplotlib(path, panels, panel_size, title=None):
    FigureCanvasAgg = require("matplotlib.backends.backend_agg", "curves.png").FigureCanvasAgg
    Figure = require("matplotlib.figure", "curves.png").Figure

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
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, format="png")


def _save_csv(path, panels):
    columns, by_x = [], {}
    for p in panels:
        for s in p.get("series", []):
            name = "/".join(str(part) for part in (p.get("title"), s.get("label")) if part) or f"y{len(columns)}"
            for x, y in zip(s["x"], s["y"]):
                by_x.setdefault(float(x), {})[len(columns)] = float(y)
            columns.append(name)
    xlabel = next((p["xlabel"] for p in panels if p.get("xlabel")), "x")
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow([xlabel] + columns)
        for x in sorted(by_x):
            row = by_x[x]
            out.writerow([repr(x)] + [repr(row[i]) if i in row else "" for i in range(len(columns))])


def save_curves(path, panels, backend="auto", panel_size=(480, 400), title=None):
    """Draw ``panels`` (see the module doc) side by side and write them to ``path`` as a PNG.

    ``backend``: ``"matplotlib"`` (an ImportError without it), ``"csv"`` (the numbers, to ``path`` with
    its suffix replaced by ``.csv``) or ``"auto"`` (matplotlib when it can be imported, else CSV).
    ``title``: one line above the panels of the PNG (the CSV holds numbers only). Returns the path written.
    """
    if backend not in ("auto", "matplotlib", "csv"):
        raise ValueError(f"save_curves: backend must be 'auto', 'matplotlib' or 'csv', got {backend!r}")
    panels = _check_panels(panels)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if backend != "csv":
        try:
            _save_matplotlib(path, panels, panel_size, title)
            return path
        except ImportError:
            if backend == "matplotlib":
                raise
    csv_path = os.path.splitext(path)[0] + ".csv"
    _save_csv(csv_path, panels)
    return csv_path
