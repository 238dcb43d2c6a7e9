"""AdaptiveLogSoftmaxWithLoss against PyTorch (forward's (output, loss), every gradient, log_prob, predict,
a torch state_dict loaded as is) and against its own definition (log_prob is a distribution; the forward's
output is log_prob at the targets; predict is log_prob's argmax)."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from nn._parity import check_module, copy_state

R = np.random.default_rng(11)
X = R.standard_normal((9, 16))
T = np.array([0, 5, 12, 19, 3, 11, 6, 15, 14])


def _make(head_bias=False, cutoffs=(4, 10, 15), div_value=2.0):
    return lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(16, 20, list(cutoffs), div_value=div_value, head_bias=head_bias)


CASES = [("default", _make(), T), ("head_bias", _make(head_bias=True), T),
         ("one_cluster_div4", _make(cutoffs=(8,), div_value=4.0), T),
         ("cluster_unused", _make(), np.array([0, 1, 2, 3, 12, 11, 3, 2, 1]))]  # no target in clusters 0 and 2


if HAS_TORCH:
    @pytest.mark.parametrize("name,make,target", CASES, ids=[c[0] for c in CASES])
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    def test_forward_matches_torch(name, make, target, dtype):
        check_module(make, [X, target], grads=[True, False], dtype=dtype, what=name)

    def test_unbatched_forward_matches_torch():
        check_module(_make(), [X[3], np.array(T[3])], grads=[True, False], what="unbatched")

    @pytest.mark.parametrize("name,make,target", CASES, ids=[c[0] for c in CASES])
    def test_log_prob_predict_and_layout_match_torch(name, make, target):
        tm, nm = make(torch).double(), make(npgrad).double()
        assert list(nm.state_dict()) == list(tm.state_dict())
        assert repr(nm) == repr(tm)
        copy_state(tm, nm)
        x = X * 3  # spread the head's scores so predict meets rows inside and outside the shortlist
        np.testing.assert_allclose(nm.log_prob(npgrad.tensor(x)).detach().numpy(),
                                   tm.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-12, atol=1e-12)
        pn, pt = nm.predict(npgrad.tensor(x)), tm.predict(torch.tensor(x))
        assert pn.dtype == npgrad.int64
        np.testing.assert_array_equal(pn.numpy(), pt.numpy())


def test_output_is_log_prob_at_targets_and_a_distribution():
    m = _make(head_bias=True)(npgrad).double()
    x = npgrad.tensor(X)
    out = m(x, npgrad.tensor(T))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    full = m.log_prob(x).detach().numpy()
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(out.output.detach().numpy(), full[np.arange(len(T)), T], rtol=1e-12)
    np.testing.assert_allclose(out.loss.item(), -full[np.arange(len(T)), T].mean(), rtol=1e-12)
    np.testing.assert_array_equal(m.predict(npgrad.tensor(X * 3)).numpy(), (m.log_prob(npgrad.tensor(X * 3))
                                                                              .detach().numpy().argmax(1)))


def test_unused_clusters_get_no_gradient():
    m = _make()(npgrad).double()
    m(npgrad.tensor(X), npgrad.tensor(np.array([0, 1, 2, 3, 12, 11, 3, 2, 1])))[1].backward()
    assert m.tail[0][0].weight.grad is None and m.tail[2][1].weight.grad is None
    assert m.tail[1][0].weight.grad is not None and m.head.weight.grad is not None


@pytest.mark.parametrize("call,exc,message", [
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []), ValueError,
     "cutoffs should be a sequence of length larger than 0"),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]), ValueError,
     "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where each value is "
     "between 1 and n_classes-1"),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]), ValueError,
     "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where each value is "
     "between 1 and n_classes-1"),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(l.zeros(2, 8), l.tensor([1, 10])), RuntimeError,
     "Target values should be in [0, 9], but values in range [1, 10] were found. "),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(l.zeros(2, 8), l.tensor([1])), RuntimeError,
     "Input and target should have the same size in the batch dimension."),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(l.zeros(2, 8), l.zeros(2, 1, dtype=l.long)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(l.zeros(2, 8), l.tensor(1)), RuntimeError,
     "0D target tensor expects 1D input tensors, but found inputs with size torch.Size([2, 8])"),
    (lambda l: l.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(l.zeros(2, 1, 8), l.tensor([1, 2])), RuntimeError,
     "1D target tensor expects 2D input tensors, but found inputs with size torch.Size([2, 1, 8])"),
])
def test_errors_like_torch(call, exc, message):
    for lib in [npgrad] + ([torch] if HAS_TORCH else []):
        with pytest.raises(exc) as e:
            call(lib)
        assert str(e.value) == message
