"""DataLoader: batches from a dataset, in the order of a sampler, collated into tensors.

With ``num_workers=0`` loading runs in the calling process; with ``num_workers > 0`` worker processes
build the batches (``_multiprocess_iter``, ``_worker``) and return them through shared memory
(``_shm_batch``). ``pin_memory`` changes nothing on CPU, as in PyTorch without an accelerator. A
``TensorDataset`` with the default collate is batched by indexing its tensors with the whole batch of
indices at once, which gives the same tensors as stacking the samples one by one, without the
per-sample work.
"""
import multiprocessing
import warnings

import numpy as np

from ... import random as _random
from ...tensor import Tensor
from ._worker import get_worker_info
from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


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
    _iterator = None  # the one iterator kept with persistent_workers

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
        self._set_multiprocessing_context(multiprocessing_context)
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

    @property
    def multiprocessing_context(self):
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        self._set_multiprocessing_context(context)

    def _set_multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers "
                                 f"> 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self._multiprocessing_context = context

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
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        if self.num_workers == 0:
            return _LoaderIter(self)
        from ._multiprocess_iter import MultiProcessIter
        if not self.persistent_workers:
            return MultiProcessIter(self)
        if self._iterator is None or self._iterator._shutdown:
            self._iterator = MultiProcessIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

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


class _Fetcher:
    """Builds batches: from indices for a map-style dataset, from the dataset's own iterator for an
    iterable one. The in-process iterator and every worker process use it."""

    def __init__(self, dataset, collate_fn, auto_collation, batch_size, drop_last, iterable):
        self._dataset = dataset
        self._collate = collate_fn
        self._auto = auto_collation
        self._batch_size = batch_size
        self._drop_last = drop_last
        # (a flag, not a stored bound method: self._next = self._method would be a reference cycle,
        # keeping every finished epoch's iterator and its last batch alive until the cycle collector runs)
        self._iterable = iterable
        if iterable:
            self._data_iter = iter(dataset)
        else:
            self._fast = (_tensor_batch_source(dataset)
                          if auto_collation and collate_fn is default_collate else None)

    def fetch(self, index):
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

    def fetch_iterable(self):
        if not self._auto:
            return self._collate(next(self._data_iter))
        batch = []
        size = self._batch_size
        for sample in self._data_iter:
            batch.append(sample)
            if len(batch) == size:
                break
        if not batch or (self._drop_last and len(batch) < size):
            raise StopIteration
        return self._collate(batch)


class _LoaderIter(_Fetcher):
    """One pass over a DataLoader, in this process."""

    def __init__(self, loader):
        super().__init__(loader.dataset, loader.collate_fn, loader._auto_collation, loader.batch_size,
                         loader.drop_last, loader._iterable)
        self._loader = loader
        # PyTorch draws the workers' base seed for every iterator, workers or not: drawing it here too
        # keeps a shuffled order the same for any num_workers under one manual_seed.
        _random.rng(loader.generator).integers(0, 2 ** 63 - 1)
        if not loader._iterable:
            self._indices = iter(loader._index_sampler)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        return self.fetch_iterable() if self._iterable else self.fetch(next(self._indices))
