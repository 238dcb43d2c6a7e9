"""torch.nn.utils.rnn against PyTorch: pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpack_sequence, unpad_sequence and PackedSequence: values, dtypes, gradients through packing, errors. The
round-trip checks (pack then unpack gives the input back) need no torch."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
RNG = np.random.default_rng(0)
SEQS = [RNG.standard_normal((n, 3)) for n in (4, 6, 2)]


def to_np(t):
    return t.detach().numpy()


def _grads_through(lib, fn, arrays):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, xs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    outs = [o for o in outs if o.dtype in (lib.float32, lib.float64)]
    rng = np.random.default_rng(1)
    sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs).backward()
    return [to_np(o) for o in outs], [to_np(x.grad) for x in xs]


def _compare(fn, arrays):
    t_out, t_g = _grads_through(torch, fn, arrays)
    n_out, n_g = _grads_through(npgrad, fn, arrays)
    assert len(n_out) == len(t_out)
    for a, b in zip(n_out + n_g, t_out + t_g):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert_close(a, b, rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("padding_value", [0.0, -2.5])
def test_pad_sequence(batch_first, padding_side, padding_value):
    _compare(lambda lib, xs: lib.nn.utils.rnn.pad_sequence(xs, batch_first=batch_first, padding_value=padding_value,
                                                           padding_side=padding_side), SEQS)


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
@pytest.mark.parametrize("lengths_as", ["list", "tensor", "float_tensor"])
def test_pack_padded_sequence(batch_first, enforce_sorted, lengths_as):
    lengths = [6, 4, 2] if enforce_sorted else [4, 6, 2]
    padded = RNG.standard_normal((3, 6, 3) if batch_first else (6, 3, 3))

    def fn(lib, xs):
        lens = {"list": lengths, "tensor": lib.tensor(lengths),
                "float_tensor": lib.tensor(lengths, dtype=lib.float32)}[lengths_as]
        p = lib.nn.utils.rnn.pack_padded_sequence(xs[0], lens, batch_first=batch_first, enforce_sorted=enforce_sorted)
        assert p.batch_sizes.dtype == lib.int64
        assert p.batch_sizes.tolist() == [3, 3, 2, 2, 1, 1]
        if enforce_sorted:
            assert p.sorted_indices is None and p.unsorted_indices is None
        else:
            assert p.sorted_indices.tolist() == [1, 0, 2] and p.unsorted_indices.tolist() == [1, 0, 2]
        return [p.data]
    _compare(fn, [padded])


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("total_length", [None, 8])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pad_packed_sequence(batch_first, total_length, enforce_sorted):
    seqs = SEQS if not enforce_sorted else sorted(SEQS, key=len, reverse=True)

    def fn(lib, xs):
        p = lib.nn.utils.rnn.pack_sequence(xs, enforce_sorted=enforce_sorted)
        out, lengths = lib.nn.utils.rnn.pad_packed_sequence(p, batch_first=batch_first, padding_value=1.5,
                                                           total_length=total_length)
        assert lengths.dtype == lib.int64 and lengths.tolist() == [len(s) for s in seqs]
        return [out]
    _compare(fn, seqs)


@needs_torch
def test_unpack_and_unpad_sequence():
    def fn(lib, xs):
        p = lib.nn.utils.rnn.pack_sequence(xs, enforce_sorted=False)
        back = lib.nn.utils.rnn.unpack_sequence(p)
        padded = lib.nn.utils.rnn.pad_sequence(xs, batch_first=True)
        cut = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([len(s) for s in SEQS]), batch_first=True)
        cut_t = lib.nn.utils.rnn.unpad_sequence(padded.transpose(0, 1), lib.tensor([len(s) for s in SEQS]))
        return back + cut + cut_t
    _compare(fn, SEQS)


def test_round_trip_without_torch():
    xs = [npgrad.tensor(s) for s in SEQS]
    p = npgrad.nn.utils.rnn.pack_sequence(xs, enforce_sorted=False)
    assert p.batch_sizes.tolist() == [3, 3, 2, 2, 1, 1]
    # packed rows are time-major, longest sequence first at each step
    np.testing.assert_array_equal(p.data.numpy()[:3], np.stack([SEQS[1][0], SEQS[0][0], SEQS[2][0]]))
    for a, b in zip(npgrad.nn.utils.rnn.unpack_sequence(p), SEQS):
        np.testing.assert_array_equal(a.numpy(), b)
    padded, lengths = npgrad.nn.utils.rnn.pad_packed_sequence(p, batch_first=True, padding_value=-1.0)
    assert lengths.tolist() == [4, 6, 2]
    assert (padded.numpy()[0, 4:] == -1).all() and (padded.numpy()[2, 2:] == -1).all()
    left = npgrad.nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left.numpy()[2, 4:], SEQS[2])
    assert (left.numpy()[2, :4] == 0).all()


def test_packed_sequence_is_a_namedtuple_with_conversions():
    PS = npgrad.nn.utils.rnn.PackedSequence
    p = npgrad.nn.utils.rnn.pack_sequence([npgrad.tensor(s) for s in SEQS], enforce_sorted=False)
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert isinstance(p, tuple) and p[0] is data
    assert p.double() is p and p.to(npgrad.float64) is p  # nothing to change: the same object, as in PyTorch
    f = p.float()
    assert f.data.dtype == npgrad.float32 and f.batch_sizes is p.batch_sizes and f.sorted_indices is p.sorted_indices
    assert p.to(dtype=npgrad.float32).data.dtype == npgrad.float32
    assert not p.is_cuda and not p.is_pinned() and p.cpu() is p
    q = PS(data, batch_sizes, sorted_indices)  # unsorted_indices derived
    assert q.unsorted_indices.tolist() == unsorted_indices.tolist()
    r = PS((data, batch_sizes))
    assert r.sorted_indices is None and r.batch_sizes is batch_sizes
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        PS(data)
    assert npgrad.nn.utils.rnn.invert_permutation(npgrad.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert npgrad.nn.utils.rnn.invert_permutation(None) is None


@needs_torch
def test_packed_sequence_repr_and_fields_match_torch():
    for lib in (torch, npgrad):
        p = lib.nn.utils.rnn.PackedSequence(lib.tensor([[1.0, 2.0]]), lib.tensor([1]))
        assert type(p).__name__ == "PackedSequence" and type(p).__mro__[1].__name__ == "PackedSequence_"
    assert repr(p).startswith("PackedSequence(data=tensor([[1., 2.]]), batch_sizes=tensor([1]), sorted_indices=None")


@needs_torch
@pytest.mark.parametrize("case", [
    ("unsorted", lambda l: l.nn.utils.rnn.pack_padded_sequence(l.zeros(4, 3, 2), [2, 3, 1])),
    ("zero length", lambda l: l.nn.utils.rnn.pack_padded_sequence(l.zeros(4, 3, 2), [3, 2, 0])),
    ("wrong count", lambda l: l.nn.utils.rnn.pack_padded_sequence(l.zeros(4, 3, 2), [3, 2])),
    ("2d lengths", lambda l: l.nn.utils.rnn.pack_padded_sequence(l.zeros(4, 3, 2), l.tensor([[3, 2, 1]]))),
    ("total_length", lambda l: l.nn.utils.rnn.pad_packed_sequence(
        l.nn.utils.rnn.pack_padded_sequence(l.zeros(4, 3, 2), [3, 2, 1]), total_length=2)),
    ("pack_sequence unsorted", lambda l: l.nn.utils.rnn.pack_sequence([l.ones(2), l.ones(3)])),
    ("padding_side", lambda l: l.nn.utils.rnn.pad_sequence([l.ones(2, 3)], padding_side="middle")),
    ("empty", lambda l: l.nn.utils.rnn.pad_sequence([])),
    ("trailing dims", lambda l: l.nn.utils.rnn.pad_sequence([l.ones(2, 3), l.ones(3, 2)])),
], ids=lambda c: c[0])
def test_errors_match_torch(case):
    _, fn = case
    try:
        fn(torch)
    except Exception as e:  # noqa: BLE001 - whichever PyTorch raises, npgrad raises the same
        want_type, want = type(e), str(e)
    else:
        pytest.fail("torch did not raise")
    with pytest.raises(want_type) as info:
        fn(npgrad)
    assert str(info.value) == want
