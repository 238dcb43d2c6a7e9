"""DistributedSampler: each rank draws its own share of a dataset, the same shares PyTorch draws."""
import math

import numpy as np

from .sampler import Sampler


def torch_randperm(n, seed):
    """The permutation ``torch.randperm(n, generator=torch.Generator().manual_seed(seed))`` gives on CPU.

    PyTorch's CPU randperm (for n below 2**32 / 20) is a Fisher-Yates shuffle driven by 32-bit draws of
    an MT19937 seeded with the seed's low 32 bits; NumPy's legacy MT19937 seeding is the same generator,
    so the partitions match PyTorch's for every seed and epoch. (npgrad.randperm draws from npgrad's own
    generator and gives other permutations.)"""
    if n >= 2 ** 32 // 20:
        raise ValueError(f"DistributedSampler: a dataset of {n} samples is larger than PyTorch's exact "
                         "permutation path covers")
    mt = np.random.MT19937(0)
    mt._legacy_seeding(int(seed) & 0xFFFFFFFF)
    draws = mt.random_raw(max(n - 1, 0)).astype(np.int64)
    offsets = draws % np.arange(n, 1, -1, dtype=np.int64)  # z_i = draw_i % (n - i)
    perm = list(range(n))
    for i, z in enumerate(offsets.tolist()):
        j = i + z
        perm[i], perm[j] = perm[j], perm[i]
    return perm


class DistributedSampler(Sampler):
    """Restricts data loading to the share of ``dataset`` that rank ``rank`` of ``num_replicas`` processes
    reads: every ``num_replicas``-th index of a (shuffled with ``seed + epoch``) order, padded by repeating
    indices to a multiple of ``num_replicas`` (or truncated with ``drop_last``). Call ``set_epoch`` before
    each epoch for a new shuffle."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        indices = torch_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch the next ``__iter__`` shuffles for: every rank must pass the same one."""
        self.epoch = epoch
