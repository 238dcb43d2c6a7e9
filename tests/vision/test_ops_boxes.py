"""npgrad.vision.ops' box functions, NMS and detection losses.

torchvision's Python box code and losses run here, so they are the oracle (values, dtypes, gradients and
error messages) when installed; its compiled NMS does not, so NMS is checked against a direct NumPy
transcription of its definition, and every function also against hand-computable cases and identities that
need no torch.
"""
import itertools

import numpy as np
import pytest

import npgrad
from npgrad.autograd import gradcheck
from npgrad.vision import ops
from tv_oracle import HAS_TV, torch, tv, needs_tv



def random_boxes(rng, n, scale=10.0, dtype=np.float32):
    xy = rng.uniform(0, scale, (n, 2))
    wh = rng.uniform(0.5, scale / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(dtype)


def np_iou(a, b):
    """IoU of every pair, from the definition (loops)."""
    out = np.zeros((len(a), len(b)))
    for i, j in itertools.product(range(len(a)), range(len(b))):
        w = max(0.0, min(a[i, 2], b[j, 2]) - max(a[i, 0], b[j, 0]))
        h = max(0.0, min(a[i, 3], b[j, 3]) - max(a[i, 1], b[j, 1]))
        ar = lambda r: (r[2] - r[0]) * (r[3] - r[1])
        out[i, j] = w * h / (ar(a[i]) + ar(b[j]) - w * h)
    return out


def np_nms(boxes, scores, thr):
    """torchvision's documented NMS: visit boxes by decreasing score; keep one unless a kept box overlaps it
    with IoU > thr."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    keep = []
    for i in order:
        if all(np_iou(boxes[[i]], boxes[[k]])[0, 0] <= thr for k in keep):
            keep.append(i)
    return np.array(keep, np.int64)


def T(a, **kw):
    return npgrad.tensor(np.asarray(a), **kw)


# -- formats and areas ----------------------------------------------------------------------------------------------

def test_box_convert_hand_case_and_round_trips():
    xyxy = np.array([[1.0, 2.0, 4.0, 6.0], [0.0, 0.0, 2.0, 2.0]], np.float32)
    np.testing.assert_allclose(ops.box_convert(T(xyxy), "xyxy", "xywh").numpy(), [[1, 2, 3, 4], [0, 0, 2, 2]])
    np.testing.assert_allclose(ops.box_convert(T(xyxy), "xyxy", "cxcywh").numpy(), [[2.5, 4, 3, 4], [1, 1, 2, 2]])
    for a, b in itertools.permutations(("xyxy", "xywh", "cxcywh"), 2):
        there = ops.box_convert(T(xyxy), "xyxy", a)
        np.testing.assert_allclose(ops.box_convert(ops.box_convert(there, a, b), b, "xyxy").numpy(), xyxy,
                                   atol=1e-6)
    same = T(xyxy)
    out = ops.box_convert(same, "xywh", "xywh")
    assert out is not same and np.array_equal(out.numpy(), xyxy)


ROTATED = ("cxcywhr", "xywhr", "xyxyxyxy")


def rotated_boxes(rng, n):
    return np.concatenate([rng.uniform(0, 20, (n, 2)), rng.uniform(1, 6, (n, 2)), rng.uniform(-170, 170, (n, 1))], 1)


def test_rotated_box_convert_by_hand_and_round_trips():
    # a 4x2 box rotated by 90 degrees (counter-clockwise on the screen): its width edge points up
    corners = ops.box_convert(T(np.array([[1.0, 5.0, 4.0, 2.0, 90.0]])), "xywhr", "xyxyxyxy").numpy()
    np.testing.assert_allclose(corners, [[1, 5, 1, 1, 3, 1, 3, 5]], atol=1e-12)
    centre = ops.box_convert(T(np.array([[1.0, 5.0, 4.0, 2.0, 90.0]])), "xywhr", "cxcywhr").numpy()
    np.testing.assert_allclose(centre, [[2, 3, 4, 2, 90]], atol=1e-12)
    boxes = rotated_boxes(np.random.default_rng(3), 6)
    for a, b in itertools.permutations(ROTATED[:2], 2):
        back = ops.box_convert(ops.box_convert(T(boxes), a, b), b, a).numpy()
        np.testing.assert_allclose(back, boxes, atol=1e-9)


@needs_tv
@pytest.mark.parametrize("in_fmt, out_fmt", list(itertools.permutations(ROTATED, 2)))
def test_rotated_box_convert_matches_torchvision(in_fmt, out_fmt):
    boxes = rotated_boxes(np.random.default_rng(4), 8)
    if in_fmt == "xyxyxyxy":
        boxes = ops.box_convert(T(boxes), "cxcywhr", "xyxyxyxy").numpy()
    want = tv.ops.box_convert(torch.tensor(boxes), in_fmt, out_fmt).numpy()
    np.testing.assert_allclose(ops.box_convert(T(boxes), in_fmt, out_fmt).numpy(), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("fmt", ["bad", "xyxyxyxy"])
def test_box_convert_errors(fmt):
    err = ValueError if fmt == "bad" else NotImplementedError
    with pytest.raises(err, match="Unsupported Bounding Box Conversions for given in_fmt"):
        ops.box_convert(T(np.zeros((1, 4))), fmt, "xyxy")
    with pytest.raises(ValueError, match="Unsupported Bounding Box area for given format"):
        ops.box_area(T(np.zeros((1, 4))), fmt=fmt)


@needs_tv
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64", "uint8"])
def test_box_functions_match_torchvision(dtype):
    rng = np.random.default_rng(0)
    a = (random_boxes(rng, 5, 20) if "float" in dtype else np.round(random_boxes(rng, 5, 20))).astype(dtype)
    b = (random_boxes(rng, 4, 20) if "float" in dtype else np.round(random_boxes(rng, 4, 20))).astype(dtype)
    cases = [lambda L, x, y: L.ops.box_area(x), lambda L, x, y: L.ops.box_iou(x, y),
             lambda L, x, y: L.ops.box_convert(x, "xyxy", "cxcywh"), lambda L, x, y: L.ops.box_convert(x, "xywh", "xyxy"),
             lambda L, x, y: L.ops.box_area(x, fmt="cxcywh"), lambda L, x, y: L.ops.box_iou(x, y, fmt="xywh"),
             lambda L, x, y: L.ops.clip_boxes_to_image(x, (7, 9)), lambda L, x, y: L.ops.remove_small_boxes(x, 4)]
    if dtype != "uint8":  # torchvision's GIoU family subtracts uint8 corners (wrapping); not a use to copy
        cases += [lambda L, x, y: L.ops.generalized_box_iou(x, y), lambda L, x, y: L.ops.distance_box_iou(x, y),
                  lambda L, x, y: L.ops.complete_box_iou(x, y)]
    for case in cases:
        want = case(tv, torch.from_numpy(a), torch.from_numpy(b))
        got = case(npgrad.vision, T(a), T(b))
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        tol = 2e-3 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=tol,
                                   atol=tol)


def test_iou_family_hand_cases():
    a = T(np.array([[0.0, 0.0, 2.0, 2.0]]))
    b = T(np.array([[1.0, 1.0, 3.0, 3.0], [4.0, 0.0, 6.0, 2.0], [0.0, 0.0, 2.0, 2.0]]))
    np.testing.assert_allclose(ops.box_iou(a, b).numpy(), [[1 / 7, 0, 1]])
    # enclosing boxes: 3x3 (union 7), 6x2 (union 8), itself
    np.testing.assert_allclose(ops.generalized_box_iou(a, b).numpy(), [[1 / 7 - 2 / 9, -4 / 12, 1]], rtol=1e-12)
    # centre distances^2: 2, 16, 0; enclosing diagonals^2: 18, 40, 8
    np.testing.assert_allclose(ops.distance_box_iou(a, b).numpy(), [[1 / 7 - 2 / 18, -16 / 40, 1]], rtol=1e-6)
    # all boxes are squares: CIoU's aspect term vanishes
    np.testing.assert_allclose(ops.complete_box_iou(a, b).numpy(), ops.distance_box_iou(a, b).numpy())
    rng = np.random.default_rng(1)
    x, y = random_boxes(rng, 6, dtype=np.float64), random_boxes(rng, 5, dtype=np.float64)
    np.testing.assert_allclose(ops.box_iou(T(x), T(y)).numpy(), np_iou(x, y), rtol=1e-12)


def test_clip_boxes_keeps_leading_dims_and_corner_order():
    boxes = T(np.array([[[-1.0, 2.0, 40.0, 60.0]], [[3.0, -5.0, 4.0, 5.0]]], np.float32))
    out = ops.clip_boxes_to_image(boxes, (10, 20))
    assert out.shape == (2, 1, 4)
    np.testing.assert_array_equal(out.numpy(), [[[0, 2, 20, 10]], [[3, 0, 4, 5]]])


def test_remove_small_boxes_and_masks_to_boxes():
    boxes = T(np.array([[0, 0, 3, 3], [0, 0, 1, 5], [2, 2, 4.5, 4.5]], np.float32))
    keep = ops.remove_small_boxes(boxes, 2.5)
    assert keep.dtype == npgrad.int64 and keep.tolist() == [0, 2]
    masks = np.zeros((3, 5, 6), bool)
    masks[0, 1:3, 2:5] = True
    masks[1, 4, 0] = True
    got = ops.masks_to_boxes(T(masks))
    assert got.dtype == npgrad.float32
    np.testing.assert_array_equal(got.numpy(), [[2, 1, 4, 2], [0, 4, 0, 4], [0, 0, 0, 0]])
    assert ops.masks_to_boxes(T(np.zeros((0, 3, 3)))).shape == (0, 4)
    if HAS_TV:
        for m in (masks, masks.astype(np.float64)):
            want = tv.ops.masks_to_boxes(torch.from_numpy(m)).numpy()
            np.testing.assert_array_equal(ops.masks_to_boxes(T(m)).numpy(), want)


# -- NMS ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("thr", [0.0, 0.3, 0.7, 1.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nms_matches_definition(thr, dtype):
    rng = np.random.default_rng(int(thr * 10))
    boxes = random_boxes(rng, 40, 12, dtype)
    scores = rng.permutation(40).astype(dtype)  # distinct scores: one right order
    keep = ops.nms(T(boxes), T(scores), thr)
    assert keep.dtype == npgrad.int64
    np.testing.assert_array_equal(keep.numpy(), np_nms(boxes, scores, thr))


def test_nms_hand_case_and_threshold_is_strict():
    boxes = T(np.array([[0, 0, 2, 2], [0, 0, 2, 1], [5, 5, 6, 6], [0, 0, 2, 2.0]], np.float32))
    scores = T(np.array([0.9, 0.8, 0.1, 0.95], np.float32))
    # box 1 overlaps box 3 (kept first) with IoU 0.5 exactly: suppressed only above 0.5
    assert ops.nms(boxes, scores, 0.5).tolist() == [3, 1, 2]
    assert ops.nms(boxes, scores, 0.49).tolist() == [3, 2]
    assert ops.nms(T(np.zeros((0, 4), np.float32)), T(np.zeros(0, np.float32)), 0.5).dtype == npgrad.int64


def test_batched_nms_per_category():
    rng = np.random.default_rng(3)
    boxes = random_boxes(rng, 60, 10)
    scores = rng.permutation(60).astype(np.float32)
    cats = rng.integers(0, 4, 60)
    keep = ops.batched_nms(T(boxes), T(scores), T(cats), 0.4).numpy()
    want = np.concatenate([np.flatnonzero(cats == c)[np_nms(boxes[cats == c], scores[cats == c], 0.4)]
                           for c in range(4)])
    want = want[np.argsort(-scores[want])]
    np.testing.assert_array_equal(keep, want)
    # one category: plain NMS
    np.testing.assert_array_equal(ops.batched_nms(T(boxes), T(scores), T(np.zeros(60, np.int64)), 0.4).numpy(),
                                  ops.nms(T(boxes), T(scores), 0.4).numpy())
    empty = ops.batched_nms(T(np.zeros((0, 4), np.float32)), T(np.zeros(0, np.float32)), T(np.zeros(0)), 0.5)
    assert empty.shape == (0,) and empty.dtype == npgrad.int64


@pytest.mark.parametrize("boxes, scores, msg", [
    (np.zeros(4), np.zeros(1), "boxes should be a 2d tensor, got 1D"),
    (np.zeros((2, 5)), np.zeros(2), "boxes should have 4 elements in dimension 1, got 5"),
    (np.zeros((2, 4)), np.zeros((2, 1)), "scores should be a 1d tensor, got 2D"),
    (np.zeros((2, 4)), np.zeros(3), "boxes and scores should have same number of elements in dimension 0, got 2 and 3"),
    (np.zeros((2, 4), np.float32), np.zeros(2), "dets should have the same type as scores"),
    (np.zeros((2, 4), np.int64), np.zeros(2, np.int64), "not implemented for 'Long'"),
])
def test_nms_errors(boxes, scores, msg):
    with pytest.raises(RuntimeError, match=msg):
        ops.nms(T(boxes), T(scores), 0.5)


# -- losses ---------------------------------------------------------------------------------------------------------

LOSSES = ["generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"]


def loss_inputs(seed=0, n=6):
    rng = np.random.default_rng(seed)
    return random_boxes(rng, n, dtype=np.float64), random_boxes(rng, n, dtype=np.float64)


@needs_tv
@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_box_losses_match_torchvision_with_gradients(name, reduction):
    a, b = loss_inputs()
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    na, nb = T(a, requires_grad=True), T(b, requires_grad=True)
    want = getattr(tv.ops, name)(ta, tb, reduction=reduction)
    got = getattr(ops, name)(na, nb, reduction=reduction)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(5).standard_normal(want.shape)
    want.backward(torch.tensor(g))
    got.backward(T(g))
    np.testing.assert_allclose(na.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(nb.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", LOSSES)
def test_box_losses_values_and_empty(name):
    fn = getattr(ops, name)
    same = T(np.array([[0.0, 0.0, 2.0, 3.0]]))
    assert abs(fn(same, same).item()) < 1e-6  # identical boxes: no loss
    apart = fn(T(np.array([[0.0, 0.0, 1.0, 1.0]])), T(np.array([[2.0, 0.0, 3.0, 1.0]]))).item()
    want = {"generalized_box_iou_loss": 1 + 1 / 3, "distance_box_iou_loss": 1 + 4 / 10,
            "complete_box_iou_loss": 1 + 4 / 10}[name]
    assert abs(apart - want) < 1e-6
    empty = T(np.zeros((0, 4), np.float32), requires_grad=True)
    out = fn(empty, empty, reduction="mean")
    assert out.item() == 0 and out.requires_grad
    ints = T(np.array([[0, 0, 2, 2]], np.int64))
    assert fn(ints, ints).dtype == npgrad.float32
    with pytest.raises(ValueError, match="Invalid Value for arg 'reduction': 'bad"):
        fn(same, same, reduction="bad")


@pytest.mark.parametrize("name", LOSSES[:2])
def test_box_losses_gradcheck(name):
    a, b = loss_inputs(2, 4)
    fn = getattr(ops, name)
    assert gradcheck(lambda x, y: fn(x, y, reduction="sum"), (T(a, requires_grad=True), T(b, requires_grad=True)))


def test_complete_box_iou_loss_gradient_holds_alpha_constant():
    a, b = loss_inputs(2, 4)

    def aspect(x):  # CIoU's v for the matched pairs, from its definition
        w1, h1 = x[:, 2] - x[:, 0], x[:, 3] - x[:, 1]
        return (4 / np.pi ** 2) * (npgrad.atan(T(b[:, 2] - b[:, 0]) / T(b[:, 3] - b[:, 1])) - npgrad.atan(w1 / h1)) ** 2

    x0 = T(a)
    iou = np.diag(ops.box_iou(x0, T(b)).numpy())
    v0 = aspect(x0).numpy()
    alpha = T(v0 / (1 - iou + v0))  # constant: the weight the loss's gradient does not flow through

    def surrogate(x):
        return (ops.distance_box_iou_loss(x, T(b)) + alpha * aspect(x)).sum()

    assert gradcheck(surrogate, (T(a, requires_grad=True),))
    x1, x2 = T(a, requires_grad=True), T(a, requires_grad=True)
    ops.complete_box_iou_loss(x1, T(b), reduction="sum").backward()
    surrogate(x2).backward()
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-6, atol=1e-9)


def np_focal(x, t, alpha, gamma):
    p = 1 / (1 + np.exp(-x))
    ce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    p_t = p * t + (1 - p) * (1 - t)
    loss = ce * (1 - p_t) ** gamma
    return loss * (alpha * t + (1 - alpha) * (1 - t)) if alpha >= 0 else loss


@pytest.mark.parametrize("alpha, gamma", [(0.25, 2), (-1, 2), (0.5, 0)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_sigmoid_focal_loss(alpha, gamma, reduction):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 5))
    t = (rng.random((4, 5)) > 0.6).astype(np.float64)
    want = np_focal(x, t, alpha, gamma)
    want = {"none": want, "mean": want.mean(), "sum": want.sum()}[reduction]
    nx = T(x, requires_grad=True)
    got = ops.sigmoid_focal_loss(nx, T(t), alpha=alpha, gamma=gamma, reduction=reduction)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-10)
    assert gradcheck(lambda v: ops.sigmoid_focal_loss(v, T(t), alpha, gamma, reduction), (nx,))
    if HAS_TV:
        tx = torch.tensor(x, requires_grad=True)
        tv.ops.sigmoid_focal_loss(tx, torch.tensor(t), alpha, gamma, reduction).sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(nx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_sigmoid_focal_loss_bad_reduction():
    with pytest.raises(ValueError, match="Supported reduction modes: 'none', 'mean', 'sum'"):
        ops.sigmoid_focal_loss(T(np.zeros(2)), T(np.zeros(2)), reduction="avg")
