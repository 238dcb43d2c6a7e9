"""``repr(tensor)`` in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``."""
import numpy as np

from . import dtypes as _dt

_THRESHOLD, _EDGEITEMS, _LINEWIDTH = 1000, 3, 80


def _float_formatter(arr):
    finite = arr[np.isfinite(arr)].astype(np.float64)
    if finite.size == 0:
        fmt = "{:.4f}"
    else:
        amax = np.abs(finite).max()
        nonzero = np.abs(finite[finite != 0])
        amin = nonzero.min() if nonzero.size else 0.0
        integral = np.all(finite == np.round(finite))
        if integral:
            fmt = "{:.4e}" if amax > 1e8 else "int"
        elif amax > 1e8 or (amin and (amin < 1e-4 or amax / amin > 1000)):
            fmt = "{:.4e}"
        else:
            fmt = "{:.4f}"

    def one(v):
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        if fmt == "int":
            return f"{v:.0f}."
        return fmt.format(v)

    shown = _summarized(arr)
    width = max((len(one(v)) for v in shown.flat), default=1)
    return lambda v: one(v).rjust(width)


def _summarized(arr):
    if arr.size <= _THRESHOLD:
        return arr
    e = _EDGEITEMS
    parts = arr
    for ax in range(arr.ndim):
        if parts.shape[ax] > 2 * e:
            parts = np.concatenate([np.take(parts, range(e), ax), np.take(parts, range(-e, 0), ax)], ax)
    return parts


def _body(arr):
    kind = arr.dtype.kind
    if kind == "f":
        formatter = {"float_kind": _float_formatter(arr)}
    elif kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        width = max((len(str(v)) for v in _summarized(arr).flat), default=1)
        formatter = {"int_kind": lambda v: str(v).rjust(width)}
    return np.array2string(arr, separator=", ", prefix="tensor(", formatter=formatter, threshold=_THRESHOLD,
                           edgeitems=_EDGEITEMS, max_line_width=_LINEWIDTH)


def tensor_repr(t):
    arr = t._data
    suffixes = []
    if arr.size == 0:
        body = "[]"
        if arr.shape != (0,):
            suffixes.append(f"size=({', '.join(str(s) for s in arr.shape)}{',' if arr.ndim == 1 else ''})")
    else:
        body = _body(arr if arr.ndim else arr.reshape(()))
    dt = _dt.from_numpy_dtype(arr.dtype)
    if dt not in (_dt.get_default_dtype(), _dt.int64, _dt.bool):
        suffixes.append(f"dtype={dt!r}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    sep = ",\n       " if "\n" in body else ", "
    return "tensor(" + body + "".join(sep + s for s in suffixes) + ")"
