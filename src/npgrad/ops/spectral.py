"""The differentiable Ops behind torch.fft's transforms and torch.stft/istft, over the array kernels of
``npgrad._fft_kernels`` (whose backward already follows PyTorch's complex convention, so every Op here is
``_complex_native``: the engine must not conjugate around it again).

A transform is R-linear, and its kernel backward is its adjoint under the real inner product Re<a, b>, so the
pair (forward, backward) differentiates to any order as ``P.adjoint_pair``. stft/istft are bilinear in the
signal and the window; their backward is the kernels' and is differentiable once (see ``_Short``).
"""
import numpy as np

from .._fft_kernels import istft as _istft, stft as _stft, transforms as _tr
from .._fft_kernels.plan import make_plan
from ..autograd.function import Op, _DelayedError
from ..tensor import Tensor
from . import _poly as P
from ._registry import op

_NODE = {"c2c": "FftC2CBackward0", "r2c": "FftR2CBackward0", "c2r": "FftC2RBackward0"}
# PyTorch computes ihfft as the conjugate of an rfft, and ihfft2/ihfftn finish with a c2c transform
_NODE_BY_NAME = {"ihfft": "ConjBackward0", "ihfft2": "FftC2CBackward0", "ihfftn": "FftC2CBackward0"}


def _node_name(node):
    p = node.args[0]
    return _NODE_BY_NAME.get(p.name) or _NODE[p.kind]


Transform, TransformAdjoint = P.adjoint_pair(
    "Transform", _tr.forward, _tr.backward, node_name=_node_name)
Transform._complex_native = TransformAdjoint._complex_native = True


def transform(name, input, n_or_s, dim, norm):
    """torch.fft.<name>(input, n_or_s, dim, norm) on a Tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    a = input._data
    return Transform.apply(input, make_plan(name, a.shape, a.dtype, n_or_s, dim, norm))


def _dense(g):
    return np.asarray(g._data if isinstance(g, Tensor) else g)


class _Short(Op):
    """stft/istft of (signal, window): forward and backward are the kernels'. The kernels' backward works on
    arrays, so it is differentiable once: under create_graph its results raise if differentiated again (as
    ``once_differentiable`` results do) rather than giving a silently wrong higher-order gradient."""
    __slots__ = ()
    _complex_native = True
    forward_fn = backward_fn = None

    @classmethod
    def forward(cls, ctx, x, w, p):
        ctx.args = (x, w, p)
        return cls.forward_fn(x, w, p)

    @classmethod
    def backward(cls, ctx, g):
        x, w, p = ctx.args
        gx, gw = cls.backward_fn(_dense(g), x, w, p)
        if isinstance(g, Tensor):  # create_graph
            outs = [Tensor._wrap(a) for a in (gx, gw) if a is not None]
            for t in outs:
                t._requires_grad = True
            outs = list(_DelayedError.apply(*outs))
            gx, gw = outs[0], None if gw is None else outs[1]
        return gx, gw, None


class Stft(_Short):
    __slots__ = ()
    node_name = "StftBackward0"
    forward_fn, backward_fn = staticmethod(_stft.stft), staticmethod(_stft.stft_backward)


class Istft(_Short):
    __slots__ = ()
    node_name = "IstftBackward0"
    forward_fn, backward_fn = staticmethod(_istft.istft), staticmethod(_istft.istft_backward)


def _window_array(window):
    return None if window is None else window._data


@op(methods=("stft",))
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    p = _stft.stft_plan(input._data.shape, input._data.dtype, n_fft, hop_length, win_length, _window_array(window),
                        center, pad_mode, normalized, onesided, return_complex, align_to_window)
    return Stft.apply(input, window, p)


@op(methods=("istft",))
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    p = _istft.istft_plan(input._data.shape, input._data.dtype, n_fft, hop_length, win_length, _window_array(window),
                          center, normalized, onesided, length, return_complex)
    return Istft.apply(input, window, p)
