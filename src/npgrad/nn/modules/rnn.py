"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, packed input) and their one-step cells.

Parameter names, shapes, initialisation and gate order are PyTorch's, so state_dicts load either way.
Inside, an LSTM's state is the pair (h, c) and every other recurrence's state is h alone; the code below
treats both as a tuple of states and only the messages tell them apart."""
import math
import numbers
import warnings

from ...factories import zeros
from .. import init
from .._functional import rnn as _R
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._factory import empty
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

# mode -> (gates per hidden unit, kernel name); the kernel is looked up on its module at each call, because
# vmap swaps the kernels there for its batching rule.
_MODES = {"LSTM": (4, "lstm"), "GRU": (3, "gru"), "RNN_TANH": (1, "rnn_tanh"), "RNN_RELU": (1, "rnn_relu")}
_RNN_NONLINEARITY = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
_CELL_KERNELS = {"tanh": "rnn_tanh_cell", "relu": "rnn_relu_cell"}


def _uniform_reset(module):
    """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


def _describe(module, shown_unless):
    """extra_repr: the two sizes, then each option whose value is not its default (bools compared by identity)."""
    parts = [f"{module.input_size}, {module.hidden_size}"]
    for name, default in shown_unless:
        if name not in module.__dict__:
            continue
        value = module.__dict__[name]
        if (value is not default) if isinstance(default, bool) else (value != default):
            parts.append(f"{name}={value}")
    return ", ".join(parts)


