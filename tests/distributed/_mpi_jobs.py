"""Starting MPI jobs from pytest: ``mpiexec -n N python -m mpi4py script`` with a timeout."""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "scripts")
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")


def need_mpi():
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install npgrad[distributed])")
    if shutil.which("mpiexec") is None:
        pytest.skip("no mpiexec on PATH (pip install npgrad[distributed] installs mpich)")


def mpirun(n, script, *args, timeout=60, via_mpi4py=True, cwd=None):
    """Run ``scripts/<script>`` (or ``-m module``) on ``n`` processes; returns the CompletedProcess, or fails
    the test when the job outlives ``timeout`` (never hangs the suite)."""
    need_mpi()
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = "1"
    path = script if os.path.isabs(script) or script.startswith("-") else os.path.join(SCRIPTS, script)
    runner = [sys.executable, "-m", "mpi4py"] if via_mpi4py else [sys.executable]
    cmd = [shutil.which("mpiexec"), "-n", str(n), *runner, path, *map(str, args)]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{' '.join(cmd)} did not finish in {timeout} s (a hang)\n{e.stdout}\n{e.stderr}")


def check_ok(proc, n):
    """The job exited 0 and rank 0 reported all ``n`` ranks done (``OK <n> ranks ...``)."""
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert f"OK {n} ranks" in proc.stdout, out
    return proc.stdout
