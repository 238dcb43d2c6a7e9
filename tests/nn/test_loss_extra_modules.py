"""The loss modules of nn/modules/loss_extra.py against PyTorch (outputs, input and parameter gradients,
repr, state_dict keys), their constructor errors, and the op table's expected errors of the functions."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import BY_NAME
from _table_tests import expected_errors_test
from family_loss_extra import A, CTC_IL, CTC_IL_IMPOSSIBLE, CTC_TG, CTC_TG_IMPOSSIBLE, CTC_TL, CTC_X, LIN_X, ML, N_, P_, T, W, X
from nn._parity import check_module

_NAMES = ["F.multi_margin_loss", "F.multilabel_margin_loss", "F.triplet_margin_with_distance_loss",
          "F.linear_cross_entropy", "F.ctc_loss"]
test_expected_errors = expected_errors_test([r for n in _NAMES if n in BY_NAME for r in BY_NAME[n].raises])

W32 = W.astype(np.float32)  # float32 buffers; check_module's .double() widens them for float64
_LOG_PROBS = CTC_X - np.log(np.exp(CTC_X).sum(-1, keepdims=True))
MODULES = [
    ("MultiMarginLoss", lambda l: l.nn.MultiMarginLoss(p=2, margin=0.5, weight=l.tensor(W32)), [X, T], [True, False]),
    ("MultiMarginLoss_default", lambda l: l.nn.MultiMarginLoss(reduction="sum"), [X, T], [True, False]),
    ("MultiLabelMarginLoss", lambda l: l.nn.MultiLabelMarginLoss(reduction="none"), [X, ML], [True, False]),
    ("TripletMarginWithDistanceLoss", lambda l: l.nn.TripletMarginWithDistanceLoss(swap=True), [A, P_, N_], None),
    ("TripletMarginWithDistanceLoss_l1", lambda l: l.nn.TripletMarginWithDistanceLoss(
        distance_function=l.nn.PairwiseDistance(p=1), margin=1.5, reduction="none"), [A, P_, N_], None),
    ("LinearCrossEntropyLoss", lambda l: l.nn.LinearCrossEntropyLoss(3, 5, bias=True, label_smoothing=0.1),
     [LIN_X, T], [True, False]),
    ("LinearCrossEntropyLoss_kdim", lambda l: l.nn.LinearCrossEntropyLoss(3, 5, out_features=(2,), weight=l.tensor(W32),
                                                                          reduction="none"),
     [LIN_X, np.array([[0, 4], [1, 1], [3, 2], [4, 0]])], [True, False]),
    ("LinearCrossEntropyLoss_ignore", lambda l: l.nn.LinearCrossEntropyLoss(3, 5, ignore_index=4), [LIN_X, T],
     [True, False]),
    ("CTCLoss", lambda l: l.nn.CTCLoss(), [_LOG_PROBS, CTC_TG, CTC_IL, CTC_TL], [True, False, False, False]),
    ("CTCLoss_zero_infinity", lambda l: l.nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True),
     [_LOG_PROBS, CTC_TG_IMPOSSIBLE, CTC_IL_IMPOSSIBLE, CTC_TL], [True, False, False, False]),
    ("NLLLoss2d", lambda l: l.nn.NLLLoss2d(weight=l.tensor(W32)),
     [np.log(np.full((2, 5, 3, 2), 0.2)) + np.random.default_rng(0).standard_normal((2, 5, 3, 2)),
      np.random.default_rng(1).integers(0, 5, (2, 3, 2))], [True, False]),
]


def _quiet(make):
    def build(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # NLLLoss2d's deprecation, in both libraries
            return make(lib)
    return build


if HAS_TORCH:
    @pytest.mark.parametrize("name,make,inputs,grads", MODULES, ids=[m[0] for m in MODULES])
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    def test_module_matches_torch(name, make, inputs, grads, dtype):
        check_module(_quiet(make), inputs, grads=grads, dtype=dtype, what=name)

    @pytest.mark.parametrize("name,make", [m[:2] for m in MODULES], ids=[m[0] for m in MODULES])
    def test_module_repr_and_state(name, make):
        n, t = _quiet(make)(npgrad), _quiet(make)(torch)
        assert repr(n) == repr(t)
        assert list(n.state_dict()) == list(t.state_dict())
        assert [tuple(v.shape) for v in n.state_dict().values()] == [tuple(v.shape) for v in t.state_dict().values()]


@pytest.mark.parametrize("lib", [npgrad] + ([torch] if HAS_TORCH else []), ids=lambda l: l.__name__)
def test_nll_loss2d_is_a_deprecated_nll_loss(lib):
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        m = lib.nn.NLLLoss2d(ignore_index=1)
    assert isinstance(m, lib.nn.NLLLoss) and m.ignore_index == 1


def test_linear_cross_entropy_equals_linear_then_cross_entropy():
    # the NumPy-free-of-torch oracle: the definition itself
    F = npgrad.nn.functional
    x = npgrad.tensor(LIN_X, requires_grad=True)
    w = npgrad.tensor(np.random.default_rng(3).standard_normal((5, 3)), requires_grad=True)
    t = npgrad.tensor(T)
    a = F.linear_cross_entropy(x, w, t, reduction="sum")
    b = F.cross_entropy(F.linear(x, w), t, reduction="sum")
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-12)


def test_multi_margin_loss_matches_numpy_definition():
    F = npgrad.nn.functional
    out = F.multi_margin_loss(npgrad.tensor(X), npgrad.tensor(T), p=2, margin=0.8, weight=npgrad.tensor(W),
                              reduction="none").numpy()
    ref = [sum(max(0.0, 0.8 - X[i, T[i]] + X[i, j]) ** 2 * W[T[i]] for j in range(5) if j != T[i]) / 5
           for i in range(4)]
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_multilabel_margin_loss_matches_numpy_definition():
    F = npgrad.nn.functional
    out = F.multilabel_margin_loss(npgrad.tensor(X), npgrad.tensor(ML), reduction="none").numpy()
    ref = []
    for i in range(4):
        listed = []
        for c in ML[i]:
            if c < 0:
                break
            listed.append(c)
        others = [k for k in range(5) if k not in listed]
        ref.append(sum(max(0.0, 1 - (X[i, j] - X[i, k])) for j in listed for k in others) / 5)
    np.testing.assert_allclose(out, ref, rtol=1e-12)


@pytest.mark.parametrize("make,exc,message", [
    (lambda l: l.nn.MultiMarginLoss(p=3), ValueError, "only p == 1 and p == 2 supported"),
    (lambda l: l.nn.MultiMarginLoss(weight=l.ones(2, 2)), ValueError,
     "MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"),
    (lambda l: l.nn.TripletMarginWithDistanceLoss(margin=-1.0), ValueError,
     "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got -1.0 instead"),
    (lambda l: l.nn.LinearCrossEntropyLoss(3, 4, weight=l.ones(3)), RuntimeError,
     "expected weight shape to be (4,), got (3,)"),
    (lambda l: l.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5), RuntimeError,
     "expected label_smoothing to be in range [0, 1], got 1.5"),
])
def test_module_constructor_errors(make, exc, message):
    for lib in [npgrad] + ([torch] if HAS_TORCH else []):
        with pytest.raises(exc) as e:
            make(lib)
        assert str(e.value) == message


def _ctc_reference(lp, target):
    """-log p(target | lp) of one sample by summing over every alignment (all (T,) label paths), the
    definition CTC's recursion computes."""
    import itertools
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]
        if collapsed == list(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total)


