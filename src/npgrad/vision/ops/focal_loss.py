"""RetinaNet's focal loss (Lin et al., 2017) on logits."""
from ... import ops as _ops
from ...nn import functional as F
from ._box_loss import _reduce

__all__ = ["sigmoid_focal_loss"]


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    """RetinaNet's focal loss (Lin et al., 2017) on logits: binary cross-entropy scaled by (1 - p_t)^gamma,
    and by alpha_t when ``alpha`` >= 0. ``targets`` are 0/1 labels (or soft labels) of the inputs' shape."""
    if reduction not in ("none", "mean", "sum"):
        _reduce(None, reduction, False)
    p = _ops.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * (1 - p_t) ** gamma
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return _reduce(loss, reduction, False)
