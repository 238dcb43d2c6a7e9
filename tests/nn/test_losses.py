"""Loss functions against PyTorch for every reduction and option, finite differences, numerical stability,
the loss modules, and PyTorch's errors for bad targets."""
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from oracle import HAS_TORCH, check_against_torch, check_finite_differences
from opinfo import FD, PARITY, samples
from family_loss import PR, T, TG, W, X, Y
from nn._parity import check_module

# The rows live in the op table (tests/opinfo/family_loss.py), with the fixed inputs the module rows share.
CASES = samples(PARITY, "loss")


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    @pytest.mark.parametrize("case", CASES, ids=str)
    def test_loss_matches_torch(case, dtype):
        check_against_torch(case, dtype)


@pytest.mark.parametrize("case", samples(FD, "loss"), ids=str)
def test_loss_finite_differences(case):
    check_finite_differences(case)


LOSS_MODULES = [
    ("CrossEntropyLoss", lambda l: l.nn.CrossEntropyLoss(weight=l.tensor(W), label_smoothing=0.1), [X, T]),
    ("NLLLoss", lambda l: l.nn.NLLLoss(reduction="sum"), [X, T]),
    ("MSELoss", lambda l: l.nn.MSELoss(), [X, Y]),
    ("L1Loss", lambda l: l.nn.L1Loss(reduction="none"), [X, Y]),
    ("SmoothL1Loss", lambda l: l.nn.SmoothL1Loss(beta=0.5), [X, Y]),
    ("HuberLoss", lambda l: l.nn.HuberLoss(delta=0.5), [X, Y]),
    ("BCELoss", lambda l: l.nn.BCELoss(), [PR, TG]),
    ("BCEWithLogitsLoss", lambda l: l.nn.BCEWithLogitsLoss(pos_weight=l.tensor(W)), [X, TG]),
    ("KLDivLoss", lambda l: l.nn.KLDivLoss(reduction="batchmean", log_target=True), [np.log(PR), np.log(TG)]),
]

if HAS_TORCH:
    @pytest.mark.parametrize("name,make,inputs", LOSS_MODULES, ids=[c[0] for c in LOSS_MODULES])
    def test_loss_module_matches_torch(name, make, inputs):
        grads = [True, inputs[1].dtype.kind == "f"]
        check_module(make, inputs, grads=grads, dtype=np.float64, what=name)

    def test_loss_module_state_and_repr():
        import torch
        for name, make, _ in LOSS_MODULES:
            assert repr(make(npgrad)) == repr(make(torch))
            assert list(make(npgrad).state_dict()) == list(make(torch).state_dict())


@pytest.mark.parametrize("dtype", [npgrad.float32, npgrad.float64])
def test_cross_entropy_is_stable_for_huge_logits(dtype):
    x = npgrad.tensor([[1e4, 0.0, -1e4], [0.0, 1e4, 1e4]], dtype=dtype, requires_grad=True)
    t = npgrad.tensor([2, 1])
    loss = F.cross_entropy(x, t, label_smoothing=0.1)
    loss.backward()
    assert np.isfinite(loss.item())
    assert np.all(np.isfinite(x.grad.numpy()))
    # Row 0: log-probabilities (0, -1e4, -2e4), target 2. Row 1: (-1e4 - ln2, -ln2, -ln2), target 1.
    # Each row's loss is 0.9 * nll + 0.1/3 * (-sum of log-probabilities).
    ln2 = np.log(2)
    expected = ((0.9 * 2e4 + 0.1 / 3 * 3e4) + (0.9 * ln2 + 0.1 / 3 * (1e4 + 3 * ln2))) / 2
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-5)
    p = F.log_softmax(x, 1)
    assert np.all(np.isfinite(p.detach().numpy()))
    s = F.softmax(x * 10, 1)
    np.testing.assert_allclose(s.detach().numpy().sum(1), 1.0, rtol=1e-6)


def test_bce_with_logits_is_stable_for_huge_logits():
    x = npgrad.tensor([1e4, -1e4, 50.0], requires_grad=True)
    y = npgrad.tensor([0.0, 1.0, 1.0])
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    loss.sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), [1e4, 1e4, 0.0], atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -1.0, 0.0], atol=1e-6)


def test_bce_clamps_log_at_minus_100():
    loss = F.binary_cross_entropy(npgrad.tensor([0.0, 1.0]), npgrad.tensor([1.0, 0.0]), reduction="none")
    np.testing.assert_array_equal(loss.numpy(), [100.0, 100.0])


def _raises(exc, match, fn):
    with pytest.raises(exc) as info:
        fn()
    assert match in str(info.value), f"{info.value!r} does not contain {match!r}"


