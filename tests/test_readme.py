"""Every code block of README.md runs.

Python blocks run as written (they assert their own results). Shell blocks run command by command;
the few that would be recursive or long run in a cheap but real form, listed in ``_SHELL``:
installs as ``pip --dry-run``, the test command as a collection of the suite (plus a check that CI
runs exactly it), the benchmark on one small workload. ``text`` blocks are sample output, not code.
"""
import csv
import importlib.util
import math
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as _f:
    README = _f.read()
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, flags=re.S | re.M)
TEST_COMMAND = 'python -m pip install --quiet -e ".[test]" && python -m pytest'


def _run(args, cwd=ROOT, env=None, timeout=600):
    out = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{args} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def _pip_dry_run(spec):
    # With build isolation, as the README's command runs: --no-build-isolation would need the `wheel`
    # package for setuptools < 70.1, which a fresh virtualenv does not have.
    _run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "-e", spec])


def _train_mnist(tmp_path):
    # The real command, on the embedded digits: MNIST and the cache are pointed at empty folders.
    exe = shutil.which("npgrad")
    assert exe, "the `npgrad` console script is not installed (pip install -e .)"
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(os.environ, NPGRAD_DATA=str(empty), XDG_CACHE_HOME=str(empty), HOME=str(tmp_path),
               OPENBLAS_NUM_THREADS="1")
    out = _run([exe, "train", "mnist"], cwd=tmp_path, env=env)
    assert "embedded" in out.stdout and "test accuracy" in out.stdout
    assert (tmp_path / "runs" / "mnist" / "model.npgrad").exists()
    for body in RUN_BLOCKS:  # the README's code that reloads what the command wrote
        _run([sys.executable, "-c", body], cwd=tmp_path, env=env)
    run = tmp_path / "runs" / "mnist"
    if importlib.util.find_spec("matplotlib") is not None:
        assert (run / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:  # the numbers instead of the picture, and the command says how to get the picture
        assert "pip install matplotlib" in out.stdout and not (run / "curves.png").exists()
        with open(run / "curves.csv", newline="", encoding="utf-8") as f:
            header, *rows = list(csv.reader(f))
        assert header == ["epoch", "loss/train", "loss/test", "accuracy (%)/train", "accuracy (%)/test"]
        assert len(rows) > 40 and all(len(r) == len(header) for r in rows)
        assert [float(r[0]) for r in rows] == sorted(float(r[0]) for r in rows)
        assert all(math.isfinite(float(v)) for r in rows for v in r if v)
        assert all(r[2] and r[4] for r in rows if float(r[0]).is_integer())  # a test point ends each epoch


def _test_command(tmp_path):
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    assert TEST_COMMAND in ci, ".ci/run must run the README's test command verbatim"
    _pip_dry_run(".[test]")
    _run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"])


def _benchmark(tmp_path):
    out = _run([sys.executable, "-m", "benchmarks.run", "overhead", "--repeats", "1", "--warmup", "0"])
    assert "| overhead" in out.stdout


def _isolated(tmp_path):
    out = _run([sys.executable, "-m", "benchmarks.isolated", "overhead", "--rounds", "1", "--steps", "2",
                "--warmup", "0"])
    assert "| overhead" in out.stdout


def _scaling(tmp_path):
    pytest.importorskip("torch", reason="the scaling sweep compares npgrad with PyTorch")
    out = _run([sys.executable, "-m", "benchmarks.scaling", "--quick", "--width", "8", "--batch", "2", "--channels",
                "2", "--min-time", "0", "--csv", str(tmp_path / "s.csv"), "--png", str(tmp_path / "s.png")])
    assert "| width | 8 |" in out.stdout


_SHELL = {
    "pip install -e .": lambda tmp: _pip_dry_run("."),
    'pip install -e ".[examples]"': lambda tmp: _pip_dry_run(".[examples]"),
    "npgrad train mnist": _train_mnist,
    TEST_COMMAND: _test_command,
    "python -m benchmarks.run": _benchmark,
    "python -m benchmarks.isolated": _isolated,
    "python -m benchmarks.scaling": _scaling,
}


def _commands(body):
    for line in body.splitlines():
        line = line.split("  #")[0].strip()
        if line:
            yield line


CODE = [(lang, body) for lang, body in BLOCKS if lang != "text"]
# Python blocks that read the files `npgrad train mnist` writes run after it, where it wrote them.
RUN_BLOCKS = [body for lang, body in CODE if lang == "python" and "runs/mnist/" in body]


def test_readme_has_the_blocks_this_test_knows():
    assert {lang for lang, _ in BLOCKS} <= {"python", "bash", "text"}
    shell = [c for lang, body in CODE if lang == "bash" for c in _commands(body)]
    assert TEST_COMMAND in shell and "npgrad train mnist" in shell
    assert sum(lang == "python" for lang, _ in CODE) >= 2 and RUN_BLOCKS


@pytest.mark.parametrize("index", [i for i, (lang, body) in enumerate(CODE) if lang == "python" and
                                   body not in RUN_BLOCKS])
def test_python_block_runs(index):
    _run([sys.executable, "-c", CODE[index][1]], env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))


@pytest.mark.parametrize("command", [c for lang, body in CODE if lang == "bash" for c in _commands(body)],
                         ids=lambda c: shlex.split(c)[0] + ":" + c[:40])
def test_shell_command_runs(command, tmp_path):
    assert command in _SHELL, f"README command {command!r} has no runner in tests/test_readme.py"
    _SHELL[command](tmp_path)
