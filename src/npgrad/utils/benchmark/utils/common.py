"""The task description and measurement containers Timer and Compare share (PyTorch's ``utils/common.py``)."""
import contextlib
import dataclasses
import math
import textwrap
import warnings

import numpy as np

from .... import _runtime  # set/get_num_threads, without importing the package root

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures (everything but its globals); hashable, so that Measurement.merge can group by it."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        """Best effort attempt at a string label for the measurement."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        elif "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        return ("" if (self.setup == "pass" or not self.setup)
                else f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup
                else f"setup: {self.setup}")

    def summarize(self):
        """Build TaskSpec portion of repr string for other containers."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([f"{i}\n" if "\n" in i else i for i in sections if i])


_TASKSPEC_FIELDS = tuple(i.name for i in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer measurement: ``raw_times`` holds the time of each block of ``number_per_run`` runs;
    ``times``, ``median``, ``mean`` and ``iqr`` are per run, in seconds."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None  # Reserved for user payloads.

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        # m.label, m.stmt, m.num_threads ...: the task spec's fields read through the measurement.
        if name not in _TASKSPEC_FIELDS:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self.task_spec, name)

    @property
    def times(self):
        per_run = self.number_per_run
        return [block / per_run for block in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """Significant figures the interquartile spread supports (1 to 4), from a 90% confidence interval."""
        self._lazy_init()
        ordered = self._sorted_times
        middle = ordered[len(ordered) // 4:math.ceil(3 * len(ordered) / 4)]  # the interquartile points
        spread = 1.645 * float(np.std(middle)) / math.sqrt(len(middle))
        figures = math.floor(math.log10(self._median / max(spread, _MIN_CONFIDENCE_INTERVAL)))
        return max(1, min(figures, _MAX_SIGNIFICANT_FIGURES))

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        # Statistics once, on first use (raw_times may be filled after construction).
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        # Linear interpolation between order statistics, as torch.quantile does by default.
        self._p25, self._median, self._p75 = map(float, np.quantile(self._sorted_times, [.25, .5, .75]))
        self._mean = float(np.mean(self._sorted_times))
        for threshold, advice in ((_IQR_GROSS_WARN_THRESHOLD, "This suggests significant environmental influence."),
                                  (_IQR_WARN_THRESHOLD, "This could indicate system fluctuation.")):
            if not self.meets_confidence(threshold):
                share = self.iqr / self.median * 100
                self._warnings += (f"  WARNING: Interquartile range is {share:.1f}% "
                                   f"of the median measurement.\n           {advice}",)
                break

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        return self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        n, threads = len(self._sorted_times), self.num_threads
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:  # too few points for quartiles otherwise
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}")
        return "\n".join([*lines, *self._warnings]).strip()

    @staticmethod
    def merge(measurements):
        """Merge replicates of the same task into one Measurement per task, with times per single run
        (``number_per_run=1``) and no metadata, which might differ between the replicates."""
        times = {}
        for m in measurements:
            times.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=t, task_spec=spec, metadata=None) for spec, t in times.items()]


_UNITS = (("ns", 1e-9, "nanosecond"), ("us", 1e-6, "microsecond"), ("ms", 1e-3, "millisecond"), ("s", 1, "second"))


def select_unit(t):
    """The unit (ns, us, ms, s) that puts ``t`` seconds between 1 and 1000, and its scale in seconds."""
    thousands = int(math.log10(t) // 3)  # -3 for ns ... -1 for ms; anything else is shown in seconds
    unit, scale, _ = _UNITS[thousands + 3] if -3 <= thousands <= -1 else _UNITS[-1]
    return unit, scale


def unit_to_english(u):
    return next(name for unit, _, name in _UNITS if unit == u)


def trim_sigfig(x, n):
    """Trim `x` to `n` significant figures. (e.g. 3.14159, 2 -> 3.10000)"""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    scale = 10 ** (int(math.ceil(math.log10(abs(x)))) - n)
    # PyTorch rounds in float32 (a default-dtype tensor); so do we, so that tables print the same digits.
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    prior_num_threads = _runtime.get_num_threads()
    if prior_num_threads == n:
        yield
        return
    try:
        _runtime.set_num_threads(n)
    except RuntimeError as e:
        # Without threadpoolctl the BLAS thread count is fixed at start-up; time with what there is rather
        # than refuse to time at all, and say so.
        warnings.warn(f"{e}; timing with {prior_num_threads} BLAS threads instead of {n}", RuntimeWarning,
                      stacklevel=4)
        yield
        return
    try:
        yield
    finally:
        _runtime.set_num_threads(prior_num_threads)
