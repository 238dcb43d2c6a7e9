"""Datasets and data loading with torch.utils.data's API."""
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,  # noqa: F401
                      Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler, BatchSampler)
from .dataloader import DataLoader, get_worker_info  # noqa: F401
from ._utils.collate import default_collate, default_convert  # noqa: F401
from . import _utils  # noqa: F401
from .distributed import DistributedSampler  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DataLoader", "get_worker_info", "default_collate",
           "default_convert", "DistributedSampler"]
