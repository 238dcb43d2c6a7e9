"""What a second backward finds after the first freed the graph: PyTorch frees saved tensors, not the
small non-tensor values a node keeps (dims, pads) nor a custom Function's ctx attributes. npgrad frees
the arrays a built-in Op saved, on ctx or through save_for_backward, and nothing else."""
import pytest

import npgrad
import npgrad.nn.functional as NF
from oracle import HAS_TORCH, torch


def _scale_function(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k  # a plain attribute: never freed
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
    return Scale


def _functional(lib):
    return NF if lib is npgrad else torch.nn.functional


# name -> (graph builder, whether a second backward works in PyTorch)
CASES = {
    "mul_saves_operand": (lambda lib, x: (x * x).sum(), False),
    "relu_saves_output": (lambda lib, x: _functional(lib).relu(x).sum(), False),
    "pad_keeps_only_sizes": (lambda lib, x: _functional(lib).pad(x, (1, 1)).sum(), True),
    "mean_keeps_only_dims": (lambda lib, x: x.mean(0).sum(), True),
    "custom_function_attribute": (lambda lib, x: _scale_function(lib).apply(x, 2.0).sum(), True),
}


def _second_backward(lib, build):
    x = lib.ones(2, 3, requires_grad=True)
    y = build(lib, x)
    y.backward()
    try:
        y.backward()
    except RuntimeError as e:
        assert "backward through the graph a second time" in str(e)
        return False
    return True


@pytest.mark.parametrize("name", CASES)
def test_second_backward_without_retain_graph(name):
    build, works_in_torch = CASES[name]
    assert _second_backward(npgrad, build) == works_in_torch
    if HAS_TORCH:
        assert _second_backward(torch, build) == works_in_torch
