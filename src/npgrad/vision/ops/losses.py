"""Detection losses: the IoU-family box regression losses (generalized, distance, complete) over matched
box pairs, and the focal loss of RetinaNet. All are npgrad expressions, so they differentiate like any."""

from ... import ops as _ops
from ...nn import functional as F
from .boxes import _aspect_term, _upcast_non_float

__all__ = ["generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss", "sigmoid_focal_loss"]


def _reduce(loss, reduction, empty_safe):
    if reduction == "none":
        return loss
    if reduction == "mean":
        if empty_safe and loss.numel() == 0:
            return 0.0 * loss.sum()  # no pairs: a zero loss still connected to the inputs
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', "
                     f"'mean', 'sum'")


def _matched_geometry(boxes1, boxes2, eps):
    """For box pairs (..., 4) in xyxy: IoU (with eps in the union), and the corners of each enclosing box."""
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    iw = (_ops.minimum(x2, u2) - _ops.maximum(x1, u1)).clamp(min=0)
    ih = (_ops.minimum(y2, v2) - _ops.maximum(y1, v1)).clamp(min=0)
    inter = iw * ih
    union = (x2 - x1) * (y2 - y1) + (u2 - u1) * (v2 - v1) - inter
    iou = inter / (union + eps)
    hull = (_ops.minimum(x1, u1), _ops.minimum(y1, v1), _ops.maximum(x2, u2), _ops.maximum(y2, v2))
    return iou, union, hull


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - GIoU of each matched pair of xyxy boxes (..., 4); ``eps`` keeps empty boxes finite."""
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    iou, union, (cx1, cy1, cx2, cy2) = _matched_geometry(boxes1, boxes2, eps)
    hull_area = (cx2 - cx1) * (cy2 - cy1)
    loss = 1 - (iou - (hull_area - union) / (hull_area + eps))
    return _reduce(loss, reduction, True)


def _diou_loss_and_iou(boxes1, boxes2, eps):
    iou, _union, (cx1, cy1, cx2, cy2) = _matched_geometry(boxes1, boxes2, eps)
    diag_sq = (cx2 - cx1) ** 2 + (cy2 - cy1) ** 2 + eps
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    centre_sq = ((x1 + x2) / 2 - (u1 + u2) / 2) ** 2 + ((y1 + y2) / 2 - (v1 + v2) / 2) ** 2
    return 1 - iou + centre_sq / diag_sq, iou


def distance_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - DIoU of each matched pair: the IoU loss plus the squared centre distance over the squared
    diagonal of the enclosing box."""
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    loss, _iou = _diou_loss_and_iou(boxes1, boxes2, eps)
    return _reduce(loss, reduction, True)


def complete_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - CIoU of each matched pair: the DIoU loss plus alpha * v, v measuring how the aspect ratios differ
    and alpha = v / (1 - IoU + v) a weight the gradient does not flow through."""
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    loss, iou = _diou_loss_and_iou(boxes1, boxes2, eps)
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    v = _aspect_term(u2 - u1, v2 - v1, x2 - x1, y2 - y1)
    alpha = (v / (1 - iou + v + eps)).detach()
    return _reduce(loss + alpha * v, reduction, True)


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
