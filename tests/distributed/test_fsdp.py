"""Sharded data parallel: FullyShardedDataParallel, fully_shard and ZeroRedundancyOptimizer.

The exactness checks run in one mpiexec job per world size (scripts/sharded.py: 2 ranks, and 3 for uneven
shards, every strategy and both auto-wrap policies, 20 SGD and 20 AdamW steps against one process on the
whole batch, state dicts, summon_full_params, clip_grad_norm_, no_sync, optimizer state dicts). The
wrap policies and the shard record are plain functions, tested here in-process, against PyTorch's when
it is installed.
"""
import functools

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from npgrad.distributed._sharded import LocalShard
from npgrad.distributed.fsdp import ShardingStrategy, StateDictType
from npgrad.distributed.fsdp.wrap import (ModuleWrapPolicy, _auto_wrap, size_based_auto_wrap_policy,
                                          transformer_auto_wrap_policy)
from npgrad.distributed.fsdp._units import chunk_rows
from oracle import HAS_TORCH, torch

from _mpi_jobs import check_ok, mpirun


@pytest.mark.parametrize("n", [2, 3])
def test_sharded_training_matches_one_process_on_the_whole_batch(n):
    check_ok(mpirun(n, "sharded.py", timeout=240), n)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.norm = nn.LayerNorm(6)


def _model():
    return nn.Sequential(nn.Linear(3, 6), Block(), nn.ModuleList([nn.Linear(6, 6)]), nn.Linear(6, 2))


def _wrapped_paths(policy):
    """Which submodules the auto-wrap walk wraps (marking them instead of building FSDP units)."""
    model = _model()
    marked = []

    class Mark(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            marked.append(inner)
    _auto_wrap(model, policy, Mark, lambda m: isinstance(m, Mark))
    names = {id(m): n for n, m in _model_names(model)}
    return sorted(names[id(m)] for m in marked)


def _model_names(model):
    out = []

    def walk(m, path):
        out.append((path, m))
        for k, c in m._modules.items():
            walk(c.inner if type(c).__name__ == "Mark" else c, f"{path}.{k}" if path else k)
    walk(model, "")
    return out


@pytest.mark.parametrize("policy,expected", [
    # Linear(3, 6): 24 parameters; Block: fc 42 + norm 12; ModuleList [Linear(6, 6): 42]; Linear(6, 2): 14.
    # Block is not wrapped by size: only its norm's 12 parameters are left once fc is a unit of its own.
    (functools.partial(size_based_auto_wrap_policy, min_num_params=40), ["1.fc", "2.0"]),
    (functools.partial(size_based_auto_wrap_policy, min_num_params=20), ["0", "1.fc", "2.0"]),
    (functools.partial(size_based_auto_wrap_policy, min_num_params=10), ["0", "1.fc", "1.norm", "2.0", "3"]),
    (functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}), ["1"]),
    (ModuleWrapPolicy({nn.Linear}), ["0", "1.fc", "2.0", "3"]),
])
def test_auto_wrap_wraps_children_before_parents(policy, expected):
    assert _wrapped_paths(policy) == expected


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("recurse", [True, False])
@pytest.mark.parametrize("numel", [0, 99, 100, 1000])
def test_size_based_policy_answers_like_pytorchs(recurse, numel):
    from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy as theirs
    for ours_m, their_m in ((nn.Linear(2, 2), torch.nn.Linear(2, 2)), (nn.ModuleList(), torch.nn.ModuleList()),
                            (nn.MultiheadAttention(4, 2), torch.nn.MultiheadAttention(4, 2))):
        assert size_based_auto_wrap_policy(ours_m, recurse, numel, min_num_params=100) == \
            theirs(their_m, recurse, numel, min_num_params=100)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
def test_enums_and_configs_match_pytorchs():
    import torch.distributed.fsdp as tf
    from npgrad.distributed import fsdp
    for name in ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"):
        assert ShardingStrategy[name].value == tf.ShardingStrategy[name].value
    for name in ("FULL_STATE_DICT", "SHARDED_STATE_DICT"):
        assert StateDictType[name].value == tf.StateDictType[name].value
    for cfg in ("FullStateDictConfig", "ShardedStateDictConfig", "FullOptimStateDictConfig"):
        assert repr(getattr(fsdp, cfg)()) == repr(getattr(tf, cfg)())
    assert repr(fsdp.FullStateDictConfig(offload_to_cpu=True, rank0_only=True)) == \
        repr(tf.FullStateDictConfig(offload_to_cpu=True, rank0_only=True))


@pytest.mark.parametrize("n,world", [(5, 2), (5, 3), (2, 3), (0, 2), (9, 3)])
def test_chunks_are_torch_chunks(n, world):
    c, bounds = chunk_rows(n, world)
    pieces = np.array_split(np.arange(n), [b for _, b in bounds[:-1]])
    if HAS_TORCH:
        theirs = [t.tolist() for t in torch.arange(n).chunk(world)] if n else []
        assert [p.tolist() for p in pieces if len(p)] == theirs
    assert sum(b - a for a, b in bounds) == n and all(b - a <= c for a, b in bounds)


def test_local_shard_checks_its_place():
    s = LocalShard(npgrad.zeros(2, 3), (5, 3), (3, 0))
    assert s.global_shape == (5, 3) and s.offsets == (3, 0)
    with pytest.raises(ValueError, match="does not fit"):
        LocalShard(npgrad.zeros(2, 3), (4, 3), (3, 0))
    with pytest.raises(ValueError, match="dimensions"):
        LocalShard(npgrad.zeros(2, 3), (5, 3), (3,))


def test_memory_benchmark_shows_the_state_per_rank_halving(tmp_path):
    """benchmarks.fsdp_memory on a small model: on 2 processes each holds half the parameters, gradients and
    AdamW state of one process, and at most one unit (one Linear) gathered at a time."""
    import json
    import os
    import subprocess
    import sys
    from _mpi_jobs import SRC, need_mpi
    need_mpi()
    root = os.path.dirname(SRC)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, root, os.environ.get("PYTHONPATH", "")]))
    code = ("import json, sys; from benchmarks import fsdp_memory as f; "
            "a = f.argparse.Namespace(layers=2, width=64, batch=2, steps=1); "
            "print(json.dumps([f._launch(n, a) for n in (1, 2)]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env,
                          cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    one, two = json.loads(proc.stdout.strip().splitlines()[-1])
    state = [[x["params"] + x["grads"] + x["adam"] for x in r["ranks"]] for r in (one, two)]
    unit = (64 * 64 + 64) * 4
    assert len(state[1]) == 2 and all(s == state[0][0] // 2 for s in state[1]), state
    assert all(0 < x["gathered_peak"] <= unit for x in two["ranks"]), two
    from benchmarks.fsdp_memory import table
    assert "| 0.50 |" in table([one, two])  # the "of 1 process" column
