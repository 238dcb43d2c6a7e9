"""torch.profiler on a CPU-only build: ``profile`` with ``schedule`` and ``on_trace_ready``,
``record_function``, ``ProfilerActivity`` and ``tensorboard_trace_handler``. The events come from
npgrad.autograd.profiler (see there for what is recorded and how it stays off the op path otherwise)."""
import gzip
import os
import socket
import time
from enum import Enum
from itertools import accumulate
from pathlib import Path
from warnings import warn

from ..autograd import profiler as _prof
from ..autograd.profiler import record_function

__all__ = ["profile", "record_function", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity"]


class ProfilerActivity(Enum):
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class ProfilerAction(Enum):
    """Profiler actions that can be taken at the specified intervals."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    """The activities this build can trace: the CPU only."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule for ``profile``: skip ``skip_first`` steps, then cycles of ``wait`` idle steps, ``warmup``
    steps and ``active`` recorded steps (the last one RECORD_AND_SAVE), ``repeat`` times (0: forever)."""
    if min(wait, warmup, repeat, skip_first) < 0 or active <= 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    # One cycle as consecutive phases; a step's phase is the first whose end lies beyond its offset.
    phases = ((wait, ProfilerAction.NONE), (warmup, ProfilerAction.WARMUP), (active - 1, ProfilerAction.RECORD),
              (1, ProfilerAction.RECORD_AND_SAVE))
    ends = list(accumulate(n for n, _ in phases))
    cycle = ends[-1]
    # skip_first_wait: the first cycle starts past its idle steps, so later cycles shift by as much.
    shift = wait if skip_first_wait else 0

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        cycles, offset = divmod(step - skip_first + shift, cycle)
        if repeat and cycles >= repeat:
            return ProfilerAction.NONE
        return next(action for end, (_, action) in zip(ends, phases) if offset < end)

    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def _trace_file(dir_name, worker_name, use_gzip):
    try:
        Path(dir_name).mkdir(parents=True, exist_ok=True)
    except Exception as e:
        raise RuntimeError("Can't create directory: " + dir_name) from e
    parts = [worker_name, str(time.time_ns()), "pt", "trace", "json"] + (["gz"] if use_gzip else [])
    return os.path.join(dir_name, ".".join(parts))


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each trace as ``<worker>.<time>.pt.trace.json[.gz]`` under ``dir_name``."""

    def handler_fn(prof):
        nonlocal worker_name
        if not worker_name:  # named on the first trace, as PyTorch: host and process of whoever writes
            worker_name = "_".join((socket.gethostname(), str(os.getpid())))
        path = _trace_file(dir_name, worker_name, use_gzip)
        if not use_gzip:
            prof.export_chrome_trace(path)
            return path
        plain = path[:-len(".gz")]
        prof.export_chrome_trace(plain)
        with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
            dst.write(src.read())
        os.remove(plain)
        return path
    return handler_fn


# The options the low-level profiler forwards to npgrad.autograd.profiler.profile, kept as attributes too.
_RECORDING_OPTIONS = ("record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules", "acc_events")


class _KinetoProfile:
    """Start/stop recording and read the results (torch.profiler's low-level profiler)."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        given = locals()
        vars(self).update({k: given[k] for k in _RECORDING_OPTIONS})
        self.activities = set(activities) if activities else supported_activities()
        self.profiler = None
        self.use_device = None

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is not None and self.acc_events:
            return  # accumulating: one recorder for every cycle
        if ProfilerActivity.CUDA in self.activities:
            _prof._warn_unavailable("cuda", stacklevel=3)
        if ProfilerActivity.CPU not in self.activities:
            raise AssertionError("No activities specified for the profiler")
        self.profiler = _prof.profile(**{k: getattr(self, k) for k in _RECORDING_OPTIONS})

    def _ready(self, doing):
        if self.profiler is None:
            raise AssertionError(f"Profiler must be initialized before {doing}")
        return self.profiler

    def start_trace(self):
        self._ready("starting trace")._start()

    def stop_trace(self):
        if self.profiler is not None:
            self.profiler._stop()

    def export_chrome_trace(self, path):
        return self._ready("exporting chrome trace").export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        return self._ready("exporting stacks").export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._ready("getting key averages").key_averages(group_by_input_shape, group_by_stack_n,
                                                                group_by_overload_name)

    def events(self):
        return self._ready("accessing events").function_events


# How far each action has taken the recorder: 0 nothing, 1 prepared (warming up), 2 recording.
_DEPTH = {ProfilerAction.NONE: 0, ProfilerAction.WARMUP: 1, ProfilerAction.RECORD: 2,
          ProfilerAction.RECORD_AND_SAVE: 2}


class profile(_KinetoProfile):
    """Profiler context manager: records operators, backward nodes and ``record_function`` ranges on the
    CPU, following ``schedule`` step by step (``prof.step()``) and calling ``on_trace_ready(prof)`` when a
    cycle's recording ends."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        acts = set(supported_activities() if activities is None else activities)
        if use_cuda is not None:
            warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning, stacklevel=2)
            (acts.add if use_cuda else acts.discard)(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=acts, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         acc_events=acc_events)
        self.record_steps = bool(schedule)  # with a schedule, each step is a ProfilerStep#<n> range
        self.schedule = schedule if schedule else _default_schedule_fn
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(0)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._go(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        self._close_step()
        self._go(self.current_action, None)

    def step(self):
        """Signals the profiler that the next profiling step has started."""
        self._close_step()
        before = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._go(before, self.current_action)
        self._open_step()

    def _open_step(self):
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _close_step(self):
        rec, self.step_rec_fn = self.step_rec_fn, None
        if rec is not None and self.record_steps:
            rec.__exit__(None, None, None)

    def _go(self, before, after):
        """Move the recorder from the state ``before`` left it in to what ``after`` needs (None: the end).
        A cycle's RECORD_AND_SAVE (or a RECORD that the end cuts short) hands its trace over on leaving;
        a schedule that steps back without saving is warned about, and its recording dropped."""
        depth = _DEPTH[before]
        if before is ProfilerAction.RECORD_AND_SAVE or (before is ProfilerAction.RECORD and after is None):
            self.stop_trace()
            if self.on_trace_ready:
                self.on_trace_ready(self)
            depth = 0
        want = 0 if after is None else _DEPTH[after]
        if want < depth:
            if after is not None:
                warn(f"Incorrect schedule: {before.name} followed by {after.name}")
            if depth == 1:
                self.start_trace()
            self.stop_trace()
            return
        if depth == 0 and want > 0:
            self.prepare_trace()
        if depth < 2 and want == 2:
            self.start_trace()