def _refuse_projection(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


def _check_sizes(bias, batch_first, input_size, hidden_size, num_layers, proj_size):
    for name, flag in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(flag).__name__}")
    for name, size in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(size, int):
            raise TypeError(f"{name} should be of type int, got: {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the per-layer, per-direction parameters and the input checks."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if num_layers == 1 and dropout > 0:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        _check_sizes(bias, batch_first, input_size, hidden_size, num_layers, proj_size)
        if mode not in _MODES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        rows = _MODES[mode][0] * hidden_size
        out_size = self._state_size()
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else out_size * self._directions
            for tag in ("", "_reverse")[:self._directions]:
                shapes = {"weight_ih_l": (rows, in_size), "weight_hh_l": (rows, out_size)}
                if bias:
                    shapes.update(bias_ih_l=(rows,), bias_hh_l=(rows,))
                if proj_size:
                    shapes["weight_hr_l"] = (proj_size, hidden_size)
                names = [f"{stem}{layer}{tag}" for stem in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(empty(shape, dtype, device)))
                self._flat_weights_names += names
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _directions(self):
        return 2 if self.bidirectional else 1

    def _state_size(self):
        # h's size: the projection's when there is one.
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    def flatten_parameters(self):
        """Packs the weights for cuDNN in PyTorch; a no-op on the CPU, as there."""

    def reset_parameters(self):
        _uniform_reset(self)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def check_input(self, input, batch_sizes):
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        want = 3 if batch_sizes is None else 2
        if input.dim() != want:
            raise RuntimeError(f"input must have {want} dimensions, got {input.dim()}")
        if input.size(-1) != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _batch_size(self, input, batch_sizes):
        if batch_sizes is None:
            return input.size(0 if self.batch_first else 1)
        return int(batch_sizes[0])  # packed: the first time step holds every sequence

    def get_expected_hidden_size(self, input, batch_sizes):
        return (self.num_layers * self._directions, self._batch_size(input, batch_sizes), self._state_size())

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    def extra_repr(self):
        return _describe(self, (("proj_size", 0), ("num_layers", 1), ("bias", True), ("batch_first", False),
                                ("dropout", 0), ("bidirectional", False)))

    # -- the forward RNN, LSTM and GRU share -------------------------------------------------------------------
    def _given_state(self, hx, batched):
        """Check that a given state has the input's batchedness (3-D or 2-D) and give an unbatched one its
        batch of one."""
        lstm = self.mode == "LSTM"
        states = tuple(hx) if lstm else (hx,)
        want = 3 if batched else 2
        dims = [h.dim() for h in states[:2]]
        if any(d != want for d in dims):
            kind = f"{'batched' if batched else 'unbatched'} {want}-D input"
            if lstm:
                raise RuntimeError(f"For {kind}, hx and cx should also be {want}-D but got ({dims[0]}-D, "
                                   f"{dims[1]}-D) tensors")
            raise RuntimeError(f"For {kind}, hx should also be {want}-D but got {dims[0]}-D tensor")
        if batched:
            return hx
        states = tuple(h.unsqueeze(1) for h in states)
        return states if lstm else states[0]

    def _forward(self, input, hx, name, dim_word):
        lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        batch_dim = 0 if self.batch_first else 1
        if packed:
            data, batch_sizes, order, unorder = input
            batched = True
        else:
            data, batch_sizes, order, unorder = input, None, None, None
            if data.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {data.dim()}D{dim_word} instead")
            batched = data.dim() == 3
            if not batched:
                data = data.unsqueeze(batch_dim)
            if hx is not None:
                hx = self._given_state(hx, batched)
        if hx is None:
            shape = (self.num_layers * self._directions, self._batch_size(data, batch_sizes))
            hx = zeros(*shape, self._state_size(), dtype=data.dtype)
            if lstm:
                hx = (hx, zeros(*shape, self.hidden_size, dtype=data.dtype))
        else:
            hx = self.permute_hidden(tuple(hx) if lstm else hx, order)
        self.check_forward_args(data, hx, batch_sizes)
        kernel = getattr(_R, _MODES[self.mode][1])
        settings = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        if packed:
            out, *state = kernel(data, batch_sizes, hx, *settings)
        else:
            out, *state = kernel(data, hx, *settings, self.batch_first)
        hidden = tuple(state) if lstm else state[0]
        if packed:
            return PackedSequence(out, batch_sizes, order, unorder), self.permute_hidden(hidden, unorder)
        if not batched:
            out = out.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if lstm else hidden.squeeze(1)
        return out, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or ReLU), stacked and/or bidirectional.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)``."""

    def __init__(self, *args, **kwargs):
        _refuse_projection(kwargs)
        # nonlinearity is the fourth positional argument here, but not RNNBase's.
        nonlinearity = args[3] if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        args = args[:3] + args[4:]
        self.nonlinearity = nonlinearity
        if nonlinearity not in _RNN_NONLINEARITY:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(_RNN_NONLINEARITY[nonlinearity], *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN", " tensor")


class LSTM(RNNBase):
    """Long short-term memory, gates i, f, g, o; ``proj_size > 0`` projects h_t through ``weight_hr``.

    ``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False,
    proj_size=0, device=None, dtype=None)``; ``forward(input, (h_0, c_0)=None)`` returns
    ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        return (self.num_layers * self._directions, self._batch_size(input, batch_sizes), self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        for i, expected in enumerate((self.get_expected_hidden_size(input, batch_sizes),
                                      self.get_expected_cell_size(input, batch_sizes))):
            self.check_hidden_size(hidden[i], expected, f"Expected hidden[{i}] size {{}}, got {{}}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM", "")


class GRU(RNNBase):
    """Gated recurrent unit, gates r, z, n with n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn)).

    ``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False,
    device=None, dtype=None)``."""

    def __init__(self, *args, **kwargs):
        _refuse_projection(kwargs)
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU", "")


class RNNCellBase(Module):
    """What the cells share: weight_ih (chunks*hidden, input), weight_hh (chunks*hidden, hidden), biases."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = num_chunks * hidden_size
        for name, shape in (("weight_ih", (rows, input_size)), ("weight_hh", (rows, hidden_size)),
                            ("bias_ih", (rows,)), ("bias_hh", (rows,))):
            if bias or name.startswith("weight"):
                setattr(self, name, Parameter(empty(shape, dtype, device)))
            else:
                self.register_parameter(name, None)
        self.reset_parameters()

    def extra_repr(self):
        return _describe(self, (("bias", True), ("nonlinearity", "tanh")))

    def reset_parameters(self):
        _uniform_reset(self)

    def _step_inputs(self, input, hx, name, pair=False):
        """Checked input and state tuple, both with a batch dimension, and whether the input had one."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = () if hx is None else (tuple(hx) if pair else (hx,))
        for i, h in enumerate(states):
            if h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {f'hx[{i}]' if pair else 'hidden'} to be 1D or 2D, got "
                                 f"{h.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input, states = input.unsqueeze(0), tuple(h.unsqueeze(0) for h in states)
        if hx is None:
            blank = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            states = (blank, blank) if pair else (blank,)
        return input, states, batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or ReLU)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._step_inputs(input, hx, "RNNCell")
        if self.nonlinearity not in _CELL_KERNELS:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = getattr(_R, _CELL_KERNELS[self.nonlinearity])(input, h, *self._weights())
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``forward(input, (h, c)=None)`` returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, batched = self._step_inputs(input, hx, "LSTMCell", pair=True)
        h, c = _R.lstm_cell(input, states, *self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) * n + z * h."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._step_inputs(input, hx, "GRUCell")
        out = _R.gru_cell(input, h, *self._weights())
        return out if batched else out.squeeze(0)
