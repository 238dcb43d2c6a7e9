"""Op table: the losses of nn/_functional/loss_margin.py, loss_linear.py and ctc.py: multi_margin_loss,
multilabel_margin_loss, triplet_margin_with_distance_loss, linear_cross_entropy and ctc_loss.

Family "loss": tests/nn/test_losses.py runs every row against PyTorch (float32 and float64, values and the
gradients of the inputs that need one) and finite differences; the second-order rows run in
tests/autograd/test_double_backward.py (only where PyTorch has a double backward), the error rows in
tests/nn/test_loss_extra_modules.py.
"""
import numpy as np

from oracle import In
from _record import FD, PARITY, OpInfo, Sample, second

_ROW = frozenset({PARITY, FD})


def F_(lib):
    return lib.nn.functional


R = np.random.default_rng(13)
X = R.standard_normal((4, 5))
T = np.array([1, 0, 4, 2])
W = R.uniform(0.5, 2.0, 5)
ML = np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [-1, 0, 0, 0, 0], [2, 2, 4, 0, 1]])  # -1 ends a row's list
A, P_, N_ = R.standard_normal((3, 4, 6))
LIN_W = R.standard_normal((5, 3))
LIN_W3 = R.standard_normal((5, 2, 3))   # K-dimensional: (C, d1, in_features)
LIN_B = R.standard_normal(5)
LIN_X = R.standard_normal((4, 3))
PROBS = R.uniform(0, 1, (4, 5))
PROBS /= PROBS.sum(1, keepdims=True)


def _fixed(arrays, grads):
    grads = grads or [np.asarray(a).dtype.kind == "f" for a in arrays]
    return [In(np.shape(a), values=lambda rng, a=np.asarray(a): a.copy(), grad=g) for a, g in zip(arrays, grads)]


def _row(name, fn, arrays, grads=None, fd_tol=1e-5):
    return Sample(name, fn, _fixed(arrays, grads), checks=_ROW, fd_tol=fd_tol)


def _l1_distance(a, b):
    return (a - b).abs().sum(-1)


_MULTI_MARGIN = [_row(f"multi_margin_{red}_p{p}", lambda l, x, t, p=p, r=red: F_(l).multi_margin_loss(
    x, t, p=p, margin=0.8, reduction=r), [X, T], [True, False]) for red in ("none", "mean", "sum") for p in (1, 2)]
_MULTI_MARGIN += [
    _row("multi_margin_weight", lambda l, x, t, w: F_(l).multi_margin_loss(x, t, weight=w, reduction="none"),
         [X, T, W], [True, False, False]),
    _row("multi_margin_weight_p2_sum", lambda l, x, t, w: F_(l).multi_margin_loss(x, t, p=2, weight=w,
                                                                                    reduction="sum"),
         [X, T, W], [True, False, False]),
    _row("multi_margin_unbatched", lambda l, x, t: F_(l).multi_margin_loss(x, t, reduction="none"),
         [X[0], np.array(3)], [True, False]),
    _row("multi_margin_unbatched_1d_target", lambda l, x, t: F_(l).multi_margin_loss(x, t, reduction="none"),
         [X[1], np.array([0])], [True, False]),
]

_MULTILABEL = [_row(f"multilabel_margin_{red}", lambda l, x, t, r=red: F_(l).multilabel_margin_loss(x, t, reduction=r),
                    [X, ML], [True, False]) for red in ("none", "mean", "sum")]
_MULTILABEL += [_row("multilabel_margin_unbatched", lambda l, x, t: F_(l).multilabel_margin_loss(x, t, reduction="none"),
                     [X[1], ML[1]], [True, False])]

_TRIPLET = [_row(f"triplet_distance_{red}", lambda l, a, p, n, r=red: F_(l).triplet_margin_with_distance_loss(
    a, p, n, reduction=r), [A, P_, N_]) for red in ("none", "mean", "sum")]
_TRIPLET += [
    _row("triplet_distance_l1_swap", lambda l, a, p, n: F_(l).triplet_margin_with_distance_loss(
        a, p, n, distance_function=_l1_distance, margin=2.0, swap=True, reduction="none"), [A, P_, N_]),
    _row("triplet_distance_cosine_swap", lambda l, a, p, n: F_(l).triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: 1 - F_(l).cosine_similarity(x, y), swap=True), [A, P_, N_]),
    _row("triplet_distance_unbatched", lambda l, a, p, n: F_(l).triplet_margin_with_distance_loss(
        a, p, n, margin=3.0, reduction="none"), [A[0], P_[0], N_[0]]),
]

_LINEAR_CE = [
    _row(f"linear_ce_{red}", lambda l, x, w, t, r=red: F_(l).linear_cross_entropy(x, w, t, reduction=r),
         [LIN_X, LIN_W, T], [True, True, False]) for red in ("none", "mean", "sum")]
