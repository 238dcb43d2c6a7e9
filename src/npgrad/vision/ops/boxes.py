"""Axis-aligned boxes: format conversion, areas, the IoU family (plain, generalized, distance, complete),
clipping, filtering, masks to boxes and non-maximum suppression.

Everything but NMS is written with npgrad operators, so the IoU family is differentiable and the losses
built on it (losses.py) train. NMS is a selection, not a function to differentiate: it works on the arrays
and returns int64 indices, as torchvision's kernel does.
"""
import math

import numpy as np

from ... import ops as _ops
from ...factories import zeros as _zeros
from ...tensor import Tensor

__all__ = ["nms", "batched_nms", "remove_small_boxes", "clip_boxes_to_image", "box_convert", "box_area",
           "box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou", "masks_to_boxes"]

_AXIS_ALIGNED = ("xyxy", "xywh", "cxcywh")
_ROTATED = ("cxcywhr", "xywhr", "xyxyxyxy")
_WIDE_INT = (np.int32, np.int64)


def _upcast(t):
    """float16/bfloat16 to float32 and narrow integers to int32 before products overflow or lose digits."""
    dt = t._data.dtype
    if t.is_floating_point():
        return t if dt in (np.float32, np.float64) else t.float()
    return t if dt in _WIDE_INT else t.int()


def _upcast_non_float(t):
    """Integer boxes become float32 (a loss is a real number); float16 stays as it is."""
    return t if t.is_floating_point() else t.float()


# -- formats --------------------------------------------------------------------------------------------------------

def _to_xyxy(boxes, fmt):
    a, b, c, d = boxes.unbind(-1)
    if fmt == "xywh":
        return _ops.stack([a, b, a + c, b + d], -1)
    half_w, half_h = c / 2, d / 2  # cxcywh
    return _ops.stack([a - half_w, b - half_h, a + half_w, b + half_h], -1)


def _from_xyxy(boxes, fmt):
    x1, y1, x2, y2 = boxes.unbind(-1)
    if fmt == "xywh":
        return _ops.stack([x1, y1, x2 - x1, y2 - y1], -1)
    return _ops.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], -1)  # cxcywh


def box_convert(boxes, in_fmt, out_fmt):
    """Boxes (..., 4) from ``in_fmt`` to ``out_fmt``, each one of ``"xyxy"`` (corners), ``"xywh"`` (top-left
    corner and size) and ``"cxcywh"`` (centre and size); or rotated boxes between ``"cxcywhr"``/``"xywhr"``
    (..., 5; the angle in degrees) and ``"xyxyxyxy"`` (..., 8; the four corners)."""
    for fmt in (in_fmt, out_fmt):
        if fmt not in _AXIS_ALIGNED + _ROTATED:
            raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    if (in_fmt in _ROTATED) != (out_fmt in _ROTATED):
        raise NotImplementedError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt "
                                  f"{out_fmt}")
    if in_fmt in _ROTATED:
        corners = boxes if in_fmt == "xyxyxyxy" else _rotated_corners(boxes, in_fmt)
        return corners if out_fmt == "xyxyxyxy" else _rotated_from_corners(corners, out_fmt)
    xyxy = boxes if in_fmt == "xyxy" else _to_xyxy(boxes, in_fmt)
    return xyxy if out_fmt == "xyxy" else _from_xyxy(xyxy, out_fmt)


def _rotated_corners(boxes, fmt):
    """Rotated boxes (..., 5), the angle in degrees counter-clockwise on the screen (y pointing down), to
    their four corners (..., 8): the first corner, then along the width, then the opposite one."""
    a, b, w, h, angle = boxes.unbind(-1)
    rad = angle * (math.pi / 180)
    cos, sin = _ops.cos(rad), _ops.sin(rad)
    wx, wy = w * cos, -w * sin  # the width edge
    hx, hy = h * sin, h * cos  # the height edge
    if fmt == "cxcywhr":  # from the centre back to the first corner
        a, b = a - (wx + hx) / 2, b - (wy + hy) / 2
    return _ops.stack([a, b, a + wx, b + wy, a + wx + hx, b + wy + hy, a + hx, b + hy], -1)


def _rotated_from_corners(corners, fmt):
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    w = ((x2 - x1) ** 2 + (y2 - y1) ** 2).sqrt()
    h = ((x4 - x1) ** 2 + (y4 - y1) ** 2).sqrt()
    angle = _ops.atan2(y1 - y2, x2 - x1) * (180 / math.pi)
    if fmt == "cxcywhr":
        return _ops.stack([(x1 + x3) / 2, (y1 + y3) / 2, w, h, angle], -1)
    return _ops.stack([x1, y1, w, h, angle], -1)


