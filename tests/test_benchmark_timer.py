"""torch.utils.benchmark: Timer's measurements (a sleeping statement times at its sleep), block sizing,
Measurement's statistics and repr, and Compare's table, in the layout PyTorch prints. Timings differ by
machine, so the comparison with PyTorch is of structure: the repr's and table's lines with numbers masked."""
import re
import time

import numpy as np
import pytest

import npgrad
from npgrad.utils.benchmark import Compare, Measurement, TaskSpec, Timer
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def _mask(text):
    text = re.sub(r"0x[0-9a-f]+", "0x?", text.replace("npgrad.", "torch."))
    return re.sub(r"\d+(\.\d+)?", "N", text)


def test_timeit_sleep_gives_its_duration():
    m = Timer("time.sleep(0.01)", globals={"time": time}).timeit(5)
    assert isinstance(m, Measurement) and m.number_per_run == 5 and len(m.raw_times) == 1
    assert 0.01 <= m.median < 0.05 and m.mean == m.median and m.times == [m.raw_times[0] / 5] and m.iqr == 0


def test_blocked_autorange_block_size_and_min_run_time():
    # A 20 ms statement is over min_run_time / 1000 with a block of one, so blocks hold one run.
    m = Timer("time.sleep(0.02)", globals={"time": time}).blocked_autorange(min_run_time=0.1)
    assert m.number_per_run == 1 and sum(m.raw_times) >= 0.1 and 0.02 <= m.median < 0.1
    # A cheap statement needs large blocks to dwarf the timer's overhead: a power of ten.
    calls = []
    fast = Timer("x + 1", setup="x = 1").blocked_autorange(callback=lambda n, t: calls.append((n, t)),
                                                           min_run_time=0.05)
    assert fast.number_per_run >= 100 and np.log10(fast.number_per_run) % 1 == 0
    assert [n for n, _ in calls] == [fast.number_per_run] * len(fast.raw_times)
    assert [t for _, t in calls] == fast.raw_times and sum(fast.raw_times) >= 0.05
    assert fast.median < 1e-5 and fast.times == [t / fast.number_per_run for t in fast.raw_times]


def test_adaptive_autorange_stops_within_max_run_time():
    m = Timer("time.sleep(0.002)", globals={"time": time}).adaptive_autorange(threshold=0.5, max_run_time=1.0)
    assert len(m.raw_times) > 3 and sum(m.raw_times) < 1.5 and 0.002 <= m.median < 0.02


def test_statistics_and_merge():
    spec = TaskSpec(stmt="pass", setup="pass", label="L")
    m = Measurement(number_per_run=2, raw_times=[2.0, 4.0, 6.0, 8.0, 100.0], task_spec=spec)
    assert m.times == [1.0, 2.0, 3.0, 4.0, 50.0]
    assert m.median == 3.0 and m.mean == 12.0 and m.iqr == 2.0  # linear quantiles, as torch.quantile
    assert m.label == "L" and m.num_threads == 1 and m.title == "L" and m.has_warnings
    merged = Measurement.merge([m, Measurement(1, [7.0], spec)])
    assert len(merged) == 1 and merged[0].number_per_run == 1 and merged[0].times == [1.0, 2.0, 3.0, 4.0, 50.0, 7.0]


def test_globals_are_copied_and_torch_is_npgrad():
    g = {"y": 1}
    m = Timer("z = torch.ones(2).sum() + y", globals=g).timeit(3)
    assert g == {"y": 1} and m.number_per_run == 3
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported."):
        Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        Timer("pass", global_setup="#include <x>")
    with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
        Timer().repeat()


@needs_torch
def test_measurement_repr_like_torch():
    import torch.utils.benchmark as tb
    for kwargs in (dict(label="sum", sub_label="f32", description="n=100"), dict(), dict(sub_label="s")):
        for stmt, setup in (("x.sum()", "x = torch.ones(100)"), ("y = x * 2\ny.sum()", "x = torch.ones(3)\ny = x")):
            ours = Timer(stmt, setup=setup, **kwargs)
            theirs = tb.Timer(stmt, setup=setup, **kwargs)
            # Masked numbers still leave the unit (ns/us/ms), which can differ between libraries; mask it too.
            unit = re.compile(r" (ns|us|ms|s)\b")
            assert unit.sub(" U", _mask(repr(ours.timeit(100)))) == unit.sub(" U", _mask(repr(theirs.timeit(100))))
    # Five measurements add the Median and IQR lines; fixed times must print identically after the address.
    spec_args = dict(stmt="x.sum()", setup="x = torch.ones(100)", label="sum", description="n=100")
    ours = Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5, 9e-5], TaskSpec(**spec_args))
    theirs = tb.Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5, 9e-5], tb.TaskSpec(**spec_args))
    assert _mask(repr(ours)) == _mask(repr(theirs))
    assert repr(ours).split("\n", 1)[1] == repr(theirs).split("\n", 1)[1]
    assert ours.significant_figures == theirs.significant_figures


