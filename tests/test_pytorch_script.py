"""An ordinary PyTorch training script runs unchanged with npgrad standing in for torch.

The script below is plain PyTorch: a Module subclass, TensorDataset + DataLoader, SGD with momentum
and weight decay, a StepLR schedule, a train/eval loop and a state_dict round trip. It runs twice in
fresh processes: once importing the real torch, once with ``torch`` (and its submodules) resolving to
npgrad. Both start from the same initial weights; the loss curves and final accuracy must agree.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from oracle import HAS_TORCH

SCRIPT = '''
import json, sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.body(x))


def main(data_path, out_path):
    data = np.load(data_path)
    model = Net()
    state = {k[5:]: torch.tensor(data[k]) for k in data.files if k.startswith("init:")}
    model.load_state_dict(state)
    train = TensorDataset(torch.tensor(data["X"]), torch.tensor(data["y"]))
    loader = DataLoader(train, batch_size=32, shuffle=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    losses, vals = [], []
    for epoch in range(5):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        sched.step()
        model.eval()
        with torch.no_grad():
            logits = model(torch.tensor(data["Xv"]))
            vals.append(F.cross_entropy(logits, torch.tensor(data["yv"])).item())
            acc = (logits.argmax(dim=1) == torch.tensor(data["yv"])).float().mean().item()
    restored = Net()
    restored.load_state_dict(model.state_dict())
    restored.eval()
    with torch.no_grad():
        same = torch.equal(restored(torch.tensor(data["Xv"])), model(torch.tensor(data["Xv"])))
    json.dump({"losses": losses, "vals": vals, "acc": acc, "same": bool(same),
               "lr": sched.get_last_lr()[0]}, open(out_path, "w"))


main(sys.argv[1], sys.argv[2])
'''

# Makes `import torch`, `import torch.nn as nn`, `from torch.utils.data import ...` resolve to npgrad.
SHIM = '''
import sys, npgrad, npgrad.nn, npgrad.nn.functional, npgrad.optim, npgrad.optim.lr_scheduler, npgrad.utils.data
for name, mod in {"torch": npgrad, "torch.nn": npgrad.nn, "torch.nn.functional": npgrad.nn.functional,
                  "torch.optim": npgrad.optim, "torch.optim.lr_scheduler": npgrad.optim.lr_scheduler,
                  "torch.utils": npgrad.utils, "torch.utils.data": npgrad.utils.data}.items():
    sys.modules[name] = mod
'''


def _data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((160, 10)).astype(np.float32)
    w = rng.standard_normal((10, 3)).astype(np.float32)
    y = np.argmax(X @ w + 0.3 * rng.standard_normal((160, 3)), axis=1).astype(np.int64)
    init = {"body.0.weight": (32, 10), "body.0.bias": (32,), "body.1.weight": (32,), "body.1.bias": (32,),
            "body.1.running_mean": (32,), "body.1.running_var": (32,), "body.3.weight": (16, 32),
            "body.3.bias": (16,), "head.weight": (3, 16), "head.bias": (3,)}
    arrays = {f"init:{k}": (rng.uniform(-0.3, 0.3, s).astype(np.float32) if "running" not in k else
                            (np.zeros(s, np.float32) if "mean" in k else np.ones(s, np.float32)))
              for k, s in init.items()}
    arrays["init:body.1.num_batches_tracked"] = np.array(0, np.int64)
    path = tmp_path / "data.npz"
    np.savez(path, X=X[:128], y=y[:128], Xv=X[128:], yv=y[128:], **arrays)
    return path


def _run(tmp_path, prelude, tag):
    script = tmp_path / f"train_{tag}.py"
    script.write_text(prelude + SCRIPT)
    out = tmp_path / f"{tag}.json"
    res = subprocess.run([sys.executable, str(script), str(tmp_path / "data.npz"), str(out)],
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(out.read_text())


def test_script_runs_with_npgrad_as_torch(tmp_path):
    _data(tmp_path)
    got = _run(tmp_path, SHIM, "npgrad")
    assert len(got["losses"]) == 5 * 4
    assert np.mean(got["losses"][-4:]) < 0.9 * np.mean(got["losses"][:4])  # it learns
    assert got["acc"] > 0.5  # three classes
    assert got["same"] and abs(got["lr"] - 0.1 * 0.5 ** 2) < 1e-12


if HAS_TORCH:
    def test_same_loss_curve_as_pytorch(tmp_path):
        _data(tmp_path)
        ours = _run(tmp_path, SHIM, "npgrad")
        theirs = _run(tmp_path, "", "torch")
        np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=2e-4, atol=1e-5)
        np.testing.assert_allclose(ours["vals"], theirs["vals"], rtol=2e-4, atol=1e-5)
        assert ours["acc"] == pytest.approx(theirs["acc"])
        assert ours["lr"] == theirs["lr"]
