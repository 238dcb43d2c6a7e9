"""Op table: nn.functional's loss functions (npgrad/nn/_functional): cross_entropy, nll_loss, mse/l1/smooth_l1/huber,
binary_cross_entropy (and _with_logits), kl_div, poisson_nll_loss, gaussian_nll_loss, soft_margin, margin_ranking,
multilabel_soft_margin, cosine_embedding, hinge_embedding and triplet_margin.

Every reduction and option is a sample, run by tests/nn/test_losses.py against PyTorch (float32 and float64,
outputs and the gradients of the inputs that need one) and finite differences. The inputs are fixed arrays
(``X``, ``T`` ... below, which that file's module and error tests share); the second-order rows run in
tests/autograd/test_double_backward.py, the float16 forms in the float16 suite.
"""
import warnings

import numpy as np

from oracle import In
from _record import FD, PARITY, SECOND_ORDER, OpInfo, Sample

_PARITY_FD = frozenset({PARITY, FD})


def F_(lib):
    return lib.nn.functional


R = np.random.default_rng(2)
X = R.standard_normal((4, 5))
T = np.array([1, -100, 4, 0])          # one ignored target
W = R.uniform(0.5, 2.0, 5)
XK = R.standard_normal((2, 5, 3, 2))   # K-dim: (N, C, d1, d2)
TK = R.integers(0, 5, (2, 3, 2))
P = R.uniform(0, 1, (4, 5))
P /= P.sum(1, keepdims=True)
Y = R.standard_normal((4, 5))
PR = R.uniform(0.05, 0.95, (4, 5))
TG = R.uniform(0, 1, (4, 5))

_ROWS = []
for red in ("none", "mean", "sum"):
    for ls in (0.0, 0.25):
        _ROWS += [
            (f"ce_{red}_ls{ls}", lambda l, x, t, r=red, s=ls: F_(l).cross_entropy(x, t, reduction=r, label_smoothing=s),
             [X, T], [True, False]),
            (f"ce_weight_{red}_ls{ls}", lambda l, x, t, w, r=red, s=ls: F_(l).cross_entropy(
                x, t, weight=w, reduction=r, label_smoothing=s), [X, T, W], [True, False, False]),
            (f"ce_kdim_{red}_ls{ls}", lambda l, x, t, r=red, s=ls: F_(l).cross_entropy(
                x, t, reduction=r, label_smoothing=s, ignore_index=2), [XK, TK], [True, False]),
            (f"ce_probs_{red}_ls{ls}", lambda l, x, t, w, r=red, s=ls: F_(l).cross_entropy(
                x, t, weight=w, reduction=r, label_smoothing=s), [X, P, W], [True, True, False]),
            (f"ce_unbatched_{red}_ls{ls}", lambda l, x, t, r=red, s=ls: F_(l).cross_entropy(
                x, t, reduction=r, label_smoothing=s), [X[0], np.array(3)], [True, False]),
        ]
    _ROWS += [
        (f"nll_{red}", lambda l, x, t, w, r=red: F_(l).nll_loss(x, t, weight=w, reduction=r), [X, T, W],
         [True, False, False]),
        (f"nll_kdim_{red}", lambda l, x, t, r=red: F_(l).nll_loss(x, t, reduction=r), [XK, TK], [True, False]),
        (f"mse_{red}", lambda l, a, b, r=red: F_(l).mse_loss(a, b, reduction=r), [X, Y], None),
        (f"mse_weight_{red}", lambda l, a, b, w, r=red: F_(l).mse_loss(a, b, reduction=r, weight=w), [X, Y, PR],
         [True, True, False]),
        (f"l1_{red}", lambda l, a, b, r=red: F_(l).l1_loss(a, b, reduction=r), [X, Y], None),
        (f"l1_weight_{red}", lambda l, a, b, w, r=red: F_(l).l1_loss(a, b, reduction=r, weight=w), [X, Y, PR],
         [True, True, False]),
        (f"smooth_l1_{red}", lambda l, a, b, r=red: F_(l).smooth_l1_loss(a, b, reduction=r), [X, Y], None),
        (f"smooth_l1_beta_{red}", lambda l, a, b, r=red: F_(l).smooth_l1_loss(a, b, reduction=r, beta=0.4), [X, Y],
         None),
        (f"smooth_l1_beta0_{red}", lambda l, a, b, r=red: F_(l).smooth_l1_loss(a, b, reduction=r, beta=0.0), [X, Y],
         None),
        (f"huber_{red}", lambda l, a, b, r=red: F_(l).huber_loss(a, b, reduction=r, delta=0.6), [X, Y], None),
        (f"huber_weight_{red}", lambda l, a, b, w, r=red: F_(l).huber_loss(a, b, reduction=r, weight=w), [X, Y, PR],
         [True, True, False]),
        (f"bce_{red}", lambda l, a, b, r=red: F_(l).binary_cross_entropy(a, b, reduction=r), [PR, TG], None),
        (f"bce_weight_{red}", lambda l, a, b, w, r=red: F_(l).binary_cross_entropy(a, b, weight=w, reduction=r),
         [PR, TG, W], [True, True, False]),
        (f"bce_logits_{red}", lambda l, a, b, r=red: F_(l).binary_cross_entropy_with_logits(a, b, reduction=r),
         [X, TG], None),
        (f"bce_logits_weights_{red}", lambda l, a, b, w, pw, r=red: F_(l).binary_cross_entropy_with_logits(
            a, b, weight=w, pos_weight=pw, reduction=r), [X, TG, W, W[::-1].copy()], [True, True, False, False]),
        (f"kl_div_{red}", lambda l, a, b, r=red: F_(l).kl_div(a, b, reduction=r), [np.log(PR), TG], None),
        (f"kl_div_log_target_{red}", lambda l, a, b, r=red: F_(l).kl_div(a, b, reduction=r, log_target=True),
         [np.log(PR), np.log(TG)], None),
        (f"poisson_nll_{red}", lambda l, a, b, r=red: F_(l).poisson_nll_loss(a, b, reduction=r), [X, TG], None),
        (f"soft_margin_{red}", lambda l, a, b, r=red: F_(l).soft_margin_loss(a, b, reduction=r),
         [X, np.sign(Y)], [True, False]),
        (f"margin_ranking_{red}", lambda l, a, b, t, r=red: F_(l).margin_ranking_loss(a, b, t, 0.3, reduction=r),
         [X[0], Y[0], np.sign(Y[1])], None),
        (f"multilabel_soft_margin_{red}", lambda l, a, b, r=red: F_(l).multilabel_soft_margin_loss(a, b, reduction=r),
         [X, (TG > 0.5).astype(float)], [True, False]),
    ]
