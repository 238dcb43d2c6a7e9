"""DistributedSampler: PyTorch's partitions for the same seed and epoch, and the partition's own laws."""
import numpy as np
import pytest

from oracle import HAS_TORCH, torch
from npgrad.utils.data import DistributedSampler, TensorDataset
from npgrad.utils.data.distributed import torch_randperm
import npgrad

CASES = [(n, replicas, shuffle, drop_last) for n in (1, 7, 10, 12, 101) for replicas in (1, 2, 3, 4)
         for shuffle in (True, False) for drop_last in (False, True)]


def shares(n, replicas, shuffle, drop_last, seed=0, epoch=0, cls=DistributedSampler):
    out = []
    for rank in range(replicas):
        s = cls(list(range(n)), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed, drop_last=drop_last)
        s.set_epoch(epoch)
        out.append((list(s), len(s)))
    return out


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: the partitions are compared with its own")
@pytest.mark.parametrize("n,replicas,shuffle,drop_last", CASES)
def test_partitions_equal_pytorchs(n, replicas, shuffle, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for seed, epoch in ((0, 0), (0, 3), (1234, 1), (-5, 2)):
        assert shares(n, replicas, shuffle, drop_last, seed, epoch) == \
            shares(n, replicas, shuffle, drop_last, seed, epoch, TorchSampler), (seed, epoch)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: its randperm is the reference")
@pytest.mark.parametrize("n,seed", [(0, 0), (1, 3), (2, 7), (60000, 11), (1000, 2 ** 40 + 5)])
def test_permutation_is_torch_randperm(n, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    assert torch_randperm(n, seed) == torch.randperm(n, generator=g).tolist()


@pytest.mark.parametrize("n,replicas,shuffle,drop_last", CASES)
def test_partition_laws(n, replicas, shuffle, drop_last):
    """Equal shares; without drop_last every index appears (padding repeats the first ones); with it
    the shares are disjoint and leave out fewer than `replicas` indices."""
    got = shares(n, replicas, shuffle, drop_last, seed=5, epoch=2)
    sizes = {len(idx) for idx, _ in got}
    assert len(sizes) == 1 and all(length == len(idx) for idx, length in got)
    every = [i for idx, _ in got for i in idx]
    if drop_last:
        assert len(set(every)) == len(every) and n - len(every) < replicas
        assert len(every) == (n // replicas) * replicas
    else:
        assert set(every) == set(range(n)) and len(every) == -(-n // replicas) * replicas
    if not shuffle:
        assert got[0][0][:2] == list(range(0, 2 * replicas, replicas))[:len(got[0][0][:2])] or n < replicas


def test_epochs_reshuffle_and_seeds_matter():
    a = shares(50, 2, True, False, seed=0, epoch=0)
    assert a == shares(50, 2, True, False, seed=0, epoch=0)
    assert a != shares(50, 2, True, False, seed=0, epoch=1)
    assert a != shares(50, 2, True, False, seed=1, epoch=0)
    assert sorted(torch_randperm(50, 9)) == list(range(50))


def test_arguments_as_pytorch():
    ds = TensorDataset(npgrad.arange(10))
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(ds, num_replicas=2, rank=2)
    # rank and world size from a group that does not exist; without mpi4py there is no distributed package at all
    # (PyTorch's two messages for these cases)
    if npgrad.distributed.is_available():
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            DistributedSampler(ds)
    else:
        with pytest.raises(RuntimeError, match="^Requires distributed package to be available$"):
            DistributedSampler(ds)
    s = DistributedSampler(ds, num_replicas=3, rank=1, shuffle=False)
    assert (s.num_samples, s.total_size, list(s)) == (4, 12, [1, 4, 7, 0])
    loader = npgrad.utils.data.DataLoader(ds, batch_size=2, sampler=s)
    assert [b[0].tolist() for b in loader] == [[1, 4], [7, 0]]
