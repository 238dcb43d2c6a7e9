"""The compiled kernels on every MPI rank: each rank runs a small transformer-style step with kernels on (and, at
one rank's data, off) and allreduces the gradients; every rank ends with the same, NumPy-path-equal, result."""
import numpy as np

import npgrad as torch
import npgrad.distributed as dist
from npgrad.nn import functional as F

dist.init_process_group("mpi")
r, n = dist.get_rank(), dist.get_world_size()
torch.backends.kernels.enabled = True  # (even where NPGRAD_KERNELS=0 turned them off for the test run)
assert torch.kernels.ready(), torch.kernels.status()


def step(rank, compiled):
    torch.backends.kernels.enabled = compiled
    rng = np.random.default_rng(rank)
    x = torch.tensor(rng.standard_normal((64, 48)).astype(np.float32), requires_grad=True)
    w = torch.tensor(np.linspace(0.5, 1.5, 48, dtype=np.float32), requires_grad=True)
    h = F.gelu(F.layer_norm(x, (48,), w))
    q = h.reshape(4, 16, 48)
    a = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    loss = F.cross_entropy(a.reshape(64, 48), torch.tensor(np.arange(64) % 48))
    loss.backward()
    torch.backends.kernels.enabled = True
    return x.grad.numpy(), w.grad.numpy()


gx, gw = step(r, True)
total = torch.from_numpy(gw.copy())
dist.all_reduce(total)
expected = sum(step(k, False)[1] for k in range(n))
np.testing.assert_allclose(total.numpy(), expected, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(gx, step(r, False)[0], rtol=1e-5, atol=1e-6)
dist.barrier()
if r == 0:
    print(f"OK {n} ranks: kernels on every rank agree with the NumPy path")
dist.destroy_process_group()
