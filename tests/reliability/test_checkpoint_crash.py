"""A process killed (SIGKILL: no cleanup, no exception handlers) in the middle of npgrad.save leaves the
previous checkpoint intact and loadable: the new file is written beside it and renamed over it only when
complete, and the next save to that path removes the dead writer's temporary. (tests/test_serialization.py covers interrupted saves within a process, truncated and
corrupted files, and refusal of pickles.)
"""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import npgrad

WRITER = r"""
import sys
import numpy as np
import npgrad
path = sys.argv[1]
big = npgrad.from_numpy(np.full(12_000_000, 7.0, dtype=np.float64))  # ~96 MB: a save takes a while
print("ready", flush=True)
version = 1
while True:
    version += 1
    npgrad.save({"version": version, "weights": big}, path)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_killed_writer_leaves_previous_checkpoint_intact(tmp_path):
    path = tmp_path / "model.pt"
    npgrad.save({"version": 1, "weights": npgrad.ones(3)}, path)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait until a temporary file is being written, then kill
            partial = [p for p in tmp_path.iterdir() if p.name != "model.pt"]
            if partial and partial[0].stat().st_size > 1_000_000:
                break
            time.sleep(0.001)
        else:
            pytest.fail("the writer never started writing")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        size_at_kill = partial[0].stat().st_size
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # the kill landed mid-write: the partial file is shorter than a complete checkpoint
    assert size_at_kill < 96_000_000
    state = npgrad.load(path)  # complete and valid: the old one, or a new one that finished before the kill
    if state["version"] == 1:
        assert state["weights"].tolist() == [1.0, 1.0, 1.0]
    else:
        assert state["weights"].shape == (12_000_000,) and float(state["weights"].numpy().min()) == 7.0
    # the leftover is a recognisable hidden temporary beside it, never the checkpoint's own name ...
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "model.pt"]
    assert leftovers and all(name.startswith(f".model.pt.npgrad-tmp-{proc.pid}-") for name in leftovers), leftovers
    # ... and the next save to that path removes it (its writer is dead) while saving normally
    npgrad.save({"version": 99}, path)
    assert npgrad.load(path)["version"] == 99
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]


@pytest.mark.skipif(os.name != "posix", reason="the writer-is-alive check needs POSIX signals")
def test_only_stale_temporaries_are_removed(tmp_path):
    """A save removes the temporaries of dead or long-silent writers, never a live writer's fresh one."""
    path = tmp_path / "ck.pt"
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    try:
        names = {"live": f".ck.pt.npgrad-tmp-{live.pid}-0000aaaa",
                 "live_but_silent": f".ck.pt.npgrad-tmp-{live.pid}-0000bbbb",
                 "dead": f".ck.pt.npgrad-tmp-{dead.pid}-0000cccc",
                 "other_target": f".other.pt.npgrad-tmp-{dead.pid}-0000dddd",
                 "not_ours": ".ck.pt.backup"}
        for n in names.values():
            (tmp_path / n).write_bytes(b"partial")
        old = time.time() - 120
        os.utime(tmp_path / names["live_but_silent"], (old, old))
        npgrad.save({"a": 1}, path)
        left = {p.name for p in tmp_path.iterdir()}
        assert left == {"ck.pt", names["live"], names["other_target"], names["not_ours"]}
        assert npgrad.load(path) == {"a": 1}
    finally:
        live.kill()
        live.wait()


def test_truncated_copy_of_a_large_checkpoint_is_refused(tmp_path):
    """A checkpoint cut short anywhere (as a crash of a non-atomic copy would leave it) fails to load with
    npgrad's CheckpointError, never with a partial result."""
    path = tmp_path / "big.pt"
    npgrad.save({"w": npgrad.from_numpy(np.arange(250_000, dtype=np.float32)), "step": 5}, path)
    data = path.read_bytes()
    for cut in np.linspace(1, len(data) - 1, 9).astype(int):
        bad = tmp_path / "cut.pt"
        bad.write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match="truncated|corrupted|not an npgrad checkpoint|empty"):
            npgrad.load(bad)
    os.remove(tmp_path / "cut.pt")
