"""Complex tensors through npgrad.save/load and PyTorch's checkpoint format, both ways."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

VALUES = np.array([[1 + 2j, -0.5j], [3.25, 1e-3 - 7j]])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_round_trip(tmp_path, dtype):
    t = npgrad.tensor(VALUES, dtype=getattr(npgrad, dtype))
    npgrad.save({"w": t, "col": t[:, 1]}, tmp_path / "c.pt")
    back = npgrad.load(tmp_path / "c.pt")
    assert back["w"].dtype is t.dtype and np.array_equal(back["w"].numpy(), t.numpy())
    assert np.array_equal(back["col"].numpy(), t.numpy()[:, 1])


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch reads and writes the other side of the checkpoint")
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_torch_reads_and_writes_complex_checkpoints(tmp_path, dtype):
    npgrad.save(npgrad.tensor(VALUES, dtype=getattr(npgrad, dtype)), tmp_path / "n.pt", format="torch")
    got = torch.load(tmp_path / "n.pt", weights_only=True)
    assert got.dtype == getattr(torch, dtype) and np.array_equal(got.numpy(), VALUES.astype(dtype))
    torch.save({"z": torch.tensor(VALUES, dtype=getattr(torch, dtype)).t()}, tmp_path / "t.pt")
    z = npgrad.load(tmp_path / "t.pt")["z"]
    assert z.dtype is getattr(npgrad, dtype) and np.array_equal(z.numpy(), VALUES.astype(dtype).T)
