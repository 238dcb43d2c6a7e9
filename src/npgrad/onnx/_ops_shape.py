"""Shapes and movement: reshape, transpose, expand, cat/stack/split, indexing, flips and pads, gathers, and
the writes of in-place operators."""
import numpy as np

from ._graph import export_error
from ._table import INT_MAX, INT_MIN, _dynamic_dims, _out_dtype, _shape, emits

@emits("Reshape")
def _reshape(g, s):
    x = s.args[0]
    target = list(s.outs[0].shape)
    dyn = _dynamic_dims(s)
    if dyn:
        in1, in2 = _shape(x), _shape(s.alt.args[0])
        rest = []
        for i in sorted(dyn):
            if i < len(in1) and in1[i] == target[i] and in2[i] == s.alt.outs[0].shape[i]:
                target[i] = 0   # ONNX's Reshape copies the input's size there
            else:
                rest.append(i)
        if len(rest) > 1:
            raise export_error(f"reshape to {list(s.outs[0].shape)} has {len(rest)} sizes that follow the dynamic "
                               "axes and do not stay in place; only one can be inferred (-1)")
        for i in rest:
            target[i] = -1
    if 0 in s.outs[0].shape:   # a real size 0, not "copy the input's size"
        if 0 in target and dyn:
            raise export_error("reshape to an empty shape along a dynamic axis has no ONNX mapping here")
        return [g.op("Reshape", g.val(x), g.ints(target), allowzero=1)]
    return [g.op("Reshape", g.val(x), g.ints(target))]


@emits("Permute")
def _permute(g, s):
    return [g.op("Transpose", g.val(s.args[0]), perm=[int(p) for p in s.args[1]])]


@emits("Expand")
def _expand(g, s):
    x = s.args[0]
    out = list(s.outs[0].shape)
    xs = _shape(x)
    lead = len(out) - len(xs)
    dyn = _dynamic_dims(s)
    target = []
    for i, n in enumerate(out):
        j = i - lead
        if j >= 0 and xs[j] == n:
            target.append(1)   # broadcasting keeps the input's size, whatever it is at run time
        elif i in dyn:
            raise export_error(f"expand to {out} broadcasts a size-1 dim to a dynamic size")
        else:
            target.append(n)
    return [g.op("Expand", g.val(x), g.ints(target))]


@emits("Tile")
def _tile(g, s):
    x, reps = s.args
    y = g.val(x)
    lead = len(reps) - len(_shape(x))
    if lead > 0:
        y = g.op("Unsqueeze", y, g.ints(range(lead)))
    return [g.op("Tile", y, g.ints(reps))]


@emits("Cat")
def _cat(g, s):
    d, *ts = s.args
    nd = s.outs[0].ndim
    # PyTorch's cat skips a 1-D empty tensor whatever the others' rank (its legacy rule)
    ts = [t for t in ts if not (_shape(t) == (0,) and nd != 1)]
    return [g.op("Concat", *[g.val(t) for t in ts], axis=int(d))]


@emits("Stack")
def _stack(g, s):
    d, *ts = s.args
    axes = g.ints([int(d)])
    return [g.op("Concat", *[g.op("Unsqueeze", g.val(t), axes) for t in ts], axis=int(d))]


@emits("Split")
def _split(g, s):
    x, d, bounds = s.args
    sizes = [b - a for a, b in bounds]
    total = _shape(x)[d]
    if bounds[0][0] != 0 or bounds[-1][1] != total:
        raise export_error("split whose pieces do not cover the dimension")
    outs = g.op("Split", g.val(x), g.ints(sizes), axis=int(d), n_out=len(sizes))
    return [outs] if len(sizes) == 1 else list(outs)


@emits("GetItem")
def _getitem(g, s):
    x, shape, idx = s.args[:3]
    idx = idx if isinstance(idx, tuple) else (idx,)
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    starts, ends, axes, steps, squeeze, unsqueeze, gathers = [], [], [], [], [], [], []
    ax = out_ax = 0
    for item in idx:
        if item is Ellipsis:
            skip = len(shape) - n_real
            ax += skip
            out_ax += skip
        elif item is None:
            unsqueeze.append(out_ax)
            out_ax += 1
        elif isinstance(item, slice):
            if item != slice(None):
                step = 1 if item.step is None else int(item.step)
                start = (0 if step > 0 else INT_MAX) if item.start is None else int(item.start)
                stop = (INT_MAX if step > 0 else INT_MIN) if item.stop is None else int(item.stop)
                starts.append(start), ends.append(stop), axes.append(ax), steps.append(step)
            ax += 1
            out_ax += 1
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            i = int(item)
            starts.append(i), ends.append(INT_MAX if i == -1 else i + 1), axes.append(ax), steps.append(1)
            squeeze.append(ax)
            ax += 1
        elif isinstance(item, np.ndarray) and item.dtype.kind in "iu" and not gathers:
            gathers.append((ax, item))
            ax += 1
            out_ax += item.ndim
        else:
            raise export_error("indexing with a boolean mask or several index tensors has no ONNX mapping here")
    if gathers and (squeeze or unsqueeze or starts):
        raise export_error("indexing that mixes an index tensor with other indices has no ONNX mapping here")
    y = g.val(x)
    if gathers:
        ax, arr = gathers[0]
        return [g.op("Gather", y, g.val(arr), axis=ax)]
    if starts:
        y = g.op("Slice", y, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps))
    if squeeze:
        y = g.op("Squeeze", y, g.ints(squeeze))
    if unsqueeze:
        y = g.op("Unsqueeze", y, g.ints(unsqueeze))
    if y == g.val(x):
        y = g.op("Identity", y)
    return [y]


@emits("inplace_write")
def _inplace_write(g, s):
    t, r = s.args
    y = g.val(r)
    if r._data.dtype != t._data.dtype:
        y = g.op("Cast", y, to=g.dtype(t._data.dtype))
    if r._data.shape != t._data.shape:
        y = g.op("Expand", y, g.ints(t._data.shape))
    elif y == g.val(t):
        y = g.op("Identity", y)
    return [y]


@emits("inplace_write_to_view")
def _inplace_write_to_view(g, s):
    raise export_error("an in-place operation on a view of another tensor (it changes that tensor too) has no "
                       "ONNX mapping here; use the out-of-place operator")


@emits("ConstantPad")
def _constant_pad(g, s):
    x, pads, value = s.args
    before, after = [int(p[0]) for p in pads], [int(p[1]) for p in pads]
    return [g.op("Pad", g.val(x), g.ints(before + after), g.val(value, _out_dtype(s)), mode="constant")]


@emits("Flip")
def _flip(g, s):
    x, dims = s.args
    dims = [int(d) for d in dims]
    n = len(dims)
    if not n:  # flip(()) reverses nothing
        return [g.op("Identity", g.val(x))]
    return [g.op("Slice", g.val(x), g.ints([-1] * n), g.ints([INT_MIN] * n), g.ints(dims), g.ints([-1] * n))]


@emits("IndexSelect")
def _index_select(g, s):
    x, _, d, idx = s.args
    return [g.op("Gather", g.val(x), g.val(idx), axis=int(d))]


@emits("Gather")
def _gather(g, s):
    x, _, d, idx = s.args
    return [g.op("GatherElements", g.val(x), g.val(idx), axis=int(d))]


@emits("Tri")
def _tri(g, s):
    x, k, lower = s.args
    return [g.op("Trilu", g.val(x), g.const(np.asarray(int(k))), upper=int(not lower))]
