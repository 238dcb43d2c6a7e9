"""torch.tensor / as_tensor from every kind of sequence PyTorch takes, and its refusals (type and message)."""
import array
import collections
import decimal
import fractions
import warnings

import numpy as np
import pytest

import npgrad

try:
    import torch
    HAS_TORCH = True
except ImportError:  # pragma: no cover
    torch = None
    HAS_TORCH = False


class Seq:
    """A sequence by __len__/__getitem__ only."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        if i >= 2:
            raise IndexError(i)
        return i * 1.5


# (id, data builder(lib), expected dtype name, expected values): values are what the data say, not a run.
ACCEPTED = [
    ("deque", lambda lib: collections.deque([1, 2, 3]), "int64", [1, 2, 3]),
    ("nested deque", lambda lib: collections.deque([[1, 2], [3, 4]]), "int64", [[1, 2], [3, 4]]),
    ("list of deques", lambda lib: [collections.deque([1.5]), collections.deque([2])], "float32", [[1.5], [2.0]]),
    ("array.array d", lambda lib: array.array("d", [1, 2]), "float32", [1.0, 2.0]),
    ("array.array i", lambda lib: array.array("i", [1, 2]), "int64", [1, 2]),
    ("memoryview", lambda lib: memoryview(b"ab"), "int64", [97, 98]),
    ("bytearray", lambda lib: bytearray(b"ab"), "int64", [97, 98]),
    ("custom sequence", lambda lib: Seq(), "float32", [0.0, 1.5]),
    ("range", lambda lib: range(3), "int64", [0, 1, 2]),
    ("Size", lambda lib: lib.Size([2, 3]), "int64", [2, 3]),
    ("0-d tensors", lambda lib: [lib.tensor(1), lib.tensor(2)], "int64", [1, 2]),
    ("f32 and f64 tensors", lambda lib: [lib.tensor(1.0), lib.tensor(2.0, dtype=lib.float64)], "float64", [1.0, 2.0]),
    ("int32 tensor and int", lambda lib: [lib.tensor(1, dtype=lib.int32), 2], "int64", [1, 2]),
    ("uint8 and int8 tensors", lambda lib: [lib.tensor(1, dtype=lib.uint8), lib.tensor(1, dtype=lib.int8)],
     "int16", [1, 1]),
    ("float16 tensor and float", lambda lib: [lib.tensor(1.0, dtype=lib.float16), 2.5], "float32", [1.0, 2.5]),
    ("one-element tensors", lambda lib: [lib.ones(1), lib.ones(1, 1)], "float32", [1.0, 1.0]),
    ("tensors in a tuple", lambda lib: (lib.tensor(1.0), 2, 3.5), "float32", [1.0, 2.0, 3.5]),
    ("0-d array after a number", lambda lib: [2, np.array(1.0)], "float64", [2.0, 1.0]),
    ("big int as float", lambda lib: None, "float32", [2.0 ** 63]),
]


@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays")
@pytest.mark.parametrize("case", ACCEPTED, ids=[c[0] for c in ACCEPTED])
@pytest.mark.parametrize("fn", ["tensor", "as_tensor"])
def test_accepted(case, fn):
    name, build, dtype, values = case
    libs = [npgrad] + ([torch] if HAS_TORCH else [])
    for lib in libs:
        if name == "big int as float":
            t = getattr(lib, fn)([2 ** 63], dtype=lib.float32)
        else:
            t = getattr(lib, fn)(build(lib))
        assert str(t.dtype).split(".")[-1] == dtype and t.tolist() == values, (lib.__name__, name)


REFUSED = [
    ("generator", lambda lib: lib.tensor(i for i in range(2))),
    ("iterator", lambda lib: lib.tensor(iter([1]))),
    ("set", lambda lib: lib.tensor({1})),
    ("dict", lambda lib: lib.tensor({1: 2})),
    ("None", lambda lib: lib.tensor(None)),
    ("Decimal", lambda lib: lib.tensor(decimal.Decimal("1.5"))),
    ("Fraction in list", lambda lib: lib.tensor([fractions.Fraction(1, 2)])),
    ("str", lambda lib: lib.tensor("ab")),
    ("bytes", lambda lib: lib.as_tensor(b"ab")),
    ("str in list", lambda lib: lib.tensor([["a"]])),
    ("str after a number", lambda lib: lib.tensor([1, "a"])),
    ("1-d tensors", lambda lib: lib.tensor([lib.ones(2), lib.ones(2)])),
    ("1-d tensor and number", lambda lib: lib.tensor([lib.ones(2), 1])),
    ("0-d array first", lambda lib: lib.tensor([np.array(1.0), 2])),
    ("2**63", lambda lib: lib.tensor([2 ** 63])),
    ("-2**63-1", lambda lib: lib.tensor([-2 ** 63 - 1])),
    ("2**63 scalar", lambda lib: lib.tensor(2 ** 63)),
    ("300 as uint8", lambda lib: lib.tensor([300], dtype=lib.uint8)),
    ("-1.0 as uint8", lambda lib: lib.as_tensor([-1.0], dtype=lib.uint8)),
    ("inf as int32", lambda lib: lib.tensor([float("inf")], dtype=lib.int32)),
    ("complex as float", lambda lib: lib.tensor([1 + 1j], dtype=lib.float32)),
    ("complex as int", lambda lib: lib.tensor([1 + 1j], dtype=lib.int64)),
    ("ragged", lambda lib: lib.tensor([[1], [2, 3]])),
]


def _raises(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e), str(e)
    return None


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused(case):
    got = _raises(lambda: case[1](npgrad))
    assert got is not None and got[0] in (TypeError, ValueError, RuntimeError)
    if HAS_TORCH:
        assert got == _raises(lambda: case[1](torch))


def test_arrays_keep_numpy_casting():
    # Values from an array are cast as NumPy casts them (PyTorch does the same); only Python numbers are checked.
    assert npgrad.tensor(np.array([300]), dtype=npgrad.uint8).tolist() == [44]
    assert npgrad.tensor([300.0], dtype=npgrad.float16).tolist() == [300.0]
    assert npgrad.tensor([True, 2], dtype=npgrad.uint8).tolist() == [1, 2]


def test_warnings():
    x = npgrad.ones(1, requires_grad=True)
    with pytest.warns(UserWarning, match="^Converting a tensor with requires_grad=True to a scalar may lead to "
                                         "unexpected behavior.\nConsider using tensor.detach\\(\\) first.$"):
        t = npgrad.tensor([x[0], 2.0])
    assert t.tolist() == [1.0, 2.0] and not t.requires_grad
    npgrad.set_warn_always(True)  # PyTorch warns once per process about a list of arrays
    try:
        with pytest.warns(UserWarning, match="^Creating a tensor from a list of numpy.ndarrays is extremely slow"):
            assert npgrad.tensor([np.ones(2), np.zeros(2)]).tolist() == [[1.0, 1.0], [0.0, 0.0]]
        with pytest.warns(UserWarning, match="list of numpy.ndarrays"):
            npgrad.tensor([[np.ones(2)]])
    finally:
        npgrad.set_warn_always(False)
