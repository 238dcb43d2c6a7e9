"""The distance IoU loss (Zheng et al., 2019) over matched box pairs."""
from ._box_loss import _matched_geometry, _reduce
from .boxes import _upcast_non_float

__all__ = ["distance_box_iou_loss"]


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