@needs_torch
def test_compare_table_like_torch():
    import torch.utils.benchmark as tb

    def table(lib_b, trim, colorize):
        ms = []
        for threads in (1, 2):
            for sub, scale in (("a", 1.0), ("b", 3.0)):
                for n, base in ((10, 1e-6), (1000, 2e-5)):
                    times = [base * scale * (1 + 0.01 * k) for k in range(6)]
                    spec = lib_b.TaskSpec(stmt="x.sum()", setup="pass", label="sum", sub_label=sub,
                                          description=f"n={n}", num_threads=threads)
                    ms.append(lib_b.Measurement(1, times, spec))
        c = lib_b.Compare(ms)
        if trim:
            c.trim_significant_figures()
        if colorize:
            c.colorize(rowwise=colorize == "row")
        return str(c)

    for trim in (False, True):
        for colorize in (None, "row", "col"):
            assert table(npgrad.utils.benchmark, trim, colorize) == table(tb, trim, colorize)
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        Compare([1])


@needs_torch
@pytest.mark.parametrize("colorize", [None, "row", "col"])
def test_compare_envs_gaps_and_warnings_like_torch(colorize):
    # Two envs per thread group, a missing cell, a second label and high-variance rows (flagged when highlighting).
    import torch.utils.benchmark as tb

    def table(lib_b):
        ms = []
        for threads in (1, 4):
            for env in ("e1", "env2"):
                for k, sub in enumerate(("a", "bb", "c")):
                    for n, base in ((10, 3e-9), (1000, 5e-3)):
                        if (sub, n, env) == ("bb", 1000, "e1"):
                            continue
                        times = [base * (k + 1) * (1 + 0.1 * k * j) for j in range(6)]
                        spec = lib_b.TaskSpec(stmt="x.sum()", setup="pass", label="L" if k < 2 else None,
                                              sub_label=sub, description=f"n={n}", env=env, num_threads=threads)
                        ms.append(lib_b.Measurement(1, times, spec))
        c = lib_b.Compare(ms[:-3])
        c.extend_results(ms[-3:])
        c.highlight_warnings()
        c.trim_significant_figures()
        if colorize:
            c.colorize(rowwise=colorize == "row")
        return str(c)

    ours = table(npgrad.utils.benchmark)
    assert ours == table(tb) and "(! " in ours and "(e1)" in ours


@needs_torch
def test_measurement_statistics_and_warnings_like_torch():
    import torch.utils.benchmark as tb
    for times in ([1e-5], [1e-5, 3e-5], [1e-5, 2e-5, 3e-5], [1e-3, 1.1e-3, 5e-3, 1e-3, 1.2e-3],
                  [2.0, 2.01, 2.02, 2.5, 2.03, 2.04, 2.0]):
        spec = dict(stmt="a\nb", setup="s\nt", label="L", sub_label="s", description="d", num_threads=4)
        ours, theirs = Measurement(10, times, TaskSpec(**spec)), tb.Measurement(10, times, tb.TaskSpec(**spec))
        assert repr(ours).split("\n", 1)[1] == repr(theirs).split("\n", 1)[1]
        assert (ours.significant_figures, ours.has_warnings, ours.median, ours.iqr, ours.mean) == \
            (theirs.significant_figures, theirs.has_warnings, theirs.median, theirs.iqr, theirs.mean)
    g = {"torch": "mine"}
    assert Timer("pass", globals=g)._globals["torch"] == "mine"  # a caller's own torch wins


def test_reachable_as_torch_utils_benchmark():
    import subprocess
    import sys
    code = """
import sys, npgrad
assert 'npgrad.utils.benchmark' not in sys.modules
npgrad.alias_torch()
import torch.utils.benchmark as benchmark
from torch.utils.benchmark import Timer
assert benchmark is npgrad.utils.benchmark and Timer(stmt='torch.ones(3)').timeit(10).number_per_run == 10
"""
    subprocess.run([sys.executable, "-c", code], check=True)
