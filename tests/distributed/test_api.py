"""torch.distributed's surface in one process: what works without MPI, and its errors before init."""
import subprocess
import sys

import numpy as np
import pytest

import npgrad
import npgrad.distributed as dist
from npgrad import nn
from oracle import HAS_TORCH, torch

NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


@pytest.mark.parametrize("call", [
    lambda: dist.get_rank(), lambda: dist.get_world_size(), lambda: dist.barrier(),
    lambda: dist.all_reduce(npgrad.ones(2)), lambda: dist.broadcast(npgrad.ones(2), src=0),
    lambda: dist.all_gather_object([None], 1), lambda: dist.new_group([0]), lambda: dist.destroy_process_group(),
    lambda: nn.parallel.DistributedDataParallel(nn.Linear(2, 2))])
def test_before_init_pytorchs_error(call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == NOT_INIT


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: its names are the reference")
def test_names_as_pytorchs():
    import torch.distributed as td
    assert list(dist.ReduceOp.RedOpType.__members__)[:8] == list(td.ReduceOp.RedOpType.__members__)[:8]
    for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        assert repr(getattr(dist.ReduceOp, op)) == repr(getattr(td.ReduceOp, op))
        assert int(getattr(dist.ReduceOp, op)) == int(getattr(td.ReduceOp.RedOpType, op))
    assert dist.Backend("MPI") == td.Backend("MPI") == "mpi"
    import inspect
    for name in ("init_process_group", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
                 "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
                 "send", "recv", "isend", "irecv", "broadcast_object_list", "all_gather_object", "gather_object",
                 "scatter_object_list", "new_group", "get_rank", "destroy_process_group"):
        ours = list(inspect.signature(getattr(dist, name)).parameters)
        theirs = [p for p in inspect.signature(getattr(td, name)).parameters if not p.startswith("_")]
        assert ours == theirs[:len(ours)] and len(ours) >= len(theirs) - 1, (name, ours, theirs)
    from torch.nn.parallel import DistributedDataParallel as TorchDDP
    ours = list(inspect.signature(nn.parallel.DistributedDataParallel.__init__).parameters)[:12]
    assert ours == list(inspect.signature(TorchDDP.__init__).parameters)[:12]


def test_backend_and_availability():
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install npgrad[distributed])")
    assert dist.is_available() and dist.is_mpi_available()
    assert not dist.is_nccl_available()
    with pytest.raises(ValueError, match="Invalid backend: 'carrier-pigeon'"):
        dist.init_process_group("carrier-pigeon")
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_importing_needs_numpy_alone():
    """npgrad, npgrad.distributed, DDP and the sampler import without loading mpi4py."""
    code = ("import sys, npgrad, npgrad.distributed, npgrad.nn.parallel, npgrad.utils.data.distributed\n"
            "assert 'mpi4py' not in sys.modules, 'mpi4py imported eagerly'\n"
            "assert npgrad.distributed is sys.modules['npgrad.distributed']\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_torch_distributed_is_npgrad_distributed_under_the_alias():
    code = ("import npgrad; npgrad.alias_torch()\nimport torch\n"
            "import torch.distributed as dist, torch.nn.parallel as par\n"
            "from torch.utils.data.distributed import DistributedSampler\n"
            "import npgrad.distributed, npgrad.nn.parallel\n"
            "assert dist is npgrad.distributed and par is npgrad.nn.parallel\n"
            "assert torch.distributed is dist and torch.nn.parallel.DistributedDataParallel is "
            "npgrad.nn.parallel.DistributedDataParallel\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_queue_callback_runs_after_every_leaf_gradient():
    from npgrad.autograd.engine import queue_callback
    a = npgrad.tensor([1.0, 2.0], requires_grad=True)
    b = npgrad.tensor([3.0], requires_grad=True)
    seen = []

    def first_hook(t):
        seen.append("hook")
        queue_callback(lambda: seen.append(("end", a.grad.tolist(), b.grad.tolist())))
    a.register_post_accumulate_grad_hook(first_hook)
    ((a * b).sum() + b.sum()).backward()
    assert seen == ["hook", ("end", [3.0, 3.0], [4.0])]
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        queue_callback(lambda: None)
    seen.clear()
    (a * 2).sum().backward()  # a callback runs once, in the pass that queued it
    assert seen == ["hook", ("end", [5.0, 5.0], [4.0])]
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 5.0])


def test_one_process_without_mpi_starts_no_progress_thread():
    """Post-accumulate hooks (which now schedule leaves early) and npgrad.distributed alone import no MPI
    and start no thread; the hooks see the same gradients as a backward without them."""
    code = (
        "import sys, threading, numpy as np, npgrad, npgrad.distributed\n"
        "def grads(hook):\n"
        "    npgrad.manual_seed(0)\n"
        "    m = npgrad.nn.Sequential(npgrad.nn.Linear(4, 8), npgrad.nn.Tanh(), npgrad.nn.Linear(8, 2))\n"
        "    if hook:\n"
        "        for p in m.parameters(): p.register_post_accumulate_grad_hook(lambda p: None)\n"
        "    m(npgrad.ones(3, 4)).sum().backward()\n"
        "    return [p.grad.numpy() for p in m.parameters()]\n"
        "assert all(np.array_equal(a, b) for a, b in zip(grads(False), grads(True)))\n"
        "assert 'mpi4py' not in sys.modules, 'MPI imported'\n"
        "assert threading.active_count() == 1, threading.enumerate()\n"
        "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
