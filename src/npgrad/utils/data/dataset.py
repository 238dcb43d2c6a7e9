"""Datasets: the map-style and iterable protocols, TensorDataset, Subset, concatenation, random_split."""
import bisect
import math
import warnings
from itertools import accumulate, chain

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]


class Dataset:
    """A map-style dataset: ``dataset[i]`` returns sample ``i``; ``len(dataset)`` is usually defined too."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: iterating it yields the samples (no indexing, no sampler)."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; all tensors share their first dimension."""

    def __init__(self, *tensors):
        sizes = [t.size(0) for t in tensors]
        if any(s != sizes[0] for s in sizes):
            raise AssertionError(f"Size mismatch between tensors: their first dimensions are {sizes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zip datasets of equal length: samples are tuples (positional) or dicts (keyword arguments)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output,"
                             " but both types are given.")
        datasets = args or tuple(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        self._length = len(datasets[0])
        if any(self._length != len(d) for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The datasets one after another; index ``i`` is looked up in the dataset that contains it."""

    @staticmethod
    def cumsum(sequence):
        return list(accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        parts = list(datasets)
        if not parts:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in parts):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.datasets = parts
        self.cumulative_sizes = self.cumsum(parts)  # the end of each part, in the concatenation

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which == len(self.datasets):
            raise IndexError(f"index {idx} is out of range for a ConcatDataset of length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets chained into one stream."""

    def __init__(self, datasets):
        self.datasets = datasets

    def _streams(self):
        # Checked at use, as PyTorch does: the list may be changed after construction.
        if not all(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ChainDataset only supports IterableDataset")
        return self.datasets

    def __iter__(self):
        return chain.from_iterable(self._streams())

    def __len__(self):
        return sum(len(d) for d in self._streams())


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def _outer(self, positions):
        return [self.indices[i] for i in positions]

    def __getitem__(self, idx):
        return self.dataset[self._outer(idx) if isinstance(idx, list) else self.indices[idx]]

    def __getitems__(self, indices):
        # Let the wrapped dataset fetch a whole batch at once when it can.
        inner = getattr(self.dataset, "__getitems__", None)
        wanted = self._outer(indices)
        return inner(wanted) if callable(inner) else [self.dataset[i] for i in wanted]

    def __len__(self):
        return len(self.indices)


def _counts_of(fractions, n):
    """Item counts for fractions of n items: floors, then the leftover one each from the first split on."""
    bad = next((i for i, f in enumerate(fractions) if not 0 <= f <= 1), None)
    if bad is not None:
        raise ValueError(f"Fraction at index {bad} is not between 0 and 1")
    counts = [int(math.floor(n * f)) for f in fractions]
    for k in range(n - sum(counts)):
        counts[k % len(counts)] += 1
    for i in (i for i, c in enumerate(counts) if c == 0):
        warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return counts


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random Subsets of the given lengths (ints, or fractions summing to 1).

    Fractions are floored and the leftover items handed out one each, round-robin from the first split.
    The order comes from ``generator`` (an ``npgrad.Generator``) or the global seed.
    """
    from ...factories import randperm
    n = len(dataset)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _counts_of(lengths, n)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(accumulate(lengths), lengths)]
