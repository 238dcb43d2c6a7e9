"""BatchNorm's running statistics over several steps (momentum, momentum=None, eval after training),
functional batch_norm's in-place updates, and the normalisation layers' errors."""
import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
import npgrad.nn.functional as F
from oracle import HAS_TORCH, torch
from nn._parity import to_np

R = np.random.default_rng(3)


if HAS_TORCH:
    @pytest.mark.parametrize("momentum", [0.1, 0.5, None])
    @pytest.mark.parametrize("kind", ["1d", "2d"])
    def test_batchnorm_running_stats_over_steps_match_torch(momentum, kind):
        make = (lambda l: l.nn.BatchNorm1d(3, momentum=momentum)) if kind == "1d" else \
            (lambda l: l.nn.BatchNorm2d(3, momentum=momentum))
        tm, nm = make(torch).double(), make(npgrad).double()
        shape = (5, 3) if kind == "1d" else (2, 3, 4, 4)
        for step in range(4):
            x = R.standard_normal(shape) * (step + 1) + step
            a = nm(npgrad.tensor(x))
            b = tm(torch.tensor(x))
            np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-10, atol=1e-12)
        for k, v in tm.state_dict().items():
            np.testing.assert_allclose(to_np(nm.state_dict()[k]), to_np(v), rtol=1e-10, atol=1e-12, err_msg=k)
        assert nm.num_batches_tracked.item() == 4
        nm.eval(), tm.eval()
        x = R.standard_normal(shape)
        np.testing.assert_allclose(to_np(nm(npgrad.tensor(x))), to_np(tm(torch.tensor(x))), rtol=1e-10, atol=1e-12)

    def test_functional_batch_norm_updates_running_stats_in_place():
        x = R.standard_normal((4, 3, 2))
        rm_n, rv_n = npgrad.zeros(3, dtype=npgrad.float64), npgrad.ones(3, dtype=npgrad.float64)
        rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
        F.batch_norm(npgrad.tensor(x), rm_n, rv_n, training=True, momentum=0.3)
        torch.nn.functional.batch_norm(torch.tensor(x), rm_t, rv_t, training=True, momentum=0.3)
        np.testing.assert_allclose(rm_n.numpy(), rm_t.numpy(), rtol=1e-12)
        np.testing.assert_allclose(rv_n.numpy(), rv_t.numpy(), rtol=1e-12)


def test_running_stats_use_unbiased_variance():
    bn = nn.BatchNorm1d(2, momentum=1.0).double()
    x = R.standard_normal((6, 2))
    bn(npgrad.tensor(x))
    np.testing.assert_allclose(bn.running_mean.numpy(), x.mean(0), rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), x.var(0, ddof=1), rtol=1e-12)


def test_momentum_none_is_cumulative_average():
    bn = nn.BatchNorm1d(2, momentum=None).double()
    xs = [R.standard_normal((5, 2)) for _ in range(3)]
    for x in xs:
        bn(npgrad.tensor(x))
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([x.mean(0) for x in xs], axis=0), rtol=1e-12)


def test_eval_mode_uses_running_stats_and_does_not_update():
    bn = nn.BatchNorm2d(2)
    bn.running_mean.fill_(1.0)
    bn.running_var.fill_(4.0)
    bn.eval()
    x = npgrad.randn(2, 2, 3, 3)
    y = bn(x)
    np.testing.assert_allclose(y.detach().numpy(), (x.numpy() - 1.0) / np.sqrt(4.0 + 1e-5), rtol=1e-5, atol=1e-6)
    assert bn.num_batches_tracked.item() == 0 and np.all(bn.running_mean.numpy() == 1.0)


def test_untracked_batchnorm_has_no_buffers():
    bn = nn.BatchNorm1d(3, track_running_stats=False)
    assert bn.running_mean is None and list(bn.state_dict()) == ["weight", "bias"]
    y = bn.eval()(npgrad.randn(4, 3))  # still normalises with batch statistics
    np.testing.assert_allclose(y.detach().numpy().mean(0), 0, atol=1e-6)


def test_normalization_errors():
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        nn.BatchNorm1d(3)(npgrad.randn(2, 3, 4, 4))
    with pytest.raises(ValueError, match="expected 4D input \\(got 3D input\\)"):
        nn.BatchNorm2d(3)(npgrad.randn(2, 3, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training, got input size "
                                         "torch.Size\\(\\[1, 3\\]\\)"):
        nn.BatchNorm1d(3)(npgrad.randn(1, 3))
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(npgrad.randn(2, 3), npgrad.zeros(4), npgrad.ones(4))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but "
                                           r"got input of size\[2, 4\]"):
        nn.LayerNorm(5)(npgrad.randn(2, 4))
    with pytest.raises(RuntimeError, match="Expected number of channels in input to be divisible by num_groups, but "
                                           r"got input of shape \[2, 6, 4\] and num_groups=4"):
        F.group_norm(npgrad.randn(2, 6, 4), 4)
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)


if HAS_TORCH:
    def test_normalization_error_messages_match_torch():
        cases = [lambda l: l.nn.LayerNorm(5)(l.randn(2, 4)),
                 lambda l: l.nn.functional.group_norm(l.randn(2, 6, 4), 4),
                 lambda l: l.nn.BatchNorm1d(3)(l.randn(1, 3)),
                 lambda l: l.nn.BatchNorm2d(3)(l.randn(2, 3, 4))]
        for case in cases:
            msgs = []
            for lib in (npgrad, torch):
                with pytest.raises(Exception) as info:
                    case(lib)
                msgs.append((type(info.value), str(info.value)))
            assert msgs[0] == msgs[1]


@pytest.mark.parametrize("shape,normalized", [((5,), (5,)), ((2, 3), (2, 3)), ((4, 5), (5,))],
                         ids=["1d_whole", "2d_whole", "batched"])
def test_layer_norm_affine_gradients_when_input_is_one_normalized_block(shape, normalized):
    """The input's shape equal to normalized_shape (nothing to sum the weight's gradient over): the weight's
    gradient array was also the backward's scratch, and came back overwritten (silently wrong)."""
    x = R.standard_normal(shape)
    w, b, up = R.standard_normal(normalized), R.standard_normal(normalized), R.standard_normal(shape)
    X, W, B = (npgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    F.layer_norm(X, normalized, W, B).backward(npgrad.tensor(up))
    axes = tuple(range(len(shape) - len(normalized), len(shape)))
    xhat = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    lead = tuple(range(len(shape) - len(normalized)))
    np.testing.assert_allclose(W.grad.numpy(), (up * xhat).sum(lead), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(B.grad.numpy(), up.sum(lead), rtol=1e-10, atol=1e-12)
    if HAS_TORCH:
        T = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        torch.nn.functional.layer_norm(T[0], normalized, T[1], T[2]).backward(torch.tensor(up))
        for mine, theirs in zip((X, W, B), T):
            np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-9, atol=1e-12)