def test_cross_entropy_errors():
    x = npgrad.randn(3, 10)
    _raises(IndexError, "Target 10 is out of bounds.", lambda: F.cross_entropy(x, npgrad.tensor([1, 10, 2])))
    _raises(IndexError, "Target -5 is out of bounds.", lambda: F.cross_entropy(x, npgrad.tensor([1, -5, 2])))
    _raises(IndexError, "Target 7 is out of bounds.", lambda: F.cross_entropy(npgrad.randn(5), npgrad.tensor(7)))
    _raises(ValueError, "Expected input batch_size (3) to match target batch_size (2).",
            lambda: F.cross_entropy(x, npgrad.tensor([1, 2])))
    _raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
            lambda: F.cross_entropy(x, npgrad.zeros(3)))
    _raises(RuntimeError, "expected target dtype to be Long or Byte, but got Int",
            lambda: F.cross_entropy(x, npgrad.zeros(3, dtype=npgrad.int32)))
    _raises(RuntimeError, "Expected floating point type for target with class probabilities, got Long",
            lambda: F.cross_entropy(x, npgrad.zeros(3, 10, dtype=npgrad.int64)))
    _raises(RuntimeError, "0D or 1D target tensor expected, multi-target not supported",
            lambda: F.cross_entropy(x, npgrad.zeros(3, 4)))
    _raises(RuntimeError, "Expected target size [2, 4], got [2, 3]",
            lambda: F.cross_entropy(npgrad.randn(2, 5, 4), npgrad.zeros(2, 3, dtype=npgrad.int64)))
    _raises(RuntimeError, "weight tensor should be defined either for all 10 classes or no classes but got weight "
                          "tensor of shape: [3]",
            lambda: F.cross_entropy(x, npgrad.tensor([0, 1, 2]), weight=npgrad.ones(3)))
    _raises(RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
            lambda: F.cross_entropy(x, npgrad.tensor([0, 1, 2]), label_smoothing=1.5))
    _raises(ValueError, "foo is not a valid value for reduction",
            lambda: F.cross_entropy(x, npgrad.tensor([0, 1, 2]), reduction="foo"))
    _raises(IndexError, "Target 9 is out of bounds.", lambda: F.nll_loss(npgrad.randn(2, 5), npgrad.tensor([0, 9])))


def test_cross_entropy_uint8_targets_and_all_ignored():
    x = npgrad.randn(2, 5)
    a = F.cross_entropy(x, npgrad.tensor([1, 3], dtype=npgrad.uint8))
    b = F.cross_entropy(x, npgrad.tensor([1, 3]))
    assert a.item() == b.item()
    assert np.isnan(F.cross_entropy(x, npgrad.tensor([-100, -100])).item())  # 0/0, as in PyTorch


def test_other_loss_errors_and_warnings():
    _raises(RuntimeError, "all elements of input should be between 0 and 1",
            lambda: F.binary_cross_entropy(npgrad.tensor([1.5]), npgrad.tensor([1.0])))
    _raises(ValueError, "Using a target size (torch.Size([3])) that is different to the input size "
                        "(torch.Size([3, 1])) is deprecated. Please ensure they have the same size.",
            lambda: F.binary_cross_entropy(npgrad.rand(3, 1), npgrad.rand(3)))
    _raises(ValueError, "Target size (torch.Size([3])) must be the same as input size (torch.Size([3, 1]))",
            lambda: F.binary_cross_entropy_with_logits(npgrad.rand(3, 1), npgrad.rand(3)))
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(npgrad.rand(3, 1), npgrad.rand(3))
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(npgrad.rand(3), npgrad.rand(3))
    _raises(ValueError, "Weights and input must have the same size.",
            lambda: F.mse_loss(npgrad.rand(3), npgrad.rand(3), weight=npgrad.rand(2)))


def test_legacy_size_average_and_reduce():
    x, y = npgrad.randn(3, 2), npgrad.randn(3, 2)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        s = F.mse_loss(x, y, size_average=False)
    np.testing.assert_allclose(s.item(), F.mse_loss(x, y, reduction="sum").item(), rtol=1e-6)
    with pytest.warns(UserWarning):
        assert npgrad.nn.MSELoss(reduce=False).reduction == "none"


_RNG = np.random.default_rng(3)
_A, _B, _C = (_RNG.standard_normal((4, 3)) for _ in range(3))
_SIGN = np.array([1.0, -1.0, 1.0, -1.0])
_VAR = _RNG.uniform(0.5, 2.0, (4, 3))
# Every other loss module, with settings off their defaults, called with its forward's keyword names.
KEYWORD_MODULES = [
    ("PoissonNLLLoss", lambda l: l.nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3),
     dict(log_input=np.abs(_A), target=np.abs(_B))),
    ("GaussianNLLLoss", lambda l: l.nn.GaussianNLLLoss(full=True, eps=1e-3, reduction="sum"),
     dict(input=_A, target=_B, var=_VAR)),
    ("MarginRankingLoss", lambda l: l.nn.MarginRankingLoss(margin=0.3), dict(input1=_A[:, 0], input2=_B[:, 0],
                                                                            target=_SIGN)),
    ("CosineEmbeddingLoss", lambda l: l.nn.CosineEmbeddingLoss(margin=0.2, reduction="none"),
     dict(input1=_A, input2=_B, target=_SIGN)),
    ("HingeEmbeddingLoss", lambda l: l.nn.HingeEmbeddingLoss(margin=0.5), dict(input=_A, target=np.sign(_B))),
    ("SoftMarginLoss", lambda l: l.nn.SoftMarginLoss(reduction="sum"), dict(input=_A, target=np.sign(_B))),
    ("TripletMarginLoss", lambda l: l.nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True),
     dict(anchor=_A, positive=_B, negative=_C)),
    ("MultiLabelSoftMarginLoss", lambda l: l.nn.MultiLabelSoftMarginLoss(weight=l.tensor([0.5, 1.0, 2.0])),
     dict(input=_A, target=(_B > 0).astype(np.float64))),
    ("NLLLoss-legacy", lambda l: l.nn.NLLLoss(size_average=False, ignore_index=1),
     dict(input=_A, target=np.array([0, 1, 2, 1]))),
]

if HAS_TORCH:
    @pytest.mark.parametrize("name,make,inputs", KEYWORD_MODULES, ids=[c[0] for c in KEYWORD_MODULES])
    def test_loss_module_keywords_match_torch(name, make, inputs):
        import torch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # size_average's deprecation
            ours, theirs = make(npgrad), make(torch)
        assert repr(ours) == repr(theirs) and ours.reduction == theirs.reduction
        got = ours(**{k: npgrad.tensor(v) for k, v in inputs.items()})
        want = theirs(**{k: torch.tensor(v) for k, v in inputs.items()})
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
