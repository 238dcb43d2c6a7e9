"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, packed input) and their one-step cells.

Parameter names, shapes, initialisation and gate order are PyTorch's, so state_dicts load either way."""
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

# looked up on the kernels' module at each call: vmap swaps them there for its batching rule
_KERNELS = {"RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu", "LSTM": "lstm", "GRU": "gru"}
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(t, permutation, dim=1):
    return t.index_select(dim, permutation)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the per-layer, per-direction parameters and the input checks."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih_l", (gate_size, layer_input)), ("weight_hh_l", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l", (gate_size,)), ("bias_hh_l", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l", (proj_size, hidden_size))]
                names = []
                for stem, shape in shapes:
                    name = f"{stem}{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, dtype, device)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    def flatten_parameters(self):
        """Packs the weights for cuDNN in PyTorch; a no-op on the CPU, as there."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def check_input(self, input, batch_sizes):
        w0 = self._flat_weights[0]
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w0.dtype}). "
                             f"Convert input: input.to({w0.dtype}), or convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- the forward RNN, LSTM and GRU share -------------------------------------------------------------------
    def _zeros(self, input, max_batch, size):
        num_directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * num_directions, max_batch, size, dtype=input.dtype)

    def _check_hx_dims(self, hx, batched):
        if self.mode == "LSTM":
            d0, d1 = hx[0].dim(), hx[1].dim()
            if batched and (d0 != 3 or d1 != 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got ({d0}-D, {d1}-D) "
                                   "tensors")
            if not batched and (d0 != 2 or d1 != 2):
                raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got ({d0}-D, "
                                   f"{d1}-D) tensors")
            return hx if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        if batched and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if not batched and hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
        return hx if batched else hx.unsqueeze(1)

    def _forward(self, input, hx, name, dim_word):
        is_lstm = self.mode == "LSTM"
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        orig_input = input
        batched = True
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch = int(batch_sizes[0])
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{dim_word} instead")
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                hx = self._check_hx_dims(hx, batched)
            max_batch = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            hx = self._zeros(input, max_batch, real_hidden)
            if is_lstm:
                hx = (hx, self._zeros(input, max_batch, self.hidden_size))
        elif is_lstm:
            hx = tuple(self.permute_hidden(h, sorted_indices) for h in hx)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        args = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        kernel = getattr(_R, _KERNELS[self.mode])
        if batch_sizes is None:
            result = kernel(input, hx, *args, self.batch_first)
        else:
            result = kernel(input, batch_sizes, hx, *args)
        output = result[0]
        hidden = tuple(result[1:]) if is_lstm else result[1]
        if isinstance(orig_input, PackedSequence):
            output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            if is_lstm:
                return output, tuple(self.permute_hidden(h, unsorted_indices) for h in hidden)
            return output, self.permute_hidden(hidden, unsorted_indices)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = tuple(h.squeeze(1) for h in hidden) if is_lstm else hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or ReLU), stacked and/or bidirectional.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

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
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(_apply_permutation(h, permutation) for h in hx)
        return _apply_permutation(hx, permutation)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM", "")


class GRU(RNNBase):
    """Gated recurrent unit, gates r, z, n with n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn)).

    ``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False,
    device=None, dtype=None)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU", "")


class RNNCellBase(Module):
    """What the cells share: weight_ih (chunks*hidden, input), weight_hh (chunks*hidden, hidden), biases."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype, device))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype, device))
        if bias:
            self.bias_ih = Parameter(empty((num_chunks * hidden_size,), dtype, device))
            self.bias_hh = Parameter(empty((num_chunks * hidden_size,), dtype, device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, hx, name, what="hidden"):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or ReLU)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, hx, "RNNCell")
        if self.nonlinearity == "tanh":
            ret = _R.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = _R.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``forward(input, (h, c)=None)`` returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _R.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) * n + z * h."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, hx, "GRUCell")
        ret = _R.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)
