"""torch.autograd.profiler on CPU: events for operators, engine nodes and ``record_function`` ranges.

While a profiler records, record.PROFILE_HOOK holds ``_profiled_op`` (every built-in Op call becomes an
event) and ``_profiled_node`` (the engine runs each node as ``autograd::engine::evaluate_function: <node>``
around ``<node>``). Nothing is installed otherwise, so ops run as they do without a profiler.

An op's event is named as PyTorch's aten operator: npgrad's node classes carry PyTorch's backward node
names (``MmBackward0`` is aten::mm's), so the forward name is that name without ``Backward<n>``, in
snake case; ``_ATEN_NAMES`` holds the classes where that rule would miss.
"""
import json
import math
import os
import re
import threading
import weakref
from math import prod
from time import perf_counter_ns
from warnings import warn

import numpy as np

from . import record as _record

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]

# Classes whose aten name the node-name rule would get wrong (a node name that depends on the operands,
# or one PyTorch gives another op's backward), by class name.
_ATEN_NAMES = {
    "MatMul": "matmul", "AMax": "amax", "MaxDim": "max", "LinearOp": "linear", "CrossEntropy": "cross_entropy_loss",
    "Square": "square", "RealView": "real", "ImagView": "imag", "ToCopy": "_to_copy", "Im2Col": "im2col",
    "Col2Im": "col2im", "RMSNormOp": "rms_norm", "Xlog1py": "special_xlog1py", "I0e": "special_i0e",
    "I1e": "special_i1e", "GetItem": "index", "CopySlices": "copy_", "_SliceCopy": "copy_", "_Identity": "clone",
    "MaxPoolOp": "max_pool2d", "AvgPool": "avg_pool2d", "SoftmaxOp": "softmax", "LogSoftmaxOp": "log_softmax",
}
_NAME_CACHE = {}
_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _snake(name):
    name = re.sub(r"(\d)D", r"\1d", name)  # AvgPool2D -> avg_pool2d
    return _SNAKE.sub("_", name).lower()


def _op_name(cls):
    name = _NAME_CACHE.get(cls)
    if name is not None:
        return name
    base = _ATEN_NAMES.get(cls.__name__)
    if base is None:
        node_name = cls.node_name
        m = re.fullmatch(r"([A-Za-z0-9]+?)Backward\d*", node_name) if type(node_name) is str else None
        if m is not None:
            base = _snake(m.group(1))
        else:
            raw = cls.__name__.lstrip("_")
            base = _snake(raw[:-2] if raw.endswith("Op") else raw)
    name = _NAME_CACHE[cls] = "aten::" + base
    return name


def _shapes(args):
    return [list(a.shape) if hasattr(a, "shape") and not isinstance(a, (int, float, complex)) else [] for a in args]


class _Interval:
    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


def _warn_unavailable(device, stacklevel):
    # This build records the CPU only; PyTorch's note when asked for another device it does not have.
    dev = device.upper()
    warn(f"{dev} is not available, disabling {dev} profiling", stacklevel=stacklevel)


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_memory(nbytes):
    KB = 1024
    MB = 1024 * KB
    GB = 1024 * MB
    if abs(nbytes) >= GB:
        return f"{nbytes * 1.0 / GB:.2f} GB"
    if abs(nbytes) >= MB:
        return f"{nbytes * 1.0 / MB:.2f} MB"
    if abs(nbytes) >= KB:
        return f"{nbytes * 1.0 / KB:.2f} KB"
    return str(nbytes) + " B"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


# What every event and every average carries alike: this build records the CPU only, and no legacy,
# asynchronous or device events.
_CPU_ONLY_FIELDS = {"is_async": False, "is_legacy": False, "node_id": -1, "overload_name": "", "flops": 0,
                    "device_type": "CPU", "use_device": None, "device_memory_usage": 0,
                    "self_device_memory_usage": 0, "device_time_total": 0, "self_device_time_total": 0}