_ROWS += [
    ("kl_div_batchmean", lambda l, a, b: F_(l).kl_div(a, b, reduction="batchmean"), [np.log(PR), TG], None),
    ("kl_div_zero_target", lambda l, a, b: F_(l).kl_div(a, b, reduction="sum"),
     [np.log(PR), np.where(TG > 0.5, TG, 0.0)], [True, False]),  # d/dtarget is undefined at target 0
    ("ce_all_classes_weighted_mean", lambda l, x, t, w: F_(l).cross_entropy(x, t, weight=w),
     [X, np.array([1, 2, 4, 0]), W], [True, False, False]),
]

# The losses without a row above (their first samples; the module sweep calls them too)
_PM1 = np.array([1.0, -1.0, -1.0, 1.0])
for red in ("none", "mean", "sum"):
    _ROWS += [
        (f"cosine_embedding_{red}", lambda l, a, b, t, r=red: F_(l).cosine_embedding_loss(a, b, t, margin=0.2,
                                                                                          reduction=r),
         [X, Y, _PM1], [True, True, False]),
        (f"hinge_embedding_{red}", lambda l, a, t, r=red: F_(l).hinge_embedding_loss(a, t, margin=0.7, reduction=r),
         [X, np.sign(Y)], [True, False]),
        (f"gaussian_nll_{red}", lambda l, a, b, v, r=red: F_(l).gaussian_nll_loss(a, b, v, reduction=r),
         [X, Y, PR], None),
        (f"triplet_margin_{red}", lambda l, a, p, n, r=red: F_(l).triplet_margin_loss(a, p, n, margin=0.5,
                                                                                       reduction=r),
         [X, Y, TG], None),
    ]
_ROWS += [("gaussian_nll_full", lambda l, a, b, v: F_(l).gaussian_nll_loss(a, b, v, full=True), [X, Y, PR], None),
          ("triplet_margin_p1_swap", lambda l, a, p, n: F_(l).triplet_margin_loss(a, p, n, p=1, swap=True),
           [X, Y, TG], None)]


def _quiet(fn):
    # kl_div's 'mean' reduction warns in both libraries (its deprecation); the rows use it on purpose
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return call


def _sample(name, fn, arrays, grads):
    """A row of fixed arrays: ``grads`` says which inputs need a gradient (None: every float input)."""
    grads = grads or [a.dtype.kind == "f" for a in arrays]
    inputs = [In(np.shape(a), values=lambda rng, a=np.asarray(a): a.copy(), grad=g) for a, g in zip(arrays, grads)]
    return Sample(name, _quiet(fn), inputs, checks=_PARITY_FD, fd_tol=1e-5)


