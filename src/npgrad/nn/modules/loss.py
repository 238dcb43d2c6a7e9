"""Loss modules: each is its nn.functional function with its settings held as attributes (class weights are
buffers, as in PyTorch).

A loss class names its function (``_fn``) and the attributes handed to it as keywords (``_passes``); the
base class does the call. The function is looked up by name at each call because vmap swaps nn.functional's
functions for batching ones.
"""
from operator import attrgetter

from .. import functional as F
from .._functional._utils import legacy_reduction
from .module import Module

__all__ = ["L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "SmoothL1Loss", "HuberLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
           "MultiLabelSoftMarginLoss"]


class _Loss(Module):
    _fn = None
    _passes = ("reduction",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # attrgetter of several names returns a tuple; of one, the bare value.
        get = attrgetter(*cls._passes)
        cls._settings = staticmethod(get if len(cls._passes) > 1 else (lambda m: (get(m),)))

    def __init__(self, size_average=None, reduce=None, reduction="mean", **settings):
        super().__init__()
        legacy = size_average is not None or reduce is not None
        self.reduction = legacy_reduction(size_average, reduce) if legacy else reduction
        for name, value in settings.items():
            setattr(self, name, value)

    def _loss(self, *inputs, **more):
        return getattr(F, self._fn)(*inputs, **dict(zip(self._passes, self._settings(self))), **more)

    def forward(self, input, target):
        return self._loss(input, target)


class _WeightedLoss(_Loss):
    _passes = ("weight", "reduction")

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", **settings):
        super().__init__(size_average, reduce, reduction, **settings)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    _fn = "l1_loss"


class MSELoss(_Loss):
    _fn = "mse_loss"


class SoftMarginLoss(_Loss):
    _fn = "soft_margin_loss"


class BCELoss(_WeightedLoss):
    _fn = "binary_cross_entropy"


class MultiLabelSoftMarginLoss(_WeightedLoss):
    _fn = "multilabel_soft_margin_loss"


class NLLLoss(_WeightedLoss):
    __constants__ = ["ignore_index", "reduction"]
    _fn, _passes = "nll_loss", ("weight", "ignore_index", "reduction")

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction, ignore_index=ignore_index)


class CrossEntropyLoss(_WeightedLoss):
    __constants__ = ["ignore_index", "reduction", "label_smoothing"]
    _fn, _passes = "cross_entropy", ("weight", "ignore_index", "reduction", "label_smoothing")

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


class BCEWithLogitsLoss(_WeightedLoss):
    _fn, _passes = "binary_cross_entropy_with_logits", ("weight", "pos_weight", "reduction")

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)


class KLDivLoss(_Loss):
    _fn, _passes = "kl_div", ("reduction", "log_target")

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction, log_target=log_target)


class SmoothL1Loss(_Loss):
    _fn, _passes = "smooth_l1_loss", ("reduction", "beta")

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction, beta=beta)


class HuberLoss(_Loss):
    _fn, _passes = "huber_loss", ("reduction", "delta")

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction, delta=delta)


class PoissonNLLLoss(_Loss):
    _fn, _passes = "poisson_nll_loss", ("log_input", "full", "eps", "reduction")

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, log_input=log_input, full=full, eps=eps)

    def forward(self, log_input, target):
        return self._loss(log_input, target)


class GaussianNLLLoss(_Loss):
    _fn, _passes = "gaussian_nll_loss", ("full", "eps", "reduction")

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction, full=full, eps=eps)

    def forward(self, input, target, var):
        return self._loss(input, target, var)


class _PairLoss(_Loss):
    """A loss of two inputs and a ±1 target, with a margin."""

    _passes = ("margin", "reduction")

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)

    def forward(self, input1, input2, target):
        return self._loss(input1, input2, target)


class MarginRankingLoss(_PairLoss):
    _fn = "margin_ranking_loss"


class CosineEmbeddingLoss(_PairLoss):
    _fn = "cosine_embedding_loss"


class HingeEmbeddingLoss(_Loss):
    _fn, _passes = "hinge_embedding_loss", ("margin", "reduction")

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)


class TripletMarginLoss(_Loss):
    _fn, _passes = "triplet_margin_loss", ("margin", "p", "eps", "swap", "reduction")

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin, p=p, eps=eps, swap=swap)

    def forward(self, anchor, positive, negative):
        return self._loss(anchor, positive, negative)