_LINEAR_CE += [
    _row("linear_ce_bias_weight_smoothing", lambda l, x, w, t, b, cw: F_(l).linear_cross_entropy(
        x, w, t, linear_bias=b, weight=cw, label_smoothing=0.2), [LIN_X, LIN_W, T, LIN_B, W],
         [True, True, False, True, False]),
    _row("linear_ce_ignore_index", lambda l, x, w, t: F_(l).linear_cross_entropy(x, w, t, ignore_index=2),
         [LIN_X, LIN_W, T], [True, True, False]),
    _row("linear_ce_kdim", lambda l, x, w, t, b: F_(l).linear_cross_entropy(x, w, t, linear_bias=b, reduction="none"),
         [LIN_X, LIN_W3, np.array([[0, 4], [1, 1], [3, 2], [4, 0]]), LIN_B[:, None] * np.ones(2)],
         [True, True, False, True]),
    _row("linear_ce_probs", lambda l, x, w, t: F_(l).linear_cross_entropy(x, w, t, label_smoothing=0.1),
         [LIN_X, LIN_W, PROBS], [True, True, True]),
    _row("linear_ce_unbatched", lambda l, x, w, t: F_(l).linear_cross_entropy(x, w, t), [LIN_X[0], LIN_W, np.array(3)],
         [True, True, False]),
]

# ctc_loss: (T, N, C) = (7, 3, 5); targets padded (N, S) or concatenated; sample 2 of CTC_TG_IMPOSSIBLE cannot
# be aligned in its 2 steps (infinite loss). The finite-difference rows take logits through log_softmax, since
# PyTorch's gradient w.r.t. log_probs (which the "direct" parity rows compare) is the one through a log_softmax.
CTC_X = R.standard_normal((7, 3, 5))
CTC_TG = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 1]])   # (a 0 past a row's length is padding)
CTC_IL = np.array([7, 6, 4])
CTC_TL = np.array([3, 2, 2])
CTC_TG_IMPOSSIBLE = np.array([[1, 2, 2], [3, 4, 1], [2, 2, 3]])
CTC_IL_IMPOSSIBLE = np.array([7, 2, 5])
CTC_CONCAT = np.array([1, 2, 2, 3, 1, 4, 4])
_LOG_PROBS_ONLY = frozenset({PARITY})


def _ctc(**kw):
    return lambda l, x, t, il, tl: F_(l).ctc_loss(x.log_softmax(-1), t, il, tl, **kw)


_CTC = [_row(f"ctc_{red}", _ctc(reduction=red), [CTC_X, CTC_TG, CTC_IL, CTC_TL]) for red in ("none", "mean", "sum")]
_CTC += [
    _row("ctc_blank_last", lambda l, x, t, il, tl: F_(l).ctc_loss(x.log_softmax(-1), t - 1, il, tl, blank=4,
                                                                  reduction="none"),
         [CTC_X, CTC_TG, CTC_IL, CTC_TL]),
    _row("ctc_concatenated_tuple_lengths", lambda l, x, t: F_(l).ctc_loss(x.log_softmax(-1), t, (7, 6, 4), (3, 2, 2)),
         [CTC_X, CTC_CONCAT]),
    _row("ctc_zero_infinity_none", _ctc(reduction="none", zero_infinity=True),
         [CTC_X, CTC_TG_IMPOSSIBLE, CTC_IL_IMPOSSIBLE, CTC_TL]),
    _row("ctc_zero_infinity_mean", _ctc(zero_infinity=True), [CTC_X, CTC_TG_IMPOSSIBLE, CTC_IL_IMPOSSIBLE, CTC_TL]),
    _row("ctc_empty_target", _ctc(reduction="none"), [CTC_X, CTC_TG, CTC_IL, np.array([3, 0, 1])]),
    _row("ctc_unbatched", lambda l, x, t, il, tl: F_(l).ctc_loss(x[:, 0].log_softmax(-1), t[0], il[0], tl[0],
                                                                 reduction="none"),
         [CTC_X, CTC_TG, CTC_IL, CTC_TL]),
    _row("ctc_int32_targets", lambda l, x, t, il, tl: F_(l).ctc_loss(x.log_softmax(-1), t.int(), il.int(), tl.int()),
         [CTC_X, CTC_TG, CTC_IL, CTC_TL]),
    Sample("ctc_log_probs_direct_none", lambda l, x, t, il, tl: F_(l).ctc_loss(x, t, il, tl, reduction="none"),
           _fixed([np.log(np.exp(CTC_X) / np.exp(CTC_X).sum(-1, keepdims=True)), CTC_TG, CTC_IL, CTC_TL], None),
           checks=_LOG_PROBS_ONLY),
    Sample("ctc_log_probs_direct_mean", lambda l, x, t, il, tl: F_(l).ctc_loss(x, t, il, tl),
           _fixed([np.log(np.exp(CTC_X) / np.exp(CTC_X).sum(-1, keepdims=True)), CTC_TG_IMPOSSIBLE, CTC_IL_IMPOSSIBLE,
                   CTC_TL], None), checks=_LOG_PROBS_ONLY),
    Sample("ctc_log_probs_direct_zero_infinity", lambda l, x, t, il, tl: F_(l).ctc_loss(x, t, il, tl, zero_infinity=True),
           _fixed([np.log(np.exp(CTC_X) / np.exp(CTC_X).sum(-1, keepdims=True)), CTC_TG_IMPOSSIBLE, CTC_IL_IMPOSSIBLE,
                   CTC_TL], None), checks=_LOG_PROBS_ONLY),
]

