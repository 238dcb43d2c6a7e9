"""``repr(tensor)`` in PyTorch's layout: ``tensor([1.0000, 2.5000], requires_grad=True)``.

The rules are PyTorch's, so printed output reads the same in both libraries:

* one format per tensor, chosen from its non-zero finite values: integers print as ``1.``; otherwise
  fixed ``1.2500`` unless the values span more than 1000x, exceed 1e8 or go below 1e-4, which gives
  scientific ``1.2500e-05``. Every element is right-aligned to the widest of those values (so ``nan``
  or ``-inf`` can stick out, exactly as in PyTorch);
* tensors over ``threshold`` elements show ``edgeitems`` rows/columns at each end around ``...``;
* rows wrap at ``linewidth`` characters; suffixes (``dtype=``, ``grad_fn=``) go on the last line when
  they fit, otherwise on a new line aligned under the opening bracket.
"""
import math

import numpy as np

from . import dtypes as _dt

__all__ = ["set_printoptions", "get_printoptions"]


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


_OPTS = _PrintOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """PyTorch's ``set_printoptions``: digits, summarisation threshold, edge items, line width."""
    if profile is not None:
        _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    return {"precision": _OPTS.precision, "threshold": _OPTS.threshold, "edgeitems": _OPTS.edgeitems,
            "linewidth": _OPTS.linewidth, "sci_mode": _OPTS.sci_mode}


class _Formatter:
    """One element format for a whole tensor, decided from the values that will be shown."""

    def __init__(self, shown):
        self.floating = shown.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        p = _OPTS.precision
        if not self.floating:
            for v in shown.flat:
                self.width = max(self.width, len(str(v)))
            return
        flat = shown.ravel()
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if vals.size == 0:
            return
        mags = np.abs(vals)
        lo, hi = mags.min(), mags.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if _OPTS.sci_mode is None \
            else _OPTS.sci_mode
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in vals.tolist())
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in vals.tolist())
        else:
            widths = (len(f"{v:.{p}f}") for v in vals.tolist())
        self.width = max(self.width, max(widths))

    def format(self, v):
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.width}.{_OPTS.precision}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if math.isfinite(v):
                    s += "."
            else:
                s = f"{v:.{_OPTS.precision}f}"
        else:
            s = str(v)
        return s.rjust(self.width)


class _ComplexFormatter:
    """PyTorch's complex layout: real and imaginary parts each get their own format (``1.0000+2.0000e-05j``)."""

    def __init__(self, shown):
        self.re, self.im = _Formatter(shown.real), _Formatter(shown.imag)
        self.width = self.re.width + self.im.width + 1  # the extra column is the ``j``

    def format(self, v):
        real = self.re.format(v.real)
        imag = (self.im.format(v.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _summarized(arr):
    """The elements a summarised print shows: ``edgeitems`` at both ends of every dimension."""
    e = _OPTS.edgeitems
    for axis, n in enumerate(arr.shape):
        if n > 2 * e:
            keep = list(range(e)) + list(range(n - e, n))
            arr = np.take(arr, keep, axis=axis)
    return arr


def _vector(arr, indent, summarize, fmt):
    per_line = max(1, int(math.floor((_OPTS.linewidth - indent) / (fmt.width + 2))))
    e = _OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * e:
        items = [fmt.format(v) for v in arr[:e].tolist()] + [" ..."] + \
                [fmt.format(v) for v in arr[-e:].tolist()]
    else:
        items = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(arr, indent, summarize, fmt):
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        return _vector(arr, indent, summarize, fmt)
    e = _OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * e:
        rows = [_nested(arr[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."] + \
               [_nested(arr[i], indent + 1, summarize, fmt) for i in range(n - e, n)]
    else:
        rows = [_nested(arr[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _body(arr, indent):
    if arr.dtype == np.float16 or arr.dtype in _dt.LOW_PRECISION_NP:
        arr = arr.astype(np.float32)  # as PyTorch: half, bfloat16 and float8 values are formatted through float
    summarize = arr.size > _OPTS.threshold
    fmt = (_ComplexFormatter if arr.dtype.kind == "c" else _Formatter)(_summarized(arr) if summarize else arr)
    return _nested(arr, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_len = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last_len + len(s) + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last_len = indent + len(s)
        else:
            parts.append(", " + s)
            last_len += len(s) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t):
    arr = t._data
    prefix = "tensor("
    indent = len(prefix)
    dt = _dt.from_numpy_dtype(arr.dtype)
    suffixes = []
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append("size=" + str(tuple(arr.shape)))
        # Nothing in an empty tensor shows its type, so anything but the default float is spelled out.
        if dt is not _dt.get_default_dtype():
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if dt not in (_dt.get_default_dtype(), _dt.default_complex_dtype(), _dt.int64, _dt.bool):
            suffixes.append(f"dtype={dt!r}")
        body = _body(arr, indent)
    fn = t._grad_fn
    if fn is not None:
        # As PyTorch prints the node's class name: CopySlices, not torch::autograd::CopySlices.
        suffixes.append(f"grad_fn=<{fn.name().rpartition('::')[2]}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
