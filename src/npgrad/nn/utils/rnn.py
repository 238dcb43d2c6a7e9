"""torch.nn.utils.rnn: PackedSequence and the functions that pad, pack and unpack variable-length batches.

Packing is a gather of the padded tensor's rows (time-major, step ``t`` holding the first ``batch_sizes[t]``
sequences, longest first) and unpacking the reverse gather with one extra row of padding, so both are
single differentiable index ops."""
from collections import namedtuple

import numpy as np

from ...factories import tensor as _tensor
from ...ops.movement import cat, stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


def _long(values):
    return _tensor(np.asarray(values, dtype=np.int64))


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A batch of sequences in packed form: ``data`` holds every step's rows, ``batch_sizes`` (an int64 CPU
    tensor) how many sequences each step holds; ``sorted_indices`` maps the packed order to the batch's."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with(self, fn):
        data = fn(self.data)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the same object back when nothing changes (batch_sizes stays on the CPU)."""
        return self._with(lambda t: t.to(*args, **kwargs))

    def cuda(self, *args, **kwargs):
        return self._with(lambda t: t.cuda(*args, **kwargs))

    def cpu(self, *args, **kwargs):
        return self._with(lambda t: t.cpu(*args, **kwargs))

    def pin_memory(self):
        return self

    def double(self):
        return self._with(lambda t: t.double())

    def float(self):
        return self._with(lambda t: t.float())

    def half(self):
        return self._with(lambda t: t.half())

    def long(self):
        return self._with(lambda t: t.long())

    def int(self):
        return self._with(lambda t: t.int())

    def short(self):
        return self._with(lambda t: t.short())

    def char(self):
        return self._with(lambda t: t.char())

    def byte(self):
        return self._with(lambda t: t.byte())

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None for None)."""
    if permutation is None:
        return None
    p = np.asarray(permutation.numpy())
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return _tensor(inv)


def _lengths_array(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D cpu "
                               f"{_type_word(lengths)} tensor")
        return lengths.detach().numpy().astype(np.int64)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def _type_word(t):
    return {"int64": "Long", "int32": "Int", "float32": "Float", "float64": "Double", "int16": "Short",
            "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(str(t.dtype).split(".")[-1], "")


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T x B x * or B x T x *) of sequences of the given lengths."""
    lens = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = _long(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    B = input.shape[0 if batch_first else 1]
    if lens.size != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} (batch_size={B})")
    if lens.size and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lens[1:] > lens[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    T = int(lens[0])
    batch_sizes = (lens[None, :] > np.arange(T)[:, None]).sum(1)
    x = input.transpose(0, 1) if batch_first else input
    rows = np.concatenate([t * B + np.arange(b) for t, b in enumerate(batch_sizes)]).astype(np.int64)
    flat = x[:T].reshape((T * B,) + tuple(x.shape[2:]))
    data = flat.index_select(0, _long(rows))
    return PackedSequence(data, _long(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded tensor, lengths as an int64 tensor), in the batch's order."""
    data, batch_sizes, _sorted, unsorted = sequence
    bsz = np.asarray(batch_sizes.numpy(), dtype=np.int64)
    T, B = bsz.size, int(bsz[0])
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")
        T_out = total_length
    else:
        T_out = T
    N = data.shape[0]
    index = np.full((T_out, B), N, dtype=np.int64)  # row N: the padding row
    offsets = np.concatenate([[0], np.cumsum(bsz)])
    for t, b in enumerate(bsz):
        index[t, :b] = np.arange(offsets[t], offsets[t] + b)
    lengths = (bsz[None, :] > np.arange(B)[:, None]).sum(1)
    if unsorted is not None:
        perm = np.asarray(unsorted.numpy(), dtype=np.int64)
        index = index[:, perm]
        lengths = lengths[perm]
    if batch_first:
        index = index.T
    pad = data.new_full((1,) + tuple(data.shape[1:]), padding_value)
    rows = cat([data, pad]) if N else pad
    if not N:
        index[...] = 0
    out = rows.index_select(0, _long(index.reshape(-1))).reshape(index.shape + tuple(data.shape[1:]))
    return out, _long(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length tensors (L_i x *) into one padded tensor (T x B x *, or B x T x *)."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    else:
        try:
            sequences = tuple(sequences)
        except TypeError:
            raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                               f"{type(sequences)}") from None
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences[1:]:
        other = tuple(s.shape[1:])
        if other != trailing:
            for d in range(max(len(other), len(trailing))):
                a = trailing[-1 - d] if d < len(trailing) else 1
                b = other[-1 - d] if d < len(other) else 1
                if a != b:
                    dim = max(len(other), len(trailing)) - d
                    raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                                       f"non-singleton dimension {dim}")
    T = max(s.shape[0] for s in sequences)
    parts = []
    for s in sequences:
        n = T - s.shape[0]
        if n:
            fill = s.new_full((n,) + trailing, padding_value)
            s = cat([s, fill] if padding_side == "right" else [fill, s])
        parts.append(s)
    return stack(parts, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded tensor back into its sequences, each cut to its length."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    lens = _lengths_array(lengths)
    return [x[i, :int(n)] for i, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of variable-length tensors (longest first unless ``enforce_sorted=False``)."""
    lengths = _long([s.shape[0] for s in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors a PackedSequence holds, in the batch's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
