"""The issue's edge cases, pinned without PyTorch (the sweep in test_module_sweep.py compares everything with
PyTorch when it is installed): empty batches through pooling and normalization, NaN into
binary_cross_entropy, one-value-per-channel batches in training-mode BatchNorm."""
import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
import npgrad.nn.functional as F


@pytest.mark.parametrize("layer, shape, out_shape", [
    (nn.MaxPool1d(2), (0, 3, 8), (0, 3, 4)),
    (nn.AvgPool1d(2), (0, 3, 8), (0, 3, 4)),
    (nn.MaxPool2d(2), (0, 3, 6, 6), (0, 3, 3, 3)),
    (nn.AvgPool2d(2, padding=1, ceil_mode=True), (0, 3, 6, 6), (0, 3, 4, 4)),
    (nn.GroupNorm(2, 4), (0, 4, 5), (0, 4, 5)),
    (nn.LayerNorm(5), (0, 4, 5), (0, 4, 5)),
    (nn.BatchNorm1d(4), (0, 4, 5), (0, 4, 5)),
    (nn.InstanceNorm1d(4), (0, 4, 5), (0, 4, 5)),
])
def test_empty_batch_gives_empty_output_and_gradient(layer, shape, out_shape):
    x = npgrad.zeros(shape, requires_grad=True)
    y = layer(x)
    assert tuple(y.shape) == out_shape and y.dtype == npgrad.float32
    y.sum().backward()
    assert tuple(x.grad.shape) == shape


def test_empty_batch_leaves_batchnorm_running_stats():
    bn = nn.BatchNorm1d(3)
    bn(npgrad.zeros(0, 3))
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3


@pytest.mark.parametrize("call, message", [
    (lambda: F.max_pool2d(npgrad.zeros(2, 0, 4, 4), 2),
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 4, 4]"),
    (lambda: F.max_pool1d(npgrad.zeros(0, 4), 2),
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[0, 4]"),
    (lambda: F.avg_pool1d(npgrad.zeros(2, 0, 4), 2),
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 1, 4]"),
])
def test_only_the_batch_may_be_empty_in_pooling(call, message):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == message


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -0.1])
def test_binary_cross_entropy_rejects_nan_and_out_of_range(bad):
    with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):
        F.binary_cross_entropy(npgrad.tensor([0.5, bad]), npgrad.tensor([0.0, 1.0]))


@pytest.mark.parametrize("layer, shape", [(nn.BatchNorm1d(3), (1, 3)), (nn.BatchNorm2d(3), (1, 3, 1, 1))])
def test_batchnorm_training_needs_more_than_one_value_per_channel(layer, shape):
    with pytest.raises(ValueError) as e:
        layer(npgrad.ones(shape))
    assert str(e.value) == ("Expected more than 1 value per channel when training, got input size "
                            f"torch.Size([{', '.join(map(str, shape))}])")
    layer.eval()  # evaluation uses the running stats (mean 0, variance 1 when fresh): fine
    y = layer(npgrad.ones(shape) * 3).detach().numpy()
    np.testing.assert_allclose(y, np.full(shape, 3 / np.sqrt(1 + layer.eps)), rtol=1e-6)


@pytest.mark.parametrize("layer", [nn.LayerNorm(4), nn.GroupNorm(2, 4), nn.RMSNorm(4), nn.InstanceNorm1d(4)])
def test_one_element_batches_normalize(layer):
    x = npgrad.tensor(np.arange(8, dtype=np.float32).reshape(1, 4, 2) if isinstance(layer, (nn.GroupNorm,
                      nn.InstanceNorm1d)) else np.arange(4, dtype=np.float32).reshape(1, 4))
    y = layer(x).detach().numpy()
    a = x.numpy().astype(np.float64)
    # each layer's statistics over its own axes (its fresh affine parameters are 1 and 0)
    if isinstance(layer, nn.RMSNorm):
        want = a / np.sqrt(np.mean(a * a, -1, keepdims=True) + np.finfo(np.float32).eps)
    else:
        groups = a.reshape(1, 2, -1) if isinstance(layer, nn.GroupNorm) else a
        axes = -1
        mean, var = groups.mean(axes, keepdims=True), groups.var(axes, keepdims=True)
        want = ((groups - mean) / np.sqrt(var + layer.eps)).reshape(a.shape)
    assert y.shape == a.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    assert np.ptp(want) > 1  # (a layer passing its input through would fail the comparison)
