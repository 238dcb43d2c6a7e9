"""torch.func.rearrange against PyTorch (values, shapes, gradients, errors) and against NumPy reshapes."""
import numpy as np
import pytest

import npgrad
from npgrad.func import rearrange
from oracle import HAS_TORCH, assert_close, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
A = np.random.default_rng(0).standard_normal((2, 3, 4))
PATTERNS = [
    ("b c h -> b (c h)", {}),
    ("b c (h w) -> b h w c", {"w": 2}),
    ("b c (h w) -> b h w c", {"h": 2}),
    ("b c (h w) -> (b w) c h", {"h": 2, "w": 2}),
    ("... h -> h ...", {}),
    ("b ... -> (...) b", {}),
    ("b c h -> h c b", {}),
    ("b c h -> b c h", {}),
    ("b (c) h -> (h b) c", {}),
]


@needs_torch
@pytest.mark.parametrize("pattern,lengths", PATTERNS)
def test_values_and_gradients_match_torch(pattern, lengths):
    def run(lib, fn):
        x = lib.tensor(A, requires_grad=True)
        out = fn(x, pattern, **lengths)
        w = lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))
        (out * w).sum().backward()
        return out, x.grad
    (o1, g1), (o2, g2) = run(npgrad, rearrange), run(torch, torch.func.rearrange)
    assert tuple(o1.shape) == tuple(o2.shape)
    assert_close(o1.detach().numpy(), o2.detach().numpy(), rtol=0, atol=0)
    assert_close(g1.numpy(), g2.numpy(), rtol=0, atol=0)


@needs_torch
def test_list_input_is_stacked_like_torch():
    ours = rearrange([npgrad.tensor(A), npgrad.tensor(A * 2)], "n b c h -> b n c h")
    theirs = torch.func.rearrange([torch.tensor(A), torch.tensor(A * 2)], "n b c h -> b n c h")
    assert_close(ours.numpy(), theirs.numpy(), rtol=0, atol=0)


@needs_torch
@pytest.mark.parametrize("pattern", ["b c -> b c", "b c h -> b c h q", "b c h -> b c", "b b h -> b h"])
def test_errors_match_torch(pattern):
    with pytest.raises(ValueError) as theirs:
        torch.func.rearrange(torch.tensor(A), pattern)
    with pytest.raises(ValueError) as ours:
        rearrange(npgrad.tensor(A), pattern)
    assert str(ours.value) == str(theirs.value)


def test_against_numpy():
    x = npgrad.tensor(A)
    np.testing.assert_array_equal(rearrange(x, "b c (h w) -> b h w c", w=2).numpy(),
                                  A.reshape(2, 3, 2, 2).transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(rearrange(x, "b c h -> (b c) h").numpy(), A.reshape(6, 4))
    with pytest.raises(ValueError, match="does not evenly fit"):
        rearrange(x, "b c (h w) -> b h w c", w=3)
