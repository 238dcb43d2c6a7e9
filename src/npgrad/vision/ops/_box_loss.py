"""What the detection losses share: the reductions and the geometry of matched box pairs."""
from ... import ops as _ops


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