def _check_iou_fmt(fmt):
    if fmt not in _AXIS_ALIGNED:
        if fmt in _ROTATED:
            raise NotImplementedError(f"box_iou of rotated boxes (fmt={fmt!r}) is not available in npgrad.vision")
        raise ValueError(f"Unsupported format '{fmt}'. Supported axis-aligned formats: {_AXIS_ALIGNED}. "
                         f"Supported rotated formats: {_ROTATED}.")


def box_area(boxes, fmt="xyxy"):
    """The area of each box (N, 4); half-precision and narrow-integer boxes are widened first."""
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported Bounding Box area for given format {fmt}")
    boxes = _upcast(boxes)
    if fmt == "xyxy":
        return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return boxes[:, 2] * boxes[:, 3]  # both other formats carry width and height


def _pairwise_inter_union(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    top_left = _ops.maximum(boxes1[:, None, :2], boxes2[None, :, :2])
    bottom_right = _ops.minimum(boxes1[:, None, 2:], boxes2[None, :, 2:])
    wh = _upcast(bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, area1[:, None] + area2[None, :] - inter


def box_iou(boxes1, boxes2, fmt="xyxy"):
    """Intersection over union of every pair: (N, M) for boxes1 (N, 4) and boxes2 (M, 4)."""
    _check_iou_fmt(fmt)
    if fmt != "xyxy":
        boxes1, boxes2 = box_convert(boxes1, fmt, "xyxy"), box_convert(boxes2, fmt, "xyxy")
    inter, union = _pairwise_inter_union(boxes1, boxes2)
    return inter / union


def _enclosing(boxes1, boxes2):
    """Top-left and bottom-right corners of the smallest box holding each pair, each (N, M, 2)."""
    lo = _ops.minimum(boxes1[:, None, :2], boxes2[None, :, :2])
    hi = _ops.maximum(boxes1[:, None, 2:], boxes2[None, :, 2:])
    return lo, hi


def generalized_box_iou(boxes1, boxes2):
    """IoU minus the share of the enclosing box that neither box covers (Rezatofighi et al., 2019); in [-1, 1]."""
    inter, union = _pairwise_inter_union(boxes1, boxes2)
    iou = inter / union
    lo, hi = _enclosing(boxes1, boxes2)
    wh = _upcast(hi - lo).clamp(min=0)
    hull = wh[..., 0] * wh[..., 1]
    return iou - (hull - union) / hull


def _diou_and_iou(boxes1, boxes2, eps):
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    inter, union = _pairwise_inter_union(boxes1, boxes2)
    iou = inter / union
    lo, hi = _enclosing(boxes1, boxes2)
    diag = ((hi - lo) ** 2).sum(-1) + eps
    c1 = (boxes1[:, :2] + boxes1[:, 2:]) / 2
    c2 = (boxes2[:, :2] + boxes2[:, 2:]) / 2
    centre_dist = ((c1[:, None, :] - c2[None, :, :]) ** 2).sum(-1)
    return iou - centre_dist / diag, iou


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """IoU minus the squared distance of the centres over the squared diagonal of the enclosing box
    (Zheng et al., 2019)."""
    return _diou_and_iou(boxes1, boxes2, eps)[0]


def _aspect_term(w1, h1, w2, h2):
    """CIoU's aspect-ratio consistency v = (4/pi^2) (atan(w1/h1) - atan(w2/h2))^2."""
    return (4 / math.pi ** 2) * (_ops.atan(w1 / h1) - _ops.atan(w2 / h2)) ** 2


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """Distance IoU minus an aspect-ratio penalty alpha * v, alpha = v / (1 - IoU + v) held constant."""
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    diou, iou = _diou_and_iou(boxes1, boxes2, eps)
    v = _aspect_term((boxes1[:, 2] - boxes1[:, 0])[:, None], (boxes1[:, 3] - boxes1[:, 1])[:, None],
                     (boxes2[:, 2] - boxes2[:, 0])[None, :], (boxes2[:, 3] - boxes2[:, 1])[None, :])
    alpha = (v / (1 - iou + v + eps)).detach()  # the trade-off weight, not a path for the gradient
    return diou - alpha * v


# -- clipping and filtering -----------------------------------------------------------------------------------------

def clip_boxes_to_image(boxes, size):
    """Boxes (..., 4) in xyxy clamped into an image of ``size`` = (height, width)."""
    height, width = size
    x = boxes[..., 0::2].clamp(min=0, max=width)
    y = boxes[..., 1::2].clamp(min=0, max=height)
    return _ops.stack([x, y], boxes.dim()).reshape(boxes.shape)


def remove_small_boxes(boxes, min_size):
    """Indices (int64) of the boxes whose width and height are both at least ``min_size``."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    return _ops.where((w >= min_size) & (h >= min_size))[0]


def masks_to_boxes(masks):
    """The xyxy box (float32) around the nonzero pixels of each mask (N, H, W); an empty mask gives zeros."""
    if masks.numel() == 0:
        return _zeros((0, 4), device=masks.device)
    m = np.asarray(masks._data) != 0
    n = m.shape[0]
    rows, cols = m.any(axis=2), m.any(axis=1)  # (N, H) and (N, W): which rows/columns hold a pixel
    out = np.zeros((n, 4), np.float32)
    for axis_any, (lo, hi) in ((cols, (0, 2)), (rows, (1, 3))):
        present = axis_any.any(axis=1)
        length = axis_any.shape[1]
        first = np.argmax(axis_any, axis=1)
        last = length - 1 - np.argmax(axis_any[:, ::-1], axis=1)
        out[:, lo] = np.where(present, first, 0)
        out[:, hi] = np.where(present, last, 0)
    return Tensor._wrap(out)


# -- non-maximum suppression ----------------------------------------------------------------------------------------

def _check_nms_args(boxes, scores):
    if boxes.dim() != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {boxes.dim()}D")
    if boxes.shape[1] != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {boxes.shape[1]}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if boxes.shape[0] != scores.shape[0]:
        raise RuntimeError(f"boxes and scores should have same number of elements in dimension 0, got "
                           f"{boxes.shape[0]} and {scores.shape[0]}")
    if boxes.dtype != scores.dtype:
        raise RuntimeError("dets should have the same type as scores")
    if not boxes.is_floating_point():
        raise RuntimeError(f"\"nms_kernel\" not implemented for '{_type_label(boxes)}'")


def _type_label(t):
    return {np.int8: "Char", np.uint8: "Byte", np.int16: "Short", np.int32: "Int", np.int64: "Long",
            np.bool_: "Bool"}.get(t._data.dtype.type, str(t._data.dtype))


_NMS_BLOCK = 128


def _nms_np(boxes, scores, iou_threshold):
    """Greedy NMS on arrays: the highest-scoring box left is kept and every remaining box whose IoU with it
    exceeds the threshold is dropped. Indices come back in decreasing score (ties: lower index first).

    The boxes are visited in score order, a block at a time: the IoUs of the block's surviving boxes with
    every surviving box from the block on are computed at once, then the block is walked in order, each
    kept box striking out what it overlaps (a NaN IoU, from empty boxes, strikes out nothing)."""
    order = np.argsort(-scores, kind="stable")
    b = boxes[order]
    x1, y1, x2, y2 = (b[:, i] for i in range(4))
    areas = (x2 - x1) * (y2 - y1)
    n = len(order)
    removed = np.zeros(n, bool)
    keep = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for s in range(0, n, _NMS_BLOCK):
            rows = s + np.flatnonzero(~removed[s:s + _NMS_BLOCK])
            if rows.size == 0:
                continue
            cols = s + np.flatnonzero(~removed[s:])
            w = np.minimum(x2[rows, None], x2[cols]) - np.maximum(x1[rows, None], x1[cols])
            h = np.minimum(y2[rows, None], y2[cols]) - np.maximum(y1[rows, None], y1[cols])
            inter = np.maximum(w, 0) * np.maximum(h, 0)
            hit = inter / (areas[rows, None] + areas[cols] - inter) > iou_threshold
            for r, i in enumerate(rows):
                if removed[i]:
                    continue
                keep.append(i)
                removed[cols[hit[r]]] = True  # marks earlier, already decided rows too: harmless
    return order[np.asarray(keep, np.int64)]


def nms(boxes, scores, iou_threshold):
    """Indices (int64) of the boxes (N, 4, xyxy) that survive non-maximum suppression at ``iou_threshold``
    (IoU strictly greater suppresses), sorted by decreasing score."""
    _check_nms_args(boxes, scores)
    return Tensor._wrap(_nms_np(np.asarray(boxes._data), np.asarray(scores._data), float(iou_threshold)))


def batched_nms(boxes, scores, idxs, iou_threshold):
    """NMS run separately within each category ``idxs`` (N,): boxes of different categories never suppress
    one another. The kept indices (int64) come back sorted by decreasing score."""
    _check_nms_args(boxes, scores)
    b, s = np.asarray(boxes._data), np.asarray(scores._data)
    cats = np.asarray(idxs._data if isinstance(idxs, Tensor) else idxs)
    if b.shape[0] == 0:
        return Tensor._wrap(np.zeros(0, np.int64))
    kept = []
    for c in np.unique(cats):
        members = np.flatnonzero(cats == c)
        kept.append(members[_nms_np(b[members], s[members], float(iou_threshold))])
    kept = np.concatenate(kept)
    return Tensor._wrap(kept[np.argsort(-s[kept], kind="stable")])
