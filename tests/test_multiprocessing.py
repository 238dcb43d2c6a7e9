"""torch.multiprocessing: Python's multiprocessing re-exported, tensors crossing a Queue intact, spawn with
PyTorch's ProcessContext and exceptions (the child's traceback text in the parent), and the sharing-strategy
settings, each checked against torch.multiprocessing where PyTorch is installed."""
import multiprocessing
import os
import sys

import numpy as np
import pytest

import npgrad
import npgrad.multiprocessing as mp
from _mp_workers import echo_tensor, exit_with, kill_self, put_tensors, raise_in_one
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def test_reexports_python_multiprocessing():
    for name in multiprocessing.__all__:
        assert getattr(mp, name) is getattr(multiprocessing, name), name
    assert set(multiprocessing.__all__) <= set(mp.__all__)
    assert mp.get_context("spawn").get_start_method() == "spawn"


@needs_torch
def test_names_and_strategies_like_torch():
    import torch.multiprocessing as tmp
    assert sorted(mp.__all__) == sorted(tmp.__all__)
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException",
                 "SpawnContext", "ENV_VAR_PARALLEL_START"):
        assert hasattr(mp, name) and hasattr(tmp, name)
    assert not hasattr(mp, "ProcessException") and not hasattr(tmp, "ProcessException")  # spawn's own
    assert mp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == tmp.get_sharing_strategy()
    for lib in (mp, tmp):
        with pytest.raises(AssertionError) as info:
            lib.set_sharing_strategy("bogus")
        assert str(info.value).startswith("invalid sharing strategy 'bogus', expected one of")


def test_sharing_strategy_roundtrip():
    before = mp.get_sharing_strategy()
    try:
        for s in mp.get_all_sharing_strategies():
            mp.set_sharing_strategy(s)
            assert mp.get_sharing_strategy() == s
    finally:
        mp.set_sharing_strategy(before)


def test_tensors_cross_a_queue_intact_from_spawned_processes():
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    mp.spawn(put_tensors, args=(queue,), nprocs=2)
    got = sorted((queue.get() for _ in range(2)), key=lambda r: r[0])
    assert [r[0] for r in got] == [0, 1] and got[0][1] != got[1][1] != os.getpid()
    for i, _, x, w, b, nested in got:
        assert isinstance(x, npgrad.Tensor) and x.dtype == npgrad.float64 and tuple(x.shape) == (2, 3)
        np.testing.assert_array_equal(x.numpy(), np.arange(6.).reshape(2, 3) * (i + 1))
        assert w.requires_grad and w.is_leaf and w.tolist() == [1.5, -2.0]
        assert b.dtype == npgrad.int8 and b.tolist() == [1, 2]
        np.testing.assert_array_equal(nested["nested"][0].numpy(), x[0].numpy())


def test_tensor_through_a_process_and_back():
    ctx = mp.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=echo_tensor, args=(q_in, q_out))
    p.start()
    q_in.put(npgrad.tensor([[1., 2.], [3., 4.]]))
    out = q_out.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0 and out.tolist() == [[2., 4.], [6., 8.]] and out.dtype == npgrad.float32


def test_exception_in_a_child_raises_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(raise_in_one, args=("marker-42",), nprocs=2)
    e = info.value
    assert e.error_index == 1 and isinstance(e.error_pid, int)
    text = str(e)
    assert text.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last):")
    assert "ValueError: child 1 failed: marker-42" in text and "_mp_workers.py" in text and "raise_in_one" in text


def test_exit_code_and_join_false():
    ctx = mp.spawn(exit_with, args=(3,), nprocs=2, join=False)
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with exit code 3$") as info:
        while not ctx.join():
            pass
    assert info.value.exit_code == 3 and info.value.error_index == 0 and info.value.signal_name is None


@pytest.mark.skipif(sys.platform == "win32", reason="no SIGKILL on Windows")
def test_killed_child_reports_its_signal_and_the_rest_are_stopped():
    import signal
    ctx = mp.start_processes(kill_self, args=(int(signal.SIGKILL),), nprocs=2, join=False, start_method="spawn")
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with signal SIGKILL$") as info:
        while not ctx.join(grace_period=0.1):
            pass
    assert info.value.signal_name == "SIGKILL" and info.value.exit_code == -signal.SIGKILL
    assert not any(p.is_alive() for p in ctx.processes) and info.value.error_pid == ctx.pids()[0]


def test_spawn_warns_for_other_start_methods():
    with pytest.warns(FutureWarning, match="This method only supports start_method=spawn"):
        mp.spawn(exit_with, args=(0,), nprocs=1, start_method="fork")


@needs_torch
def test_exception_text_like_torch():
    import torch.multiprocessing as tmp
    texts = []
    for lib in (mp, tmp):
        with pytest.raises(lib.ProcessRaisedException) as info:
            lib.spawn(raise_in_one, args=("m",), nprocs=2)
        texts.append(str(info.value))
    # The traceback's frames are each library's own _wrap; the header and the exception line agree.
    head = "\n\n-- Process 1 terminated with the following error:\n"
    assert all(t.startswith(head) for t in texts)
    assert texts[0].strip().splitlines()[-1] == texts[1].strip().splitlines()[-1] == "ValueError: child 1 failed: m"


def test_exceptions_pickle():
    import pickle
    e = pickle.loads(pickle.dumps(mp.ProcessExitedException("m", 1, 2, 3, "SIGKILL")))
    assert (e.msg, e.error_index, e.error_pid, e.exit_code, e.signal_name) == ("m", 1, 2, 3, "SIGKILL")


def test_reachable_as_torch_multiprocessing():
    import subprocess
    code = """
import sys, npgrad
assert 'npgrad.multiprocessing' not in sys.modules
npgrad.alias_torch()
import torch.multiprocessing as mp
assert mp is npgrad.multiprocessing and mp.Queue is __import__('multiprocessing').Queue
"""
    subprocess.run([sys.executable, "-c", code], check=True)
