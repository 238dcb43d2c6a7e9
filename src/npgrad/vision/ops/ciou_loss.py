"""The complete IoU loss (Zheng et al., 2020): DIoU plus an aspect-ratio term, over matched box pairs."""
from ._box_loss import _reduce
from .boxes import _aspect_term, _upcast_non_float
from .diou_loss import _diou_loss_and_iou

__all__ = ["complete_box_iou_loss"]


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