class FunctionEvent:
    """One profiled range: an operator call, an engine node, or a ``record_function`` block. Times in us."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, stack=None, kind="cpu_op"):
        self.id = id
        # As PyTorch: the steps share one name in tables (ProfilerStep*), the trace keeps each number.
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.time_range = _Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        vars(self).update(_CPU_ONLY_FIELDS)
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.is_user_annotation = kind == "user_annotation"
        self.cpu_memory_usage = 0  # bytes, this range's and its children's (see _Recorder.memory)
        self._kind = kind

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    cpu_time_str = property(lambda self: _format_time(self.cpu_time))

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time={self.cpu_time_total_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes}>")


# An average takes these from the first event it adds (while its key is unset) ...
_TAKEN_FROM_FIRST = ("key", "input_shapes", "stack", "is_user_annotation", "cpu_parent")
# ... and sums these over all of them.
_SUMMED = ("count", "cpu_time_total", "self_cpu_time_total", "cpu_memory_usage", "self_cpu_memory_usage")


class FunctionEventAvg:
    """The events of one key (name, and input shapes when grouped by them), summed."""

    def __init__(self):
        vars(self).update(_CPU_ONLY_FIELDS)
        vars(self).update(dict.fromkeys(_TAKEN_FROM_FIRST), **dict.fromkeys(_SUMMED, 0))
        self.is_user_annotation = False

    def add(self, other):
        if self.key is None:
            for field in _TAKEN_FROM_FIRST:
                setattr(self, field, getattr(other, field))
        for field in _SUMMED:
            setattr(self, field, getattr(self, field) + getattr(other, field))
        self.flops += other.flops or 0
        return self

    __iadd__ = add

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    cpu_time_str = property(lambda self: _format_time(self.cpu_time))

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with PyTorch's summaries."""

    def __init__(self, *args, **kwargs):  # PyTorch's signature: its three keywords, the rest list's
        kwargs.pop("use_device", None)
        self._profile_memory = kwargs.pop("profile_memory", False)  # the tables' memory and FLOPs columns
        self._with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        groups = {}
        for e in self:
            key = (e.key,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            groups.setdefault(key, FunctionEventAvg()).add(e)
        if not group_by_input_shapes:  # as PyTorch: the shapes column only when grouped by them
            for avg in groups.values():
                avg.input_shapes = None
        return EventList(groups.values(), profile_memory=self._profile_memory, with_flops=self._with_flops)

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
            total.key = None  # as PyTorch: each event's key would stick otherwise; the sums are what count
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        widths = (max_name_column_width, max_shapes_column_width, max_src_column_width)
        return _build_table(self, sort_by, header, row_limit, widths, top_level_events_only, time_unit,
                            self._profile_memory, self._with_flops)

    def export_chrome_trace(self, path):
        events = []
        pid = os.getpid()
        for e in self:
            if not isinstance(e, FunctionEvent):
                continue
            args = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            events.append({"ph": "X", "cat": e._kind, "name": e.trace_name, "pid": pid, "tid": e.thread,
                           "ts": e.time_range.start, "dur": e.cpu_time_total, "args": args})
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": events,
                       "traceName": str(path)}, f)
        return path

    def export_stacks(self, path, metric="self_cpu_time_total"):
        with open(path, "w") as f:
            for e in self:
                if e.stack:
                    f.write(";".join(reversed(e.stack)) + " " + str(int(getattr(e, metric))) + "\n")


def _column_width(texts, cap):
    # PyTorch's: the longest entry and 4 spaces, at most ``cap`` (None: no cap).
    width = max(map(len, texts)) + 4
    return width if cap is None else min(width, cap)


def _clipped(name, cap):
    # PyTorch cuts a name that comes within 3 characters of the cap and marks the cut with "...".
    return name if cap is None or len(name) < cap - 3 else name[:cap - 3] + "..."


