"""utils.data: datasets, samplers, DataLoader batching/collation, random_split, against torch.utils.data."""
import collections
import subprocess
import sys
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.utils import data as D
from oracle import HAS_TORCH, torch

Point = collections.namedtuple("Point", ["x", "y"])


def _plain(obj):
    """A batch as nested Python data, comparable between npgrad and torch."""
    if isinstance(obj, npgrad.Tensor) or (HAS_TORCH and isinstance(obj, torch.Tensor)):
        return ("tensor", str(obj.dtype).split(".")[-1], tuple(obj.shape), obj.detach().numpy().tolist())
    if isinstance(obj, dict):
        return (type(obj).__name__, {k: _plain(v) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, tuple(_plain(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v) for v in obj])
    return obj


def _tensor_data(lib):
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10) % 3
    return lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(y))


class Squares:
    """A plain map-style dataset (no base class), samples of mixed types."""

    def __init__(self, n=7):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.full((2,), i, np.float32), "i": i, "f": i / 2, "name": f"s{i}", "flag": i % 2 == 0,
                "pair": (np.int16(i), [i, i + 1]), "pt": Point(i, np.float64(i))}


def _samples(lib):
    return [(lib.tensor([float(i), -i]), i) for i in range(5)]


class Stream(D.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_tensor_dataset_batches():
    ds = _tensor_data(npgrad)
    assert len(ds) == 10 and ds[3][1].item() == 0 and ds[3][0].tolist() == [9.0, 10.0, 11.0]
    batches = list(D.DataLoader(ds, batch_size=4))
    assert [b[0].shape[0] for b in batches] == [4, 4, 2]
    np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in batches]), ds.tensors[0].numpy())
    assert len(D.DataLoader(ds, batch_size=4)) == 3 and len(D.DataLoader(ds, batch_size=4, drop_last=True)) == 2
    assert [len(b[1]) for b in D.DataLoader(ds, batch_size=4, drop_last=True)] == [4, 4]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        D.TensorDataset(npgrad.ones(3), npgrad.ones(4))


def test_batches_are_copies():
    ds = _tensor_data(npgrad)
    batch = next(iter(D.DataLoader(ds, batch_size=3)))
    batch[0][0, 0] = 100.0
    assert ds.tensors[0][0, 0].item() == 0.0


def test_fast_path_matches_sample_by_sample():
    ds = _tensor_data(npgrad)
    sub = D.Subset(D.Subset(ds, [9, 1, 3, 5, 7, 0]), [5, 0, 2, -1])
    fast = list(D.DataLoader(sub, batch_size=3))
    slow = list(D.DataLoader(sub, batch_size=3, collate_fn=lambda b: D.default_collate(b)))
    assert _plain(fast) == _plain(slow)
    assert fast[0][1].dtype == npgrad.int64


def test_shuffle_is_a_reproducible_permutation():
    ds = _tensor_data(npgrad)

    def order(**kw):
        return [int(row[0]) // 3 for b in D.DataLoader(ds, batch_size=3, shuffle=True, **kw)
                for row in b[0].numpy().tolist()]

    g1, g2 = npgrad.Generator().manual_seed(5), npgrad.Generator().manual_seed(5)
    a, b = order(generator=g1), order(generator=g2)
    assert a == b and sorted(a) == list(range(10)) and a != list(range(10))
    assert order(generator=g1) != a  # the next epoch is a new order
    npgrad.manual_seed(11)
    c = order()
    npgrad.manual_seed(11)
    assert order() == c and sorted(c) == list(range(10))


def test_shuffle_reproducible_across_processes():
    code = ("import npgrad; from npgrad.utils.data import *; npgrad.manual_seed(3); "
            "ds = TensorDataset(npgrad.arange(20)); "
            "print([int(v) for b in DataLoader(ds, batch_size=6, shuffle=True) for v in b[0].tolist()]); "
            "g = npgrad.Generator().manual_seed(9); "
            "print([i for i in RandomSampler(range(20), generator=g)])")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == 2


