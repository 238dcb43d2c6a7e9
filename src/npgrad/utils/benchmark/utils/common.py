"""The task description and measurement containers Timer and Compare share (PyTorch's ``utils/common.py``)."""
import collections
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
        self._median = -1.0
        self._mean = -1.0
        self._p25 = -1.0
        self._p75 = -1.0

    def __getattr__(self, name):
        # m.label, m.stmt, m.num_threads ...: the task spec's fields read through the measurement.
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

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
        n_total = len(self._sorted_times)
        interquartile_points = self._sorted_times[n_total // 4:math.ceil(3 * n_total / 4)]
        std = float(np.std(interquartile_points))
        confidence_interval = max(1.645 * std / math.sqrt(len(interquartile_points)), _MIN_CONFIDENCE_INTERVAL)
        num_significant_figures = math.floor(math.log10(self._median / confidence_interval))
        return min(max(num_significant_figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            # Linear interpolation between order statistics, as torch.quantile does by default.
            self._p25, self._median, self._p75 = (float(q) for q in np.quantile(self._sorted_times, [.25, .5, .75]))
            self._mean = float(np.mean(self._sorted_times))

            def add_warning(msg):
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (f"  WARNING: Interquartile range is {rel_iqr:.1f}% "
                                   f"of the median measurement.\n           {msg}",)

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

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
        skip_line, newline = "MEASUREMENT_REPR_SKIP_LINE", "\n"
        n = len(self._sorted_times)
        time_unit, time_scale = select_unit(self._median)
        iqr_filter = '' if n >= 4 else skip_line
        repr_str = f"""
{super().__repr__()}
{self.task_spec.summarize()}
  {'Median: ' if n > 1 else ''}{self._median / time_scale:.2f} {time_unit}
  {iqr_filter}IQR:    {self.iqr / time_scale:.2f} {time_unit} ({self._p25 / time_scale:.2f} to {self._p75 / time_scale:.2f})
  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {'per measurement,' if n > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}
{newline.join(self._warnings)}""".strip()  # noqa: E501
        return "\n".join(line for line in repr_str.splitlines(keepends=False) if skip_line not in line)

    @staticmethod
    def merge(measurements):
        """Merge replicates of the same task into one Measurement per task, with times per single run
        (``number_per_run=1``) and no metadata, which might differ between the replicates."""
        grouped_measurements = collections.defaultdict(list)
        for m in measurements:
            grouped_measurements[m.task_spec].append(m)

        def merge_group(task_spec, group):
            times = []
            for m in group:
                times.extend(m.times)
            return Measurement(number_per_run=1, raw_times=times, task_spec=task_spec, metadata=None)

        return [merge_group(t, g) for t, g in grouped_measurements.items()]


def select_unit(t):
    """The unit (ns, us, ms, s) that puts ``t`` seconds between 1 and 1000, and its scale in seconds."""
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s")
    time_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]
    return time_unit, time_scale


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """Trim `x` to `n` significant figures. (e.g. 3.14159, 2 -> 3.10000)"""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(math.log10(abs(x))))
    scale = 10 ** (magnitude - n)
    # PyTorch rounds in float32 (a default-dtype tensor); so do we, so that tables print the same digits.
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements):
    return list(collections.OrderedDict(dict.fromkeys(elements)).keys())


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