def _build_table(events, sort_by, header, row_limit, widths, top_level_events_only, time_unit, profile_memory,
                 with_flops):
    # PyTorch's profiler_util._build_table, CPU columns only (its header and row orders kept: the FLOPs
    # header comes after Source Location, the FLOPs value before it).
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = EventList(sorted(events, key=lambda e: getattr(e, sort_by), reverse=True))
    name_cap, shapes_cap, src_cap = widths
    name_width = _column_width([e.key for e in events], name_cap)
    shapes_width = _column_width([str(e.input_shapes) for e in events], shapes_cap)
    stacks = [e.stack for e in events if e.stack]
    src_width = _column_width([line for st in stacks for line in st], src_cap) if stacks else None
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    fmt, sep, length = "", "", -2

    def add_column(padding, text_dir=">"):
        nonlocal fmt, sep, length
        fmt += "{: " + text_dir + str(padding) + "}  "
        sep += "-" * padding + "  "
        length += padding + 2

    add_column(name_width)
    for _ in headers[1:]:
        add_column(12)
    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_width)
    if stacks:
        headers.append("Source Location")
        add_column(src_width, text_dir="<")
    if with_flops:
        raw_flops = [e.flops for e in events if e.flops and e.flops > 0]
        if raw_flops:
            log_flops = max(0, min(math.log10(min(raw_flops)) / 3, 5.0))
            flops_scale = pow(10, math.floor(log_flops) * -3.0)
            headers.append("Total " + ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"][int(log_flops)])
            add_column(12)
        else:
            with_flops = False

    def unit(t, default):
        return {"s": f"{t / 1e6:.3f}s", "ms": f"{t / 1e3:.3f}ms", "us": f"{t:.3f}us"}.get(time_unit, default)

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    total = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * length, header]
    if top_level_events_only:
        out += ["=" * length, "This report only display top-level ops statistics"]
    out += [sep, fmt.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        row = [_clipped(e.key, name_cap), _format_time_share(e.self_cpu_time_total, total), unit(e.self_cpu_time_total, e.self_cpu_time_total_str),
               _format_time_share(e.cpu_time_total, total), unit(e.cpu_time_total, e.cpu_time_total_str),
               unit(e.cpu_time, e.cpu_time_str)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if with_flops:
            row.append("--" if not e.flops or e.flops <= 0 else f"{e.flops * flops_scale:8.3f}")
        if stacks:
            row.append(trim_path(e.stack[0]) if e.stack else "")
        out.append(fmt.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in e.stack[1:]:
                out.append(fmt.format(*(blank + [trim_path(entry)])))
            out.append(fmt.format(*(blank + [""])))
    out += [sep, f"Self CPU time total: {unit(total, _format_time(total))}"]
    return "".join(s + "\n" for s in out)


# -- recording ---------------------------------------------------------------------------------------

_lock = threading.Lock()
_active = []  # the recorders now collecting, innermost last


class _Recorder:
    """Collects the events of one recording session. Open ranges are kept per thread."""

    def __init__(self, record_shapes=False, with_stack=False, profile_memory=False, with_flops=False):
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.recording = True
        self._finalizers = []
        self.events = []
        self._next_id = 0
        self._stacks = {}  # thread id -> open events
        self.t0 = perf_counter_ns()

    def open(self, name, shapes=None, kind="cpu_op"):
        tid = threading.get_ident()
        stack = self._stacks.setdefault(tid, [])
        self._next_id += 1
        ev = FunctionEvent(self._next_id, name, _thread_index(tid), perf_counter_ns() / 1000.0, 0.0,
                           shapes if self.record_shapes else None,
                           _python_stack() if self.with_stack and kind != "user_annotation" else None, kind)
        if stack:
            ev.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(ev)
        stack.append(ev)
        self.events.append(ev)
        return ev

    def memory(self, ev, nbytes):
        """Count ``nbytes`` (negative: freed) in ``ev`` and the ranges around it, as torch's inclusive usage."""
        while ev is not None:
            ev.cpu_memory_usage += nbytes
            ev = ev.cpu_parent

    def allocated(self, ev, inputs, out):
        """The op's results: each array they hold that is not (a view of) an input's is new memory. Its
        free, while this recorder runs, is counted where it happens (as torch: in the open range, or as a
        ``[memory]`` event outside any)."""
        seen = {id(_root(a)) for a in inputs}
        for t in out if isinstance(out, (tuple, list)) else (out,):
            a = getattr(t, "_data", None)
            if not isinstance(a, np.ndarray):
                continue
            root = _root(a)
            if id(root) in seen:
                continue
            seen.add(id(root))
            self.memory(ev, root.nbytes)
            f = weakref.finalize(root, _on_free, weakref.ref(self), root.nbytes)
            f.atexit = False
            self._finalizers.append(f)

    def freed(self, nbytes):
        if not self.recording:
            return
        stack = self._stacks.get(threading.get_ident())
        if stack:
            self.memory(stack[-1], -nbytes)
            return
        self._next_id += 1
        now = perf_counter_ns() / 1000.0
        ev = FunctionEvent(self._next_id, "[memory]", _thread_index(threading.get_ident()), now, now,
                           kind="cpu_instant_event")
        ev.cpu_memory_usage = -nbytes
        self.events.append(ev)

    def stop(self):
        self.recording = False
        for f in self._finalizers:
            f.detach()
        self._finalizers = []

    def close(self, ev):
        ev.time_range.end = perf_counter_ns() / 1000.0
        stack = self._stacks.get(threading.get_ident())
        if stack and ev in stack:  # a range closed out of order closes what was opened inside it
            while stack.pop() is not ev:
                pass


_THREADS = {}


def _thread_index(tid):
    # PyTorch numbers the threads it saw from 1 (the main thread first).
    if tid not in _THREADS:
        _THREADS[tid] = len(_THREADS) + 1
    return _THREADS[tid]


def _python_stack():
    import traceback
    here = os.path.dirname(os.path.dirname(__file__))
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(traceback.extract_stack())
            if not f.filename.startswith(here)]


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _on_free(recorder_ref, nbytes):
    r = recorder_ref()
    if r is not None:
        r.freed(nbytes)


def _numel(a):
    return prod(a.shape) if hasattr(a, "shape") else 0


def _flops(name, cls, args, out):
    """torch's estimate (torch/csrc/profiler/util.cpp computeFlops) for the op npgrad ran as this event.
    torch counts aten::mm/bmm/addmm/baddbmm as 2*m*k*n (the bias not counted), aten::conv2d as
    2*N*OH*OW*(weight numel), aten::add/aten::mul as the first operand's numel, and nothing else. npgrad runs
    torch's mm and bmm (and matmul's mm/bmm children, and linear's addmm/mm child) as one matmul or linear
    op, so those events carry the mm/bmm count of the product they compute; its 2-D convolution (torch's
    conv2d) is one ``aten::convolution`` event and carries conv2d's count."""
    if name == "aten::add" or name == "aten::mul":
        return _numel(args[0])
    shape = getattr(out, "shape", None)
    if shape is None:
        return 0
    if cls.__name__ == "MatMul":
        a, b = args[0], args[1]
        if len(b.shape) < 2:  # mv and dot: torch counts none
            return 0
        return 2 * prod(shape) * a.shape[-1]
    if cls.__name__ == "LinearOp":
        return 2 * prod(shape) * args[1].shape[-1]
    if cls.__name__ == "ConvNdOp" and len(args[0].shape) == 4 and len(shape) == 4:
        return 2 * shape[0] * shape[2] * shape[3] * _numel(args[1])
    return 0


def _profiled_op(cls, args):
    recorders = list(_active)
    name = _op_name(cls)
    events = [r.open(name, _shapes(args) if r.record_shapes else None) for r in recorders]
    hook = _record.PROFILE_HOOK
    # Off while the op runs: forward-mode AD's takeover re-enters _apply_op for the same call.
    saved = hook[:]
    del hook[:]
    out = None
    try:
        out = _record._apply_op(cls, args)
        return out
    finally:
        hook[:] = saved
        for r, ev in zip(recorders, events):
            if out is not None:
                if r.profile_memory:
                    r.allocated(ev, [a._data for a in args if isinstance(getattr(a, "_data", None), np.ndarray)],
                                out)
                if r.with_flops:
                    ev.flops = _flops(name, cls, args, out)
            r.close(ev)


def _profiled_node(node, buf, run, args):
    recorders = list(_active)
    name = node.name()
    shapes = None
    if any(r.record_shapes for r in recorders):
        grads = buf if node._n_out != 1 else [buf]
        shapes = _shapes([g if g is not None else 0 for g in grads])
    outer = [r.open("autograd::engine::evaluate_function: " + name) for r in recorders]
    inner = [r.open(name, shapes) for r in recorders]
    try:
        return run(*args)
    finally:
        for r, ev in zip(recorders, inner):
            r.close(ev)
        for r, ev in zip(recorders, outer):
            r.close(ev)


def _attach(recorder):
    with _lock:
        _active.append(recorder)
        if not _record.PROFILE_HOOK:
            _record.PROFILE_HOOK[:] = [_profiled_op, _profiled_node]


def _detach(recorder):
    recorder.stop()
    with _lock:
        if recorder in _active:
            _active.remove(recorder)
        if not _active:
            del _record.PROFILE_HOOK[:]


class record_function:
    """Label a block (context manager) or a function (decorator) as one range in the profile."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._events = None

    def __enter__(self):
        self._events = [(r, r.open(self.name, kind="user_annotation")) for r in list(_active)]
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self.run_callbacks_on_exit:
            events, self._events = self._events or [], None
            for r, ev in events:
                r.close(ev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


class profile:
    """``with torch.autograd.profiler.profile() as prof``: records the block; ``prof.key_averages().table()``.

    ``profile_memory``: each op event counts the bytes of the arrays its results hold that are not (views of)
    its inputs' (torch's "CPU Mem"/"Self CPU Mem"); such an array's free while recording counts negative in
    the range open then, or as a ``[memory]`` event outside any, as torch. Not seen: memory npgrad allocates
    outside ops (factories such as ``ones``, temporaries inside an op, the engine's gradient arithmetic) and
    frees of arrays allocated before recording. ``with_flops``: torch's estimates (see ``_flops``).
    ``with_modules``: torch records module scopes for TorchScript only; for eager modules it changes no event
    (checked against torch 2.13), and so here."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        if not enabled:
            return
        if use_cuda:
            warn("The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` instead.",
                 FutureWarning, stacklevel=2)
            use_device = "cuda"
        if use_device is not None:
            _warn_unavailable(use_device, stacklevel=3)
            use_device = None
        if not use_cpu:
            raise AssertionError("No activities specified for the profiler")
        self.use_device = use_device
        self.record_shapes = record_shapes or with_flops  # as torch: the FLOPs need the shapes
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.entered = False
        self.function_events = None
        self._recorder = None
        self._accumulated = []

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def _start(self):
        self._recorder = _Recorder(self.record_shapes, self.with_stack, self.profile_memory, self.with_flops)
        _attach(self._recorder)

    def _stop(self):
        rec, self._recorder = self._recorder, None
        if rec is None:
            return
        _detach(rec)
        events = [e for e in rec.events if e.time_range.end]
        events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
        if self.acc_events:
            self._accumulated.extend(events)
            events = list(self._accumulated)
        self.function_events = EventList(events, profile_memory=self.profile_memory, with_flops=self.with_flops)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop()
        self.entered = False
        return False

    def _finished(self):
        """The recorded events; the results are read only once the block has ended."""
        events = self.function_events
        if events is None:
            raise RuntimeError("Profiler didn't finish running")
        return events

    def _shown(self, how):
        events = self.function_events
        return "<unfinished torch.autograd.profile>" if events is None else how(events)

    def __repr__(self):
        return self._shown(repr)

    def __str__(self):
        return self._shown(str)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        return self._finished().table(sort_by, row_limit, max_src_column_width, max_name_column_width,
                                      max_shapes_column_width, header, top_level_events_only, time_unit)

    def export_chrome_trace(self, path):
        return self._finished().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        events = self._finished()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._finished().key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        return self._finished().total_average()

    @property
    def self_cpu_time_total(self):
        return self._finished().self_cpu_time_total

    def events(self):
        return self.function_events