def test_samplers():
    g = npgrad.Generator().manual_seed(0)
    assert list(D.SequentialSampler(range(4))) == [0, 1, 2, 3]
    perm = list(D.RandomSampler(range(6), generator=g))
    assert sorted(perm) == list(range(6))
    more = list(D.RandomSampler(range(4), num_samples=10, generator=g))
    assert len(more) == 10 and sorted(more[:4]) == [0, 1, 2, 3] and sorted(more[4:8]) == [0, 1, 2, 3]
    rep = list(D.RandomSampler(range(3), replacement=True, num_samples=50, generator=g))
    assert len(rep) == 50 and set(rep) <= {0, 1, 2}
    sub = list(D.SubsetRandomSampler([10, 20, 30, 40], generator=g))
    assert sorted(sub) == [10, 20, 30, 40]
    w = list(D.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=g))
    assert set(w) == {1, 3} and w.count(3) > w.count(1)
    assert sorted(D.WeightedRandomSampler([1, 1, 1], 3, replacement=False, generator=g)) == [0, 1, 2]
    assert list(D.BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(D.BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(D.BatchSampler(range(7), 3, False)) == 3 and len(D.BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        D.BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        D.BatchSampler(range(3), 2, 1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        D.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        D.RandomSampler(range(3), replacement=1)


def test_sampler_and_batch_sampler_options():
    ds = _tensor_data(npgrad)
    g = npgrad.Generator().manual_seed(1)
    got = [int(v) for b in D.DataLoader(ds, batch_size=2, sampler=D.SubsetRandomSampler([1, 4, 6], generator=g))
           for v in (b[0][:, 0].numpy() // 3)]
    assert sorted(got) == [1, 4, 6]
    bs = [[0, 9], [5], [2, 2]]
    got = [(b[0][:, 0].numpy() // 3).tolist() for b in D.DataLoader(ds, batch_sampler=bs)]
    assert got == [[0, 9], [5], [2, 2]] and len(D.DataLoader(ds, batch_sampler=bs)) == 3
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        D.DataLoader(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        D.DataLoader(ds, batch_sampler=bs, batch_size=2)
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        D.DataLoader(ds, batch_size=None, drop_last=True)


def test_num_workers_and_other_options_are_accepted():
    ds = _tensor_data(npgrad)
    loader = D.DataLoader(ds, batch_size=4, num_workers=4, pin_memory=True, persistent_workers=True,
                          prefetch_factor=3, worker_init_fn=lambda i: None, timeout=5)
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        assert _plain(list(loader)) == _plain(list(D.DataLoader(ds, batch_size=4)))
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        D.DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        D.DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 3
    assert D.get_worker_info() is None


def test_non_dataset_is_a_type_error():
    with pytest.raises(TypeError, match="DataLoader expects a map-style dataset .* but got int"):
        D.DataLoader(5)
    with pytest.raises(TypeError, match="IterableDataset"):
        D.DataLoader(x for x in range(3))
    with pytest.raises(TypeError, match="but got NoneType"):
        D.DataLoader(None)


def test_iterable_dataset():
    loader = D.DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    loader = D.DataLoader(Stream(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2
    assert list(D.DataLoader(Stream(3), batch_size=None)) == [0, 1, 2]
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, D.ChainDataset) and list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        D.DataLoader(Stream(3), shuffle=True)


def test_concat_and_subset():
    a, b = _tensor_data(npgrad), D.TensorDataset(npgrad.zeros(4, 3), npgrad.zeros(4, dtype=npgrad.int64))
    cat = a + b
    assert isinstance(cat, D.ConcatDataset) and len(cat) == 14 and cat.cumulative_sizes == [10, 14]
    assert cat[10][0].tolist() == [0.0, 0.0, 0.0] and cat[-5][0].tolist() == [27.0, 28.0, 29.0]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        cat[-15]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        D.ConcatDataset([])
    sub = D.Subset(a, [2, 4])
    assert len(sub) == 2 and sub[1][0].tolist() == [12.0, 13.0, 14.0]


def test_random_split():
    ds = list(range(10))
    g = npgrad.Generator().manual_seed(4)
    parts = D.random_split(ds, [3, 7], generator=g)
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(x for p in parts for x in p) == ds
    again = D.random_split(ds, [3, 7], generator=npgrad.Generator().manual_seed(4))
    assert [list(p) for p in parts] == [list(p) for p in again]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fr = D.random_split(list(range(5)), [0.5, 0.5, 0.0])
    assert [len(p) for p in fr] == [3, 2, 0] and any("Length of split at index 2 is 0" in str(w.message)
                                                   for w in caught)
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset"):
        D.random_split(ds, [3, 3])


def test_custom_collate_and_no_batching():
    ds = _samples(npgrad)
    out = list(D.DataLoader(ds, batch_size=2, collate_fn=lambda batch: [s[1] for s in batch]))
    assert out == [[0, 1], [2, 3], [4]]
    single = list(D.DataLoader(Squares(2), batch_size=None))
    assert isinstance(single[1]["x"], npgrad.Tensor) and single[1]["i"] == 1 and single[1]["pair"][1] == [1, 2]


def test_collate_errors():
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        D.default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        D.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        D.default_collate([np.array(["a"]), np.array(["b"])])


if HAS_TORCH:
    import torch.utils.data as TD

    def _both(make, **kw):
        ours = list(D.DataLoader(make(npgrad), **kw))
        theirs = list(TD.DataLoader(make(torch), **kw))
        return _plain(ours), _plain(theirs)

    @pytest.mark.parametrize("kw", [dict(batch_size=4), dict(batch_size=3, drop_last=True), dict(batch_size=1),
                                    dict(batch_size=None), dict(batch_size=20)])
    def test_tensor_dataset_matches_torch(kw):
        ours, theirs = _both(_tensor_data, **kw)
        assert ours == theirs

    @pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=None), dict(batch_size=2, drop_last=True)])
    def test_mixed_samples_match_torch(kw):
        ours, theirs = _both(lambda lib: Squares(), **kw)
        assert ours == theirs
        ours, theirs = _both(_samples, **kw)
        assert ours == theirs

    @pytest.mark.parametrize("batch", [
        [1, 2, 3], [1.5, 2.0], [True, False], ["a", "b"], [b"x", b"y"], [np.float32(1), np.float32(2)],
        [np.int8(1), np.int8(-2)], [np.array([1, 2], np.uint8), np.array([3, 4], np.uint8)],
        [np.zeros((2, 0)), np.zeros((2, 0))], [(1, "a"), (2, "b")], [[1.0, 2], [3.0, 4]],
        [{"a": 1, "b": {"c": 2.0}}, {"a": 3, "b": {"c": 4.0}}], [Point(1, 2.0), Point(3, 4.0)],
        [collections.OrderedDict(z=1, a=2), collections.OrderedDict(z=3, a=4)],
        [np.float64(1.0), np.float64(2.0)], [np.bool_(True), np.bool_(False)],
    ])
    def test_default_collate_matches_torch(batch):
        assert _plain(D.default_collate(batch)) == _plain(TD.default_collate(batch))
        for sample in batch:
            assert _plain(D.default_convert(sample)) == _plain(TD.default_convert(sample))

    def test_collate_tensors_matches_torch():
        arrs = [np.arange(6, dtype=np.float32).reshape(2, 3) + i for i in range(3)]
        assert _plain(D.default_collate([npgrad.tensor(a) for a in arrs])) == \
            _plain(TD.default_collate([torch.tensor(a) for a in arrs]))
        zero_d = [np.float64(i) for i in range(3)]
        assert _plain(D.default_collate([npgrad.tensor(a) for a in zero_d])) == \
            _plain(TD.default_collate([torch.tensor(a) for a in zero_d]))

    def test_iterable_matches_torch():
        class TStream(TD.IterableDataset):
            def __iter__(self):
                return iter([(i, float(i)) for i in range(7)])

            def __len__(self):
                return 7
        for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)]:
            ours = D.DataLoader(type("S", (D.IterableDataset,), dict(TStream.__dict__))(), **kw)
            theirs = TD.DataLoader(TStream(), **kw)
            assert _plain(list(ours)) == _plain(list(theirs)) and len(ours) == len(theirs)

    @pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [0.33, 0.33, 0.34], [1 / 3] * 3,
                                         [0.1] * 10, [10, 0], [0.5, 0.5, 0.0]])
    def test_random_split_lengths_match_torch(lengths):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = [len(p) for p in D.random_split(list(range(10)), lengths)]
            theirs = [len(p) for p in TD.random_split(list(range(10)), lengths)]
        assert ours == theirs

    def test_concat_subset_and_batch_sampler_match_torch():
        def make(lib):
            x = lib.tensor(np.arange(12, dtype=np.float32).reshape(6, 2))
            ds = lib.utils.data.TensorDataset(x) + lib.utils.data.TensorDataset(x * 10)
            return lib.utils.data.Subset(ds, [11, 0, 6, 3, 7])
        assert _plain(list(D.DataLoader(make(npgrad), batch_size=2))) == \
            _plain(list(TD.DataLoader(make(torch), batch_size=2)))
        bs = [[4, 0], [1, 2, 3]]
        assert _plain(list(D.DataLoader(make(npgrad), batch_sampler=bs))) == \
            _plain(list(TD.DataLoader(make(torch), batch_sampler=bs)))
        assert len(D.DataLoader(make(npgrad), batch_size=2)) == len(TD.DataLoader(make(torch), batch_size=2))


def test_samplers_are_lazy_on_huge_datasets():
    # As PyTorch: indices are produced while iterating, so a 10^12-item dataset or 10^10 draws with
    # replacement cost memory for a batch, not for the whole epoch.
    import itertools
    import tracemalloc
    Dataset, RandomSampler = D.Dataset, D.RandomSampler

    class Huge(Dataset):
        def __len__(self):
            return 10 ** 12

        def __getitem__(self, i):
            return npgrad.tensor(float(i))

    tracemalloc.start()
    try:
        seq = list(itertools.islice(iter(D.DataLoader(Huge(), batch_size=4)), 2))
        sampler = RandomSampler(Huge(), replacement=True, num_samples=10 ** 10,
                                generator=npgrad.Generator().manual_seed(0))
        drawn = list(itertools.islice(iter(D.DataLoader(Huge(), batch_size=4, sampler=sampler)), 3))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seq[1].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert len(drawn) == 3 and all(0 <= v < 10 ** 12 for b in drawn for v in b.tolist())
    assert len(sampler) == 10 ** 10
    assert peak < 10 * 2 ** 20, f"{peak / 2 ** 20:.1f} MiB for a few batches"


def test_split_chain_and_subset_edges():
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        D.random_split(list(range(4)), [0.5, 1.5, -1.0])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(D.ChainDataset([list(range(3))]))
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        D.ConcatDataset([D.ChainDataset([])])
    sub = D.Subset(list(range(10, 20)), [5, 1, 7])
    assert sub.__getitems__([0, 2]) == [15, 17]

    class Batched(D.Dataset):
        def __getitems__(self, idx):
            return ("batch", idx)
    assert D.Subset(Batched(), [4, 6]).__getitems__([1, 0]) == ("batch", [6, 4])
