"""DataLoader: batches from a dataset, in the order of a sampler, collated into tensors.

Loading runs in the calling process: ``num_workers``, ``pin_memory``, ``prefetch_factor`` ... are
accepted (with PyTorch's argument checks) and change nothing. A ``TensorDataset`` with the default
collate is batched by indexing its tensors with the whole batch of indices at once, which gives the
same tensors as stacking the samples one by one, without the per-sample work.
"""
import numpy as np

from ...tensor import Tensor
from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """None: npgrad's DataLoader has no worker processes (as in PyTorch's main process)."""
    return None


class _InfiniteConstantSampler(Sampler):
    """Placeholder sampler for iterable datasets: yields None forever."""

    def __iter__(self):
        while True:
            yield None


def _check_dataset(dataset):
    if isinstance(dataset, IterableDataset):
        return
    if isinstance(dataset, (str, bytes)) or not hasattr(type(dataset), "__getitem__"):
        hint = (" (an iterable without indexing should subclass torch.utils.data.IterableDataset)"
                if hasattr(type(dataset), "__iter__") and not isinstance(dataset, (str, bytes)) else "")
        raise TypeError("DataLoader expects a map-style dataset (an object with __getitem__ and __len__, such as "
                        "torch.utils.data.Dataset, a TensorDataset or a list) or an IterableDataset, but got "
                        f"{type(dataset).__name__}{hint}")


class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``batch_size=None`` turns batching off (each sample goes through ``collate_fn``, by default
    ``default_convert``). ``shuffle=True`` draws a new order each epoch from ``generator`` (an
    ``npgrad.Generator``) or from the global seed.
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        _check_dataset(dataset)
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                                 f"batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True

    def __setattr__(self, name, value):
        if self._initialized and name in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                          "persistent_workers"):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _LoaderIter(self)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        pass


def _tensor_batch_source(dataset):
    """For a TensorDataset (possibly inside Subsets): its tensors and the Subsets' index tables (outermost
    first), so whole batches can be gathered with one fancy index per tensor; None for other datasets."""
    remap = []
    while type(dataset) is Subset:
        remap.append(dataset.indices)
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset:
        return None
    if not all(isinstance(t, Tensor) and not t._requires_grad for t in dataset.tensors):
        return None  # stacking would record a graph; keep the general path
    tables = [t._data if isinstance(t, Tensor) else np.asarray(t) for t in remap]
    if not all(t.ndim == 1 and t.dtype.kind in "iu" for t in tables):
        return None
    return dataset.tensors, tables


class _LoaderIter:
    """One pass over a DataLoader."""

    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._collate = loader.collate_fn
        self._auto = loader._auto_collation
        self._length = None
        # (a flag, not a stored bound method: self._next = self._method would be a reference cycle,
        # keeping every finished epoch's iterator and its last batch alive until the cycle collector runs)
        self._iterable = loader._iterable
        if loader._iterable:
            self._data_iter = iter(loader.dataset)
        else:
            self._indices = iter(loader._index_sampler)
            self._fast = (_tensor_batch_source(loader.dataset)
                          if self._auto and loader.collate_fn is default_collate else None)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        return self._next_iterable() if self._iterable else self._next_map()

    def _next_map(self):
        index = next(self._indices)
        if not self._auto:
            return self._collate(self._dataset[index])
        if self._fast is not None:
            return self._gather(index)
        getitems = getattr(self._dataset, "__getitems__", None)
        if callable(getitems):
            samples = getitems(index)
        else:
            samples = [self._dataset[i] for i in index]
        return self._collate(samples)

    def _gather(self, index):
        tensors, remap = self._fast
        idx = np.asarray(index, dtype=np.intp)
        for table in remap:  # Subset index tables, outermost first
            if idx.size and (idx.max() >= len(table) or idx.min() < -len(table)):
                raise IndexError("list index out of range")
            idx = table[idx]
        n = tensors[0]._data.shape[0]
        if idx.size and (idx.max() >= n or idx.min() < -n):
            bad = int(idx[(idx >= n) | (idx < -n)][0])
            raise IndexError(f"index {bad} is out of bounds for dimension 0 with size {n}")
        return [Tensor._wrap(t._data[idx]) for t in tensors]

    def _next_iterable(self):
        if not self._auto:
            return self._collate(next(self._data_iter))
        batch = []
        size = self._loader.batch_size
        for sample in self._data_iter:
            batch.append(sample)
            if len(batch) == size:
                break
        if not batch or (self._loader.drop_last and len(batch) < size):
            raise StopIteration
        return self._collate(batch)
