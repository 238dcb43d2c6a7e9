"""npgrad.utils.tensorboard loads only on request, and is torch.utils.tensorboard under `npgrad run`."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("tensorboard", reason="SummaryWriter needs the optional tensorboard package")

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
ENV = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _python(code, cwd):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV, cwd=cwd)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_import_npgrad_does_not_load_tensorboard(tmp_path):
    out = _python("import sys, npgrad, npgrad.utils; print('tensorboard' in sys.modules, "
                  "'npgrad.utils.tensorboard' in sys.modules)", tmp_path)
    assert out.split() == ["False", "False"]


def test_reachable_as_torch_utils_tensorboard_under_npgrad_run(tmp_path):
    script = tmp_path / "log.py"
    script.write_text(
        "import torch\n"
        "from torch.utils.tensorboard import SummaryWriter\n"
        "import npgrad.utils.tensorboard as tb\n"
        "assert SummaryWriter is tb.SummaryWriter\n"
        "with SummaryWriter('tb') as w:\n"
        "    w.add_scalar('x', torch.tensor(2.0), 1)\n"
        "print('ok', type(torch.tensor(1.0)).__module__)\n")
    out = subprocess.run([sys.executable, "-m", "npgrad", "run", str(script)], capture_output=True, text=True,
                         timeout=120, env=ENV, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["ok", "npgrad.tensor"]
    from _read import accumulator
    assert accumulator(tmp_path / "tb").Scalars("x")[0].value == 2.0
