"""Smoke tests for examples/cifar10_resnet18.py: it runs as written under ``npgrad run`` (torchvision there is
npgrad.vision) and, where torchvision imports, on PyTorch + torchvision too. No CIFAR-10 is on disk in
these runs, so the script must fall back to FakeData by itself; tiny sizes keep each run to a few steps.
"""
import os
import pathlib
import re
import subprocess
import sys

import pytest

from tv_oracle import HAS_TV

# The example's datasets hand out PIL images, as torchvision's do: it needs the vision extra (Pillow).
pytest.importorskip("PIL", reason="the vision example needs Pillow (pip install npgrad[vision])")

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "cifar10_resnet18.py"
TINY = ["--fake-size", "8", "--batch-size", "8", "--lr", "0.01"]


def epoch_losses(stdout):
    return [float(v) for v in re.findall(r"^epoch \d+: train loss ([^,]+),", stdout, re.M)]


def run(cmd, cwd):
    import npgrad
    # The child runs in a temporary folder: give it the npgrad this test imported, whatever put it on sys.path.
    src = str(pathlib.Path(npgrad.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_trains_under_npgrad_run_on_fakedata_and_the_loss_falls(tmp_path):
    out = run([sys.executable, "-m", "npgrad", "run", str(SCRIPT), "--data-dir", str(tmp_path / "none"),
               *TINY, "--epochs", "3", "--no-augment"], tmp_path)
    assert "training on FakeData instead" in out
    assert "resnet18 with 11,181,642 parameters" in out  # torchvision's resnet18(num_classes=10)
    losses = epoch_losses(out)
    assert len(losses) == 3
    assert all(0 < v < 10 for v in losses), losses
    assert losses[-1] < 0.5 * losses[0], losses  # eight fixed images: memorised within three steps


def test_augmented_pipeline_runs_and_saves_a_resnet18_state_dict(tmp_path):
    import npgrad
    from npgrad.vision.models import resnet18
    ckpt = tmp_path / "r18.pt"
    out = run([sys.executable, "-m", "npgrad", "run", str(SCRIPT), "--fake-data", *TINY, "--epochs", "1",
               "--save", str(ckpt)], tmp_path)
    assert len(epoch_losses(out)) == 1
    model = resnet18(num_classes=10)
    model.load_state_dict(npgrad.load(str(ckpt)))  # strict: every key of torchvision's layout is there


@pytest.mark.skipif(not HAS_TV, reason="needs torch and torchvision")
def test_same_file_runs_on_pytorch_and_torchvision(tmp_path):
    # torchvision's compiled ops do not load on the CPU torch wheel; tv_oracle declares their schemas first.
    boot = ("import runpy, sys; sys.path[:0] = [{t!r}, {v!r}]; import tv_oracle; "
            "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')").format(
        t=str(ROOT / "tests"), v=str(ROOT / "tests" / "vision"))
    out = run([sys.executable, "-c", boot, str(SCRIPT), "--data-dir", str(tmp_path / "none"), *TINY,
               "--epochs", "3", "--no-augment"], tmp_path)
    losses = epoch_losses(out)
    assert len(losses) == 3 and losses[-1] < 0.5 * losses[0], losses