# row-name prefix -> operator (longest prefix first)
_OPERATOR = [("ce_", "F.cross_entropy"), ("nll_", "F.nll_loss"), ("mse_", "F.mse_loss"), ("l1_", "F.l1_loss"),
             ("smooth_l1_", "F.smooth_l1_loss"), ("huber_", "F.huber_loss"),
             ("bce_logits_", "F.binary_cross_entropy_with_logits"), ("bce_", "F.binary_cross_entropy"),
             ("kl_div_", "F.kl_div"), ("poisson_nll_", "F.poisson_nll_loss"), ("soft_margin_", "F.soft_margin_loss"),
             ("margin_ranking_", "F.margin_ranking_loss"),
             ("multilabel_soft_margin_", "F.multilabel_soft_margin_loss"),
             ("cosine_embedding_", "F.cosine_embedding_loss"), ("hinge_embedding_", "F.hinge_embedding_loss"),
             ("gaussian_nll_", "F.gaussian_nll_loss"), ("triplet_margin_", "F.triplet_margin_loss")]


def _operator(row_name):
    return max((p for p in _OPERATOR if row_name.startswith(p[0])), key=lambda p: len(p[0]))[1]


def _second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


_SECOND = {
    "F.cross_entropy": [_second("cross_entropy", lambda lib, x: F_(lib).cross_entropy(x, lib.tensor([0, 2])),
                                [In((2, 3))])],
    "F.mse_loss": [_second("mse_loss", lambda lib, x, y: F_(lib).mse_loss(x, y), [In((2, 3)), In((2, 3))])],
    "F.binary_cross_entropy_with_logits": [
        _second("bce_with_logits", lambda lib, x, y: F_(lib).binary_cross_entropy_with_logits(x, y),
                [In((2, 3)), In((2, 3), 0.1, 0.9)])],
}

_FLOAT16 = {
    "F.mse_loss": [("F.mse_loss", lambda L, x, y: F_(L).mse_loss(x, y))],
    "F.l1_loss": [("F.l1_loss", lambda L, x, y: F_(L).l1_loss(x, y))],
    "F.smooth_l1_loss": [("F.smooth_l1_loss", lambda L, x, y: F_(L).smooth_l1_loss(x, y))],
    "F.cross_entropy": [("F.cross_entropy", lambda L, x, y: F_(L).cross_entropy(x, L.tensor([0, 3, 1])))],
    "F.nll_loss": [("F.nll_loss", lambda L, x, y: F_(L).nll_loss(x.log_softmax(1), L.tensor([0, 3, 1])))],
    "F.binary_cross_entropy_with_logits": [
        ("F.bce_with_logits", lambda L, x, y: F_(L).binary_cross_entropy_with_logits(x, y / 2))],
    "F.binary_cross_entropy": [("F.binary_cross_entropy", lambda L, x, y: F_(L).binary_cross_entropy(x / 2, y / 2))],
}


def _class_targets(L, x):
    n = x.reshape(-1, x.shape[-1]).shape[0]
    return L.arange(n) % x.shape[-1]


# The special-value property's forms (tests/reliability/test_special_values.py): elementwise losses of x against
# a target made from x, unreduced
_SPECIAL_FUZZ = {
    "F.mse_loss": [("mse", lambda L, x: F_(L).mse_loss(x, x.flip(-1), reduction="none"))],
    "F.l1_loss": [("l1", lambda L, x: F_(L).l1_loss(x, x.flip(-1), reduction="none"))],
    "F.binary_cross_entropy_with_logits": [
        ("bce_logits", lambda L, x: F_(L).binary_cross_entropy_with_logits(x, (x.detach() > 0).to(x.dtype),
                                                                          reduction="none"))],
    "F.cross_entropy": [("cross_entropy", lambda L, x: F_(L).cross_entropy(x.reshape(-1, x.shape[-1]),
                                                                          _class_targets(L, x), reduction="none"))],
    "F.smooth_l1_loss": [("smooth_l1", lambda L, x: F_(L).smooth_l1_loss(x, x.new_zeros(x.shape), reduction="none"))],
    "F.huber_loss": [("huber", lambda L, x: F_(L).huber_loss(x, x.new_zeros(x.shape), reduction="none"))],
}

_BY_OPERATOR = {}
for _row in _ROWS:
    _BY_OPERATOR.setdefault(_operator(_row[0]), []).append(_sample(*_row))

OPS = [OpInfo(name, "loss", samples[0].fn, samples=samples + _SECOND.get(name, []), float16=_FLOAT16.get(name, ()),
              special_fuzz=_SPECIAL_FUZZ.get(name, ())) for name, samples in _BY_OPERATOR.items()]
