"""The loss modules beyond loss.py: the margin losses, CTCLoss, LinearCrossEntropyLoss and the deprecated
NLLLoss2d, each its nn.functional function through loss.py's _Loss."""
import math
import warnings

from .. import functional as F
from .distance import PairwiseDistance
from .linear import Linear
from .loss import NLLLoss, _Loss, _WeightedLoss

__all__ = ["MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss",
           "LinearCrossEntropyLoss", "NLLLoss2d"]


class MultiMarginLoss(_WeightedLoss):
    __constants__ = ["p", "margin", "reduction"]
    _fn, _passes = "multi_margin_loss", ("p", "margin", "weight", "reduction")

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p, self.margin = p, margin


class MultiLabelMarginLoss(_Loss):
    __constants__ = ["reduction"]
    _fn = "multilabel_margin_loss"


class TripletMarginWithDistanceLoss(_Loss):
    __constants__ = ["margin", "swap", "reduction"]
    _fn, _passes = "triplet_margin_with_distance_loss", ("distance_function", "margin", "swap", "reduction")

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        # The default is a PairwiseDistance submodule, as in PyTorch (it shows in the repr).
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             f"instead")
        self.distance_function = PairwiseDistance() if distance_function is None else distance_function
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return self._loss(anchor, positive, negative)


class CTCLoss(_Loss):
    __constants__ = ["blank", "reduction"]
    _fn, _passes = "ctc_loss", ("blank", "reduction", "zero_infinity")

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction, blank=blank, zero_infinity=zero_infinity)

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return self._loss(log_probs, targets, input_lengths, target_lengths)


class LinearCrossEntropyLoss(_WeightedLoss):
    """Linear(in_features, num_classes * prod(out_features)) followed by cross entropy; the weight is kept
    two-dimensional (so it is a Linear's) and reshaped to (num_classes, *out_features, in_features)."""

    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index", "label_smoothing"]
    _fn, _passes = "linear_cross_entropy", ("weight", "reduction", "ignore_index", "label_smoothing", "options")

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction, num_classes=num_classes, out_features=out_features,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        lin = self.linear
        classes = (self.num_classes, *self.out_features)
        bias = None if lin.bias is None else lin.bias.reshape(classes)
        return self._loss(input, lin.weight.reshape((*classes, lin.in_features)), target, linear_bias=bias)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes},"
                f" out_features={self.out_features}, bias={self.linear.bias is not None},"
                f" reduction={self.reduction}, ignore_index={self.ignore_index},"
                f" label_smoothing={self.label_smoothing}, options={self.options}")


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss (nll_loss takes any K-dimensional layout)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.", FutureWarning,
                      stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
