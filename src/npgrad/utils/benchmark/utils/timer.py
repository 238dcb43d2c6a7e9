"""Timer: timeit with a warm-up, a fixed thread count and replicated blocks (PyTorch's ``utils/timer.py``)."""
import enum
import sys
import textwrap
import timeit

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    # Everything runs synchronously on the CPU: there is no device to wait for before reading the clock.
    return timeit.default_timer()


def _tidy(code):
    """Dedented, without one leading newline and trailing whitespace: a triple-quoted block reads as written."""
    code = textwrap.dedent(code)
    return code[1:].rstrip() if code.startswith("\n") else code.rstrip()


class Language(enum.Enum):
    PYTHON = 0


class Timer:
    """Time a Python statement: ``Timer(stmt, setup, globals=..., label=..., sub_label=..., description=...,
    num_threads=1)``, then ``timeit(number)``, ``blocked_autorange()`` or ``adaptive_autorange()``.

    As in PyTorch, ``torch`` (here npgrad) is available to ``stmt`` and ``setup`` without being in ``globals``,
    each measurement runs with ``num_threads`` BLAS threads, and ``label``/``sub_label``/``description``/``env``
    name the rows and columns :class:`Compare` prints. PyTorch's ``language="cpp"`` is absent: npgrad cannot
    compile C++ statements.
    """

    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most "
                             "likely this code can simply be moved to `setup`.")
        self._language = Language.PYTHON
        # Copied so that the statement's assignments do not leak into the caller's dictionary; torch is npgrad
        # (the package is loaded: this is inside it).
        self._globals = {"torch": sys.modules["npgrad"], **(globals or {})}
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        # A zero time would make the overhead ratios below divide by zero.
        return max(self._timer.timeit(number), 1e-9)

    def _threads(self):
        return common.set_torch_threads(self._task_spec.num_threads)

    def _measurement(self, number, times):
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def timeit(self, number=1000000):
        """Run ``stmt`` ``number`` times (after a warm-up of ``number // 100`` runs, at least 2) and time it."""
        with self._threads():
            self._timeit(max(int(number // 100), 2))  # first calls pay for lazy imports and allocations
            return self._measurement(number, [self._timeit(number)])

    # timeit.Timer's repeat/autorange, which torch.utils.benchmark.Timer refuses with exactly this error (its
    # measurements come from blocked_autorange); the same refusal, not a missing feature.
    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _threaded_measurement_loop(self, number, time_hook, stop_hook, min_run_time, max_run_time=None,
                                   callback=None):
        """Blocks of ``number`` runs until ``min_run_time`` is spent and ``stop_hook(times)`` agrees, or
        ``max_run_time`` is exceeded."""
        times = []
        with self._threads():
            while True:
                times.append(time_hook())
                if callback:
                    callback(number, times[-1])
                spent, done = sum(times), stop_hook(times)
                if max_run_time and spent > max_run_time:
                    break
                if done and spent >= min_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """A block size (a power of ten) whose time dwarfs the timing loop's own overhead."""
        with self._threads():
            overhead = sorted(self._timeit(0) for _ in range(5))[2]  # the median of five empty loops
            number = 1
            # Stop at 0.01% overhead over a block of at least min_run_time / 1000, at a block over
            # min_run_time, or before the count would overflow a C int.
            while number * 10 <= 2147483647:
                took = self._timeit(number)
                if took > min_run_time or (overhead / took <= 1e-4 and took >= min_run_time / 1000):
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Time blocks of ``stmt`` runs until ``min_run_time`` seconds are spent.

        The block size grows tenfold from 1 until the timer's own overhead is at most 0.01% of a block (or a
        block takes over ``min_run_time / 1000`` s); ``callback(number, time)`` is called after each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._threaded_measurement_loop(number, lambda: self._timeit(number), lambda times: True,
                                                min_run_time=min_run_time, callback=callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Like :meth:`blocked_autorange`, but keep timing until IQR / median falls below ``threshold`` (with
        more than 3 blocks and ``min_run_time`` seconds spent), or ``max_run_time`` seconds are spent."""
        number = self._estimate_block_size(min_run_time=0.05)

        def steady(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold=threshold)

        times = self._threaded_measurement_loop(number, lambda: self._timeit(number), steady, min_run_time,
                                                max_run_time, callback=callback)
        return self._measurement(number, times)
