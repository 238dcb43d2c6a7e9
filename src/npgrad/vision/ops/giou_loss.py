"""The generalized IoU loss (Rezatofighi et al., 2019) over matched box pairs."""
from ._box_loss import _matched_geometry, _reduce
from .boxes import _upcast_non_float

__all__ = ["generalized_box_iou_loss"]


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """1 - GIoU of each matched pair of xyxy boxes (..., 4); ``eps`` keeps empty boxes finite."""
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    iou, union, (cx1, cy1, cx2, cy2) = _matched_geometry(boxes1, boxes2, eps)
    hull_area = (cx2 - cx1) * (cy2 - cy1)
    loss = 1 - (iou - (hull_area - union) / (hull_area + eps))
    return _reduce(loss, reduction, True)
