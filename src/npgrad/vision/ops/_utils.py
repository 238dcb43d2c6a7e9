"""What the RoI operators share: the two ways boxes arrive, checked and turned into one (K, 5) array."""
import numpy as np

from ...tensor import Tensor


def _pair(v):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError(f"output_size must be an int or a pair of ints, got {v!r}")
        return int(v[0]), int(v[1])
    return int(v), int(v)


def check_roi_boxes_shape(boxes):
    if isinstance(boxes, (list, tuple)):
        for b in boxes:
            if b.dim() != 2 or b.shape[1] != 4:
                raise AssertionError("The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]")
    elif isinstance(boxes, Tensor):
        if boxes.dim() != 2 or boxes.shape[1] != 5:
            raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def roi_array(boxes):
    """(K, 5) float64 rows (batch index, x1, y1, x2, y2) from a Tensor[K, 5] or a list of per-image
    Tensor[L, 4]; the RoI operators are not differentiable in the boxes, so arrays are all they need."""
    check_roi_boxes_shape(boxes)
    if isinstance(boxes, Tensor):
        return np.asarray(boxes._data, np.float64)
    parts = [np.concatenate([np.full((b.shape[0], 1), i, np.float64), np.asarray(b._data, np.float64)], 1)
             for i, b in enumerate(boxes)]
    return np.concatenate(parts, 0) if parts else np.zeros((0, 5))


def check_input(name, input, rois):
    if input.dim() != 4:
        raise ValueError(f"{name} expects input of shape (N, C, H, W), got {tuple(input.shape)}")
    if not input.is_floating_point():
        raise RuntimeError(f"\"{name}_forward_kernel\" not implemented for '{input.dtype}'")
    if rois.size:
        idx = rois[:, 0]
        if not np.all((idx >= 0) & (idx < input.shape[0]) & (idx == np.floor(idx))):
            raise IndexError(f"{name}: box batch indices must be integers in [0, {input.shape[0]}), got "
                             f"{sorted(set(idx.tolist()))[:5]}")


def compute_dtype(dt):
    """float16/bfloat16 inputs are computed in float32 and rounded back, as half kernels accumulate wider."""
    return dt if dt in (np.float32, np.float64) else np.dtype(np.float32)
