"""Embedding and EmbeddingBag: a (num_embeddings, embedding_dim) table of vectors looked up by index."""
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._factory import empty
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _resolve_padding(padding_idx, n):
    """padding_idx as a row number in 0..n-1 (a negative one counts from the end); None stays None."""
    if padding_idx is None:
        return None
    if not -n <= padding_idx < n and padding_idx != 0:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + n if padding_idx < 0 else padding_idx


def _shown(value, default):
    return value is not default if isinstance(default, bool) or default is None else value != default


class _Table(Module):
    """What both share: the sizes, the max-norm settings, the padding row and the table's initialisation."""

    # extra_repr after the two sizes: (attribute, default it is hidden at, how it prints)
    _repr_options = ()

    def _setup(self, num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq,
               weight, shape_checked, freeze, device, dtype):
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _resolve_padding(padding_idx, num_embeddings)
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if weight is not None:
            if shape_checked and tuple(weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(weight, requires_grad=not freeze)
            return
        self.weight = Parameter(empty((num_embeddings, embedding_dim), dtype, device), requires_grad=not freeze)
        self.reset_parameters()

    def reset_parameters(self):
        # N(0, 1) rows, the padding row (if any) zero.
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is None:
            return
        with no_grad():
            self.weight[self.padding_idx].fill_(0)

    def extra_repr(self):
        parts = [f"{self.num_embeddings}, {self.embedding_dim}"]
        for name, default, show in self._repr_options:
            value = getattr(self, name)
            if default is _ALWAYS or _shown(value, default):
                parts.append(show(name, value))
        return ", ".join(parts)


_ALWAYS = object()


def _plain(name, value):
    return f"{name}={value}"


class Embedding(_Table):
    """A lookup table of ``num_embeddings`` vectors; the ``padding_idx`` row starts at zero and gets no gradient."""

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq",
                     "sparse"]
    _repr_options = (("padding_idx", None, _plain), ("max_norm", None, _plain), ("norm_type", 2, _plain),
                     ("scale_grad_by_freq", False, _plain), ("sparse", False, lambda name, value: "sparse=True"))

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self._setup(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, _weight,
                    True, _freeze, device, dtype)
        self.sparse = sparse

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (shared, not copied); frozen unless ``freeze=False``."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        settings = dict(padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                        scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
        n, dim = embeddings.shape
        return cls(num_embeddings=n, embedding_dim=dim, _weight=embeddings, _freeze=freeze, **settings)


class EmbeddingBag(_Table):
    """Sums, means or maxima of bags of embeddings (bags given by ``offsets`` or as rows of a 2-D input)."""

    _repr_options = (("max_norm", None, _plain), ("norm_type", 2, _plain), ("scale_grad_by_freq", False, _plain),
                     ("mode", _ALWAYS, lambda name, value: f"mode={value!r}"), ("padding_idx", None, _plain))

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self._setup(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, _weight,
                    False, False, device, dtype)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)