def test_ctc_loss_matches_sum_over_alignments():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 2, 3))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    targets, il, tl = np.array([[1, 1], [2, 1]]), np.array([5, 4]), np.array([2, 2])
    out = npgrad.nn.functional.ctc_loss(npgrad.tensor(lp), npgrad.tensor(targets), npgrad.tensor(il),
                                        npgrad.tensor(tl), reduction="none").numpy()
    ref = [_ctc_reference(lp[:il[n], n], targets[n, :tl[n]]) for n in range(2)]
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_ctc_gradient_is_through_log_softmax_and_has_no_second_derivative():
    # PyTorch's gradient w.r.t. log_probs: exp(log_probs) plus the true derivative of the loss
    F = npgrad.nn.functional
    lp = npgrad.tensor(np.log(np.full((4, 1, 3), 1 / 3)), requires_grad=True)
    loss = F.ctc_loss(lp, npgrad.tensor([[1]]), npgrad.tensor([4]), npgrad.tensor([1]), reduction="sum")
    (g,) = npgrad.autograd.grad(loss, lp, create_graph=True)
    eps, base = 1e-6, lp.detach().numpy()
    true = np.zeros_like(base)
    for i in range(base.size):
        hi, lo = base.copy(), base.copy()
        hi.flat[i] += eps
        lo.flat[i] -= eps
        f = [F.ctc_loss(npgrad.tensor(a), npgrad.tensor([[1]]), npgrad.tensor([4]), npgrad.tensor([1]),
                        reduction="sum").item() for a in (hi, lo)]
        true.flat[i] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(base) + true, atol=1e-7)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        npgrad.autograd.grad(g.sum(), lp)