_SECOND = {
    "F.linear_cross_entropy": [second("linear_cross_entropy", lambda l, x, w: F_(l).linear_cross_entropy(
        x, w, l.tensor([0, 2, 1]), label_smoothing=0.1), [In((3, 4)), In((3, 4))])],
    "F.triplet_margin_with_distance_loss": [second("triplet_margin_with_distance_loss",
                                                   lambda l, a, p, n: F_(l).triplet_margin_with_distance_loss(a, p, n),
                                                   [In((3, 4)), In((3, 4)), In((3, 4))])],
}

# calls that must fail, with PyTorch's exception class and message
_RAISES = {
    "F.multi_margin_loss": [
        ("multi_margin_p3", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3), l.tensor([0, 1]), p=3), ValueError,
         "only p == 1 and p == 2 supported"),
        ("multi_margin_weight_2d", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3), l.tensor([0, 1]),
                                                                     weight=l.ones(3, 1)),
         ValueError, "weight must be one-dimensional"),
        ("multi_margin_weight_size", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3), l.tensor([0, 1]), weight=l.ones(2)),
         RuntimeError, "inconsistent weight size, expected 3 but got [2]"),
        ("multi_margin_target_range", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3), l.tensor([0, 3])),
         RuntimeError, "target out of range"),
        ("multi_margin_target_float", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3), l.tensor([0.0, 1.0])),
         RuntimeError, "expected scalar type Long but found Float"),
        ("multi_margin_3d", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3, 1), l.tensor([0, 1])), RuntimeError,
         "Expected non-empty vector or matrix with optional 0-dim batch size, but got: [2, 3, 1]"),
        ("multi_margin_target_size", lambda l: F_(l).multi_margin_loss(l.zeros(2, 3), l.tensor([0])), RuntimeError,
         "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch "
         "size). Expected target size [2], but got [1]. Input has shape [2, 3]."),
    ],
    "F.multilabel_margin_loss": [
        ("multilabel_margin_target_range", lambda l: F_(l).multilabel_margin_loss(l.zeros(1, 3), l.tensor([[0, -2, 1]])),
         RuntimeError, "argument #2 'target' is out of range"),
        ("multilabel_margin_target_size", lambda l: F_(l).multilabel_margin_loss(l.zeros(2, 3), l.tensor([[0, 1, 2]])),
         RuntimeError, "inconsistent target size: [1, 3] for input of size: [2, 3]"),
        ("multilabel_margin_target_int32", lambda l: F_(l).multilabel_margin_loss(
            l.zeros(1, 3), l.tensor([[0, 1, 2]], dtype=l.int32)), RuntimeError,
         "expected scalar type Long but found Int"),
    ],
    "F.triplet_margin_with_distance_loss": [
        ("triplet_distance_margin", lambda l: F_(l).triplet_margin_with_distance_loss(
            l.zeros(2), l.zeros(2), l.zeros(2), margin=0), ValueError, "margin must be greater than 0, got 0"),
        ("triplet_distance_reduction", lambda l: F_(l).triplet_margin_with_distance_loss(
            l.zeros(2), l.zeros(2), l.zeros(2), reduction="avg"), ValueError, "avg is not a valid value for reduction"),
        ("triplet_distance_ndim", lambda l: F_(l).triplet_margin_with_distance_loss(
            l.zeros(2), l.zeros(1, 2), l.zeros(2)), RuntimeError,
         "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
         "anchor 1D, positive 2D, and negative 1D inputs"),
    ],
    "F.linear_cross_entropy": [
        ("linear_ce_input_3d", lambda l: F_(l).linear_cross_entropy(l.zeros(2, 2, 3), l.zeros(4, 3), l.tensor([0, 1])),
         RuntimeError, "expected input with dimensionality 1 or 2, got 3"),
        ("linear_ce_features", lambda l: F_(l).linear_cross_entropy(l.zeros(2, 3), l.zeros(4, 2), l.tensor([0, 1])),
         RuntimeError, "expected equal input and linear_weight last dimensions (in_features), got 3 and 2, "
                       "respectively"),
        ("linear_ce_bias_shape", lambda l: F_(l).linear_cross_entropy(l.zeros(2, 3), l.zeros(4, 3), l.tensor([0, 1]),
                                                                      linear_bias=l.zeros(3)),
         RuntimeError, "expected linear_bias shape (4,), got (3,)"),
        ("linear_ce_probs_ignore_index", lambda l: F_(l).linear_cross_entropy(l.zeros(2, 3), l.zeros(4, 3),
                                                                              l.zeros(2, 4), ignore_index=1),
         RuntimeError, "ignore_index cannot be specified when target contains probabilities"),
        ("linear_ce_kdim_unbatched", lambda l: F_(l).linear_cross_entropy(l.zeros(3), l.zeros(4, 2, 3), l.tensor(0)),
         RuntimeError, "K-dimensional loss defined by linear_weight shape (4, 2, 3) requires batched input, (N, 3), "
                       "got unbatched input with shape (3,)"),
    ],
}

