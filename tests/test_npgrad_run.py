"""`npgrad run script.py` runs unmodified PyTorch programs (tests/pytorch_scripts/) on npgrad, and
`npgrad.alias_torch()` does the same inside a process. Each script is plain PyTorch: with PyTorch
installed, the CNN script is also run by PyTorch itself and must pass the same checks."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from oracle import HAS_TORCH

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch_scripts")
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


def _run(args, cwd):
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV)
    assert out.returncode == 0, f"{args}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def _npgrad_run(script, *args, cwd):
    return _run([sys.executable, "-m", "npgrad", "run", os.path.join(HERE, script), *args], cwd)


def _check_cnn(out, lib):
    losses = [float(v) for v in re.findall(r"epoch \d+ loss ([\d.]+)", out)]
    assert len(losses) == 3 and losses[-1] < losses[0], out
    m = re.search(r"accuracy ([\d.]+) reloaded_equal (\w+) torch_is (\w+) argv (.*)", out)
    assert m and float(m.group(1)) >= 0.9 and m.group(2) == "True" and m.group(3) == lib, out
    assert m.group(4) == "['--epochs', '3', '--out', '.']", out  # sys.argv as `python script.py ...` gives


def test_cnn_training_script(tmp_path):
    _check_cnn(_npgrad_run("cnn_train.py", "--epochs", "3", "--out", ".", cwd=tmp_path), "npgrad")
    assert (tmp_path / "cnn.pt").exists()
    if HAS_TORCH:  # the same file is real PyTorch code
        _check_cnn(_run([sys.executable, os.path.join(HERE, "cnn_train.py"), "--epochs", "3", "--out", "."],
                        tmp_path), "torch")


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch not installed: nothing to compare the losses with")
def test_cnn_script_gives_pytorchs_losses_from_the_same_start(tmp_path):
    # The same unmodified script, run by npgrad and by PyTorch, from the same data and initial weights
    # (an .npz of NumPy arrays, read with torch.from_numpy): the per-step losses agree to float32 accuracy.
    import torch
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 64)
    rows = np.arange(8)[None, None, :, None]
    # a faint signal in noise, so that the loss stays well above zero over the 8 steps compared
    x = (rng.uniform(0, 1, (64, 1, 8, 8)) + 0.1 * np.where(y[:, None, None, None] == 0, rows < 4, rows >= 4))
    x = x.astype(np.float32)
    model_state = {k: v.numpy() for k, v in _pytorch_cnn_state(torch).items()}
    np.savez(tmp_path / "init.npz", x=x, y=y.astype(np.int64), **model_state)
    args = ("--epochs", "2", "--out", ".", "--init", "init.npz")
    ours = _npgrad_run("cnn_train.py", *args, cwd=tmp_path)
    theirs = _run([sys.executable, os.path.join(HERE, "cnn_train.py"), *args], tmp_path)
    step = re.compile(r"step loss ([-\d.e]+)")
    a, b = [float(v) for v in step.findall(ours)], [float(v) for v in step.findall(theirs)]
    assert len(a) == len(b) == 8 and "torch_is npgrad" in ours and "torch_is torch" in theirs
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)
    assert min(a) > 0.1


def _pytorch_cnn_state(torch):
    nn = torch.nn
    net = nn.Module()
    net.conv1, net.bn, net.fc = nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.Linear(8 * 4 * 4, 2)
    return net.state_dict()


def test_gpt_training_script(tmp_path):
    out = _npgrad_run("gpt_train.py", cwd=tmp_path)
    first, last, uniform = map(float, re.search(r"loss ([\d.]+) -> ([\d.]+) \(uniform ([\d.]+)\)", out).groups())
    assert last < 0.5 * first and first < uniform + 0.5, out


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch not installed: nothing to compare the losses with")
def test_gpt_script_gives_pytorchs_losses_from_the_same_start(tmp_path):
    # As the CNN test: the transformer script (Embedding, TransformerEncoderLayer with a causal mask, AdamW,
    # clipping, LambdaLR) from PyTorch's initial weights and the same batches, 20 steps.
    import torch
    import importlib.util
    torch.manual_seed(2)
    spec = importlib.util.spec_from_file_location("gpt_model", os.path.join(HERE, "gpt_train.py"))
    src = open(spec.origin).read().split("model = TinyGPT")[0]   # the model definition, run by PyTorch
    scope = {"__name__": "gpt_model"}
    sys_argv, sys.argv = sys.argv, ["gpt_train.py"]
    try:
        exec(compile(src, spec.origin, "exec"), scope)
    finally:
        sys.argv = sys_argv
    state = {k: v.numpy() for k, v in scope["TinyGPT"](len(scope["chars"])).state_dict().items()}
    ix = np.random.default_rng(2).integers(0, len(scope["data"]) - 17, (20, 8))
    np.savez(tmp_path / "init.npz", ix=ix, **state)
    ours = _npgrad_run("gpt_train.py", "--init", "init.npz", cwd=tmp_path)
    theirs = _run([sys.executable, os.path.join(HERE, "gpt_train.py"), "--init", "init.npz"], tmp_path)
    step = re.compile(r"step loss ([-\d.e]+)")
    a, b = [float(v) for v in step.findall(ours)], [float(v) for v in step.findall(theirs)]
    assert len(a) == len(b) == 20
    np.testing.assert_allclose(a, b, rtol=1e-5)
    assert a[-1] < a[0]


def test_a_missing_submodule_is_named_not_taken_from_pytorch(tmp_path):
    script = tmp_path / "uses_missing.py"
    script.write_text("import torch.no_such_module\n")
    out = subprocess.run([sys.executable, "-m", "npgrad", "run", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0
    assert "ModuleNotFoundError: No module named 'torch.no_such_module': npgrad has no" in out.stderr


def test_alias_torch_in_a_process():
    code = ("import npgrad; npgrad.alias_torch(); import torch, torch.nn as nn; "
            "from torch.nn import functional as F; from torch.utils.data import DataLoader; "
            "import npgrad.utils.data as D; "
            "assert torch is npgrad and nn is npgrad.nn and F is npgrad.nn.functional and DataLoader is D.DataLoader; "
            "print(torch.ones(2).sum().item())")
    assert _run([sys.executable, "-c", code], HERE).strip() == "2.0"


@pytest.mark.skipif(not HAS_TORCH, reason="needs the real PyTorch imported first")
def test_alias_torch_refuses_after_the_real_pytorch():
    code = "import torch, npgrad\ntry:\n    npgrad.alias_torch()\nexcept RuntimeError as e:\n    print(e)\n"
    assert "the real PyTorch is already imported" in _run([sys.executable, "-c", code], HERE)


# -- children started by spawn/forkserver re-import the script: they must get npgrad too ----------------------
def _children(out):
    return [line.split(" ", 2) for line in out.splitlines() if line.startswith("child ")]


@pytest.mark.parametrize("mode", ["spawn", "spawn-process", "forkserver-process"])
def test_spawned_children_get_npgrad(tmp_path, mode):
    out = _npgrad_run("spawned_children.py", mode, cwd=tmp_path)
    assert "parent npgrad" in out, out
    # index, torch's name, another process, the parent's npgrad (not just any), the tensor sent back
    assert _children(out) == [["child", "0", "npgrad True True [0.0, 0.0]"],
                              ["child", "1", "npgrad True True [1.0, 1.0]"]], out


def test_dataloader_workers_started_by_spawn_get_npgrad(tmp_path):
    out = _npgrad_run("spawned_children.py", "dataloader", cwd=tmp_path)
    rows = [row[2].split() for row in _children(out)]
    assert [r[0] for r in rows] == ["npgrad"] * 4 and {r[1] for r in rows} == {"True"}, out
    assert sorted(int(row[1]) for row in _children(out)) == [0, 1, 2, 3]
    assert {r[2] for r in rows} == {"0", "1"}, out  # both workers built batches


def test_spawned_children_get_the_parents_npgrad_not_another(tmp_path):
    # npgrad found through a sys.path entry the parent added (no PYTHONPATH): a child's interpreter would
    # not find it, or would find another installed copy, without the parent's directory.
    src = os.path.dirname(os.path.dirname(os.path.abspath(__import__("npgrad").__file__)))
    code = (f"import sys; sys.path.insert(0, {src!r}); from npgrad.cli import main; "
            f"main(['run', {os.path.join(HERE, 'spawned_children.py')!r}, 'spawn-process'])")
    env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert [row[2] for row in _children(out.stdout)] == ["npgrad True True [0.0, 0.0]",
                                                         "npgrad True True [1.0, 1.0]"], out.stdout


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch not installed: the script is only run on npgrad")
def test_spawned_children_script_is_pytorch_code(tmp_path):
    out = _run([sys.executable, os.path.join(HERE, "spawned_children.py"), "spawn"], tmp_path)
    assert "parent torch" in out and [row[2] for row in _children(out)] == [
        "torch True True [0.0, 0.0]", "torch True True [1.0, 1.0]"], out


# -- npgrad run behaves as `python script.py` at its edges: errors, missing files, -m -------------------------
def _both(args_python, args_npgrad, cwd):
    return [subprocess.run(a, cwd=cwd, capture_output=True, text=True, timeout=120, env=ENV)
            for a in (args_python, args_npgrad)]


FAILING = "def inner():\n    raise ValueError('boom')\n\n\ndef outer():\n    inner()\n\n\nouter()\n"


@pytest.mark.parametrize("source", [FAILING, "x = (\n", "raise SystemExit(3)\n"], ids=["raises", "syntax", "exit"])
def test_a_failing_script_reports_as_python_does(tmp_path, source):
    (tmp_path / "fails.py").write_text(source)
    py, ours = _both([sys.executable, "fails.py"], [sys.executable, "-m", "npgrad", "run", "fails.py"], tmp_path)
    assert ours.returncode == py.returncode != 0
    assert ours.stderr == py.stderr  # the same traceback: not one frame of npgrad's launcher or runpy
    assert "npgrad" not in ours.stderr and "runpy" not in ours.stderr


def test_a_missing_script_is_one_line_and_exit_code_2(tmp_path):
    py, ours = _both([sys.executable, "nope.py"], [sys.executable, "-m", "npgrad", "run", "nope.py"], tmp_path)
    assert ours.returncode == py.returncode == 2
    assert ours.stderr.splitlines() == [f"npgrad run: can't open file {str(tmp_path / 'nope.py')!r}: "
                                        "[Errno 2] No such file or directory"]
    assert py.stderr.split(": ", 1)[1] == ours.stderr.split(": ", 1)[1]  # python's words after the program name


@pytest.mark.parametrize("argv, says", [([], "a script to run is required (or -m module)"),
                                        (["-m"], "argument -m: expected one argument")])
def test_npgrad_run_without_a_script_prints_its_usage(tmp_path, argv, says):
    out = subprocess.run([sys.executable, "-m", "npgrad", "run", *argv], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env=ENV)
    assert out.returncode == 2
    assert out.stderr.splitlines() == ["usage: npgrad run [-h] [torchrun options] (script | -m module) [args ...]",
                                       f"npgrad run: error: {says}"]


def test_npgrad_run_m_runs_a_module_as_python_m_does(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text("import sys, torch\nprint(__name__, sys.argv, torch.__name__, sys.path[0])\n"
                                  "if '--fail' in sys.argv:\n    raise KeyError(3)\n")
    for argv in (["-m", "mypkg.train"], ["-mmypkg.train"]):
        out = subprocess.run([sys.executable, "-m", "npgrad", "run", *argv, "--epochs", "2"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, env=ENV)
        assert out.returncode == 0, out.stderr
        assert out.stdout == f"__main__ {[str(pkg / 'train.py'), '--epochs', '2']} npgrad {tmp_path}\n"
    failed = subprocess.run([sys.executable, "-m", "npgrad", "run", "-m", "mypkg.train", "--fail"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env=ENV)
    assert failed.returncode == 1
    assert failed.stderr.splitlines()[:2] == ["Traceback (most recent call last):",
                                              f'  File "{pkg / "train.py"}", line 4, in <module>']
    missing = subprocess.run([sys.executable, "-m", "npgrad", "run", "-m", "no_such_module_here"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, env=ENV)
    assert missing.returncode == 1 and missing.stderr == "npgrad run: No module named no_such_module_here\n"


def test_reprs_under_npgrad_run_read_as_torchs(tmp_path):
    script = tmp_path / "shapes.py"
    script.write_text("import torch\nx = torch.zeros(256, 784, dtype=torch.float64)\n"
                      "print(x.shape, x.dtype, repr(x[:1, :2]))\n")
    out = _npgrad_run(str(script), cwd=tmp_path)
    assert out.strip() == "torch.Size([256, 784]) torch.float64 tensor([[0., 0.]], dtype=torch.float64)", out
    if HAS_TORCH:  # what PyTorch itself prints
        assert _run([sys.executable, str(script)], tmp_path) == out
