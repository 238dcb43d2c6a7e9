"""Edge cases the sweep of torch.* spellings found (an empty non-batch dimension, a zero output size, a
weight that requires grad where PyTorch has no derivative): npgrad answers or raises as PyTorch does."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

EMPTY_DIM = "Expected input to have non-zero size for non-batch dimensions"

RAISES = [  # (id, call, message)
    ("avg1d_empty_length", lambda L: L.nn.functional.adaptive_avg_pool1d(L.zeros(2, 0), 3),
     "adaptive_avg_pool2d(): " + EMPTY_DIM + ", but input has sizes [2, 1, 0] with dimension 2 being empty"),
    ("avg3d_empty_channels", lambda L: L.nn.functional.adaptive_avg_pool3d(L.zeros(2, 0, 2, 2, 2), 3),
     "adaptive_avg_pool3d(): " + EMPTY_DIM + ", but input has sizes [2, 0, 2, 2, 2] with dimension 1 being empty"),
    ("max1d_empty_length", lambda L: L.nn.functional.adaptive_max_pool1d(L.zeros(2, 3, 0), 3),
     "adaptive_max_pool1d(): " + EMPTY_DIM + ", but input has sizes [2, 3, 0] with dimension 2 being empty"),
    ("max2d_empty_height", lambda L: L.nn.functional.adaptive_max_pool2d(L.zeros(2, 3, 0, 2), 3),
     "adaptive_max_pool2d(): " + EMPTY_DIM + ", but input has sizes [2, 3, 0, 2] with dimension 2 being empty"),
    ("bce_logits_weight_grad", lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        L.zeros(2, 3), L.zeros(2, 3), weight=L.ones(3, requires_grad=True)),
     "The function 'binary_cross_entropy_with_logits' is not differentiable with respect to argument 'weight'. "
     "This input cannot have requires_grad True."),
    ("bce_logits_pos_weight_grad", lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        L.zeros(2, 3), L.zeros(2, 3), pos_weight=L.ones(3, requires_grad=True)),
     "The function 'binary_cross_entropy_with_logits' is not differentiable with respect to argument "
     "'pos_weight'. This input cannot have requires_grad True."),
    ("bce_weight_grad", lambda L: L.nn.functional.binary_cross_entropy(
        L.full((2, 3), 0.5), L.zeros(2, 3), weight=L.ones(3, requires_grad=True)),
     "The function 'binary_cross_entropy' is not differentiable with respect to argument 'weight'. "
     "This input cannot have requires_grad True."),
]


@pytest.mark.parametrize("call, message", [r[1:] for r in RAISES], ids=[r[0] for r in RAISES])
def test_raises_as_pytorch(call, message):
    with pytest.raises(RuntimeError) as ours:
        call(npgrad)
    assert str(ours.value) == message
    if HAS_TORCH:
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        assert str(theirs.value) == message


ANSWERS = [  # (id, call, shape): the same shapes (and values) in both
    ("avg1d_output_1_of_empty", lambda L: L.nn.functional.adaptive_avg_pool1d(L.zeros(2, 0), 1), (2, 1)),
    ("avg1d_output_0", lambda L: L.nn.functional.adaptive_avg_pool1d(L.ones(2, 3), 0), (2, 0)),
    ("avg2d_output_0_2", lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 2, 3, 3), (0, 2)), (1, 2, 0, 2)),
    ("max1d_output_0_indices", lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(2, 3), 0, True)[1], (2, 0)),
    ("bce_weight_grad_without_recording", lambda L: _no_grad(L, lambda: L.nn.functional.binary_cross_entropy_with_logits(
        L.zeros(2, 3), L.zeros(2, 3), weight=L.ones(3, requires_grad=True))), ()),
]


def _no_grad(L, fn):
    with L.no_grad():
        return fn()


@pytest.mark.parametrize("call, shape", [r[1:] for r in ANSWERS], ids=[r[0] for r in ANSWERS])
def test_answers_as_pytorch(call, shape):
    ours = call(npgrad)
    assert tuple(ours.shape) == shape
    if HAS_TORCH:
        theirs = call(torch)
        assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[-5:] == str(theirs.dtype)[-5:]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