_LP = np.zeros((4, 2, 3))  # (T, N, C) for the error rows


def _ctc_call(l, lp=_LP, tg=((1, 2), (1, 0)), il=(4, 4), tl=(2, 1), **kw):
    return F_(l).ctc_loss(l.tensor(lp), l.tensor(tg), l.tensor(il), l.tensor(tl), **kw)


_RAISES["F.ctc_loss"] = [
    ("ctc_blank_range", lambda l: _ctc_call(l, blank=3), RuntimeError, "blank must be in label range"),
    ("ctc_blank_negative", lambda l: _ctc_call(l, blank=-1), RuntimeError, "blank must be in label range"),
    ("ctc_input_lengths_size", lambda l: _ctc_call(l, il=(4,)), RuntimeError, "input_lengths must be of size batch_size"),
    ("ctc_target_lengths_size", lambda l: _ctc_call(l, tl=(2, 1, 1)), RuntimeError,
     "target_lengths must be of size batch_size"),
    ("ctc_input_lengths_float", lambda l: _ctc_call(l, il=(4.0, 4.0)), RuntimeError, "input_lengths must be integral"),
    ("ctc_input_length_too_long", lambda l: _ctc_call(l, il=(5, 4)), RuntimeError,
     "Expected input_lengths to have value at most 4, but got value 5 (while checking arguments for "
     "ctc_loss_allocate_outputs)"),
    ("ctc_input_length_negative", lambda l: _ctc_call(l, il=(-1, 4)), RuntimeError,
     "Expected input_lengths to have value at least 0, but got value -1 (while checking arguments for "
     "ctc_loss_allocate_outputs)"),
    ("ctc_target_length_negative", lambda l: _ctc_call(l, tl=(-1, 1)), RuntimeError,
     "Expected target_lengths to have value at least 0, but got value -1 (while checking arguments for "
     "ctc_loss_allocate_outputs)"),
    ("ctc_padded_too_short", lambda l: _ctc_call(l, tl=(3, 1)), RuntimeError,
     "Expected tensor to have size at least 3 at dimension 1, but got size 2 for argument #2 'targets' (while "
     "checking arguments for ctc_loss_allocate_outputs)"),
    ("ctc_concatenated_size", lambda l: _ctc_call(l, tg=(1, 2, 1, 1)), RuntimeError,
     "Expected tensor to have size 3 at dimension 0, but got size 4 for argument #2 'targets' (while checking "
     "arguments for ctc_loss_allocate_outputs)"),
    ("ctc_reduction", lambda l: _ctc_call(l, reduction="avg"), ValueError, "avg is not a valid value for reduction"),
    ("ctc_log_probs_4d", lambda l: _ctc_call(l, lp=np.zeros((4, 2, 3, 1))), RuntimeError,
     "Expected 3-dimensional tensor, but got 5-dimensional tensor for argument #1 'log_probs' (while checking "
     "arguments for ctc_loss_allocate_outputs)"),
]

_ROWS = {"F.multi_margin_loss": _MULTI_MARGIN, "F.multilabel_margin_loss": _MULTILABEL,
         "F.triplet_margin_with_distance_loss": _TRIPLET, "F.linear_cross_entropy": _LINEAR_CE, "F.ctc_loss": _CTC}

OPS = [OpInfo(name, "loss", rows[0].fn, samples=rows + _SECOND.get(name, []), raises=_RAISES.get(name, ()))
       for name, rows in _ROWS.items()]
