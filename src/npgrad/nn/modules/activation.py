"""Activation modules, Softmax family, PReLU, and MultiheadAttention."""
import warnings
from operator import attrgetter

from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._factory import empty
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
           "Tanh", "Softplus", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "Hardtanh", "Hardsigmoid",
           "Hardswish", "LogSigmoid", "Threshold", "GLU", "Softmax", "LogSoftmax", "Softmin", "Softmax2d",
           "MultiheadAttention"]


def _inplace_str(inplace, lead=""):
    return (lead + "inplace=True") if inplace else ""


class _Inplace(Module):
    fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return self.fn(input, self.inplace)  # positional: every fn is (input, inplace=False); a keyword call costs more

    def extra_repr(self):
        return _inplace_str(self.inplace)


class ReLU(_Inplace):
    fn = staticmethod(F.relu)


class SiLU(_Inplace):
    fn = staticmethod(F.silu)


class Mish(_Inplace):
    fn = staticmethod(F.mish)


class SELU(_Inplace):
    fn = staticmethod(F.selu)


class Hardsigmoid(_Inplace):
    fn = staticmethod(F.hardsigmoid)


class Hardswish(_Inplace):
    fn = staticmethod(F.hardswish)


class _Plain(Module):
    fn = None

    def forward(self, input):
        return type(self).fn(input)


class Sigmoid(_Plain):
    fn = staticmethod(F.sigmoid)


class Tanh(_Plain):
    fn = staticmethod(F.tanh)


class Softsign(_Plain):
    fn = staticmethod(F.softsign)


class Tanhshrink(_Plain):
    fn = staticmethod(F.tanhshrink)


class LogSigmoid(_Plain):
    fn = staticmethod(F.logsigmoid)


class _WithSettings(Module):
    """An activation computed as ``F.<_fn>(input, *settings)``, the settings being the attributes ``_fields`` names
    (in ``_fn``'s positional order); extra_repr shows the ``_shown`` ones, then ``inplace=True`` if set."""

    _fn = None
    _fields = ()
    _shown = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_fields" in cls.__dict__:
            # attrgetter of several names returns a tuple in one C call; one name needs wrapping.
            get = attrgetter(*cls._fields)
            cls._settings = staticmethod(get if len(cls._fields) > 1 else (lambda m: (get(m),)))

    def forward(self, input):
        # F's function is looked up at each call: vmap swaps nn.functional's functions for batching ones.
        return getattr(F, self._fn)(input, *self._settings(self))

    def extra_repr(self):
        parts = [f"{name}={getattr(self, name)}" for name in self._shown]
        if getattr(self, "inplace", False):
            parts.append("inplace=True")
        return ", ".join(parts)


class Threshold(_WithSettings):
    _fn, _fields, _shown = "threshold", ("threshold", "value", "inplace"), ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace


class Hardtanh(_WithSettings):
    _fn, _fields, _shown = "hardtanh", ("min_val", "max_val", "inplace"), ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        # min_value/max_value: PyTorch's deprecated spellings, which win when given.
        for old, value in (("min_value", min_value), ("max_value", max_value)):
            if value is not None:
                warnings.warn(f"keyword argument `{old}` is deprecated and renamed to `{old[:-2]}`", FutureWarning,
                              stacklevel=2)
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
        if self.min_val >= self.max_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")


class ReLU6(Hardtanh):
    _shown = ()

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)


class LeakyReLU(_WithSettings):
    _fn, _fields, _shown = "leaky_relu", ("negative_slope", "inplace"), ("negative_slope",)

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace


class RReLU(_WithSettings):
    # The slope is random in training and the mean of [lower, upper] in eval: training is a setting too.
    _fn, _fields, _shown = "rrelu", ("lower", "upper", "training", "inplace"), ("lower", "upper")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace


class ELU(_WithSettings):
    _fn, _fields, _shown = "elu", ("alpha", "inplace"), ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace


class CELU(ELU):
    _fn = "celu"


class GELU(_WithSettings):
    _fn, _fields = "gelu", ("approximate",)

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(_WithSettings):
    _fn, _fields = "softplus", ("beta", "threshold")
    _shown = _fields

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold


class Softshrink(_WithSettings):
    _fn, _fields = "softshrink", ("lambd",)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    _fn = "hardshrink"


class GLU(_WithSettings):
    _fn, _fields, _shown = "glu", ("dim",), ("dim",)

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim


class PReLU(_WithSettings):
    """max(0, x) + a * min(0, x) with a learnable slope (one, or one per channel)."""

    _fn, _fields, _shown = "prelu", ("weight",), ("num_parameters",)

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty((num_parameters,), dtype, device))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)


class _SoftmaxBase(Module):
    fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self).fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxBase):
    fn = staticmethod(F.log_softmax)


class Softmin(_SoftmaxBase):
    fn = staticmethod(F.softmin)


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)


def _batch_second(*xs):
    """(N, L, E) -> (L, N, E) for each, the same tensor passed twice giving the same view twice: the packed
    projection of self-attention relies on ``query is key is value``."""
    done = {}
    for x in xs:
        if id(x) not in done:
            done[id(x)] = x.transpose(1, 0)
    return [done[id(x)] for x in xs]


class MultiheadAttention(Module):
    """Multi-head attention with PyTorch's parameters (in_proj_weight / q,k,v_proj_weight, out_proj) and
    call signature; ``batch_first`` selects (N, L, E) instead of (L, N, E)."""

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if min(embed_dim, num_heads) <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        kdim = embed_dim if kdim is None else kdim
        vdim = embed_dim if vdim is None else vdim
        self.embed_dim, self.kdim, self.vdim = embed_dim, kdim, vdim
        # One packed (3E, E) input projection when key and value have the query's width, three otherwise.
        self._qkv_same_embed_dim = kdim == vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        packed = self._qkv_same_embed_dim
        shapes = {"in_proj_weight": (3 * embed_dim, embed_dim) if packed else None,
                  "q_proj_weight": None if packed else (embed_dim, embed_dim),
                  "k_proj_weight": None if packed else (embed_dim, kdim),
                  "v_proj_weight": None if packed else (embed_dim, vdim)}
        # Registration order is PyTorch's (q, k, v before in_proj when separate): state_dicts list it.
        order = ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight")
        for name in (order if packed else order[1:] + order[:1]):
            if shapes[name] is None:
                self.register_parameter(name, None)
            else:
                setattr(self, name, Parameter(empty(shapes[name], dtype, device)))
        if bias:
            self.in_proj_bias = Parameter(empty((3 * embed_dim,), dtype, device))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        self.bias_k, self.bias_v = ((Parameter(empty((1, 1, embed_dim), dtype, device)),
                                     Parameter(empty((1, 1, embed_dim), dtype, device))) if add_bias_kv
                                    else (None, None))
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        # Xavier-uniform projections, zero biases, Xavier-normal bias_k/bias_v, in this order (the RNG's).
        projections = ("in_proj_weight",) if self._qkv_same_embed_dim else ("q_proj_weight", "k_proj_weight",
                                                                             "v_proj_weight")
        for name in projections:
            init.xavier_uniform_(getattr(self, name))
        if self.in_proj_bias is not None:
            for b in (self.in_proj_bias, self.out_proj.bias):
                init.constant_(b, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                init.xavier_normal_(extra)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        flip = self.batch_first and query.dim() == 3
        if flip:
            query, key, value = _batch_second(query, key, value)
        separate = {} if self._qkv_same_embed_dim else dict(
            use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight)
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        return (out.transpose(1, 0) if flip else out), weights
