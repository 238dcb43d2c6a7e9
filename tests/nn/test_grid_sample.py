"""grid_sample and affine_grid against PyTorch, finite differences and second derivatives (rows:
tests/opinfo/family_grid.py), PyTorch's errors and warnings, and NumPy definitions of both."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import DOUBLE_BACKWARD, FD, NO_UPCAST, PARITY, grad_samples, raised, samples
from _table_tests import (double_backward_test, expected_errors_test, finite_difference_test, no_upcast_test,
                          torch_parity_test)

if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "grid"))
    test_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, "grid")))
test_finite_differences = finite_difference_test(grad_samples(samples(FD, "grid")))
test_no_upcast = no_upcast_test(grad_samples(samples(NO_UPCAST, "grid")))
test_expected_errors = expected_errors_test(raised("grid"))

F = npgrad.nn.functional
R = np.random.default_rng(8)


@pytest.mark.parametrize("call", [
    lambda l: l.nn.functional.grid_sample(l.zeros(1, 1, 2, 2), l.zeros(1, 1, 1, 2)),
    lambda l: l.nn.functional.affine_grid(l.zeros(1, 2, 3), [1, 1, 2, 2]),
], ids=["grid_sample", "affine_grid"])
def test_align_corners_default_warns_like_torch(call):
    for lib in [npgrad] + ([torch] if HAS_TORCH else []):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            call(lib)


def _bilinear_reference(x, grid, align_corners):
    """grid_sample(mode='bilinear', padding_mode='zeros') written out per output location."""
    N, C, H, W = x.shape
    _, Ho, Wo, _ = grid.shape
    out = np.zeros((N, C, Ho, Wo))
    for n in range(N):
        for i in range(Ho):
            for j in range(Wo):
                gx, gy = grid[n, i, j]
                if align_corners:
                    ix, iy = (gx + 1) / 2 * (W - 1), (gy + 1) / 2 * (H - 1)
                else:
                    ix, iy = ((gx + 1) * W - 1) / 2, ((gy + 1) * H - 1) / 2
                x0, y0 = int(np.floor(ix)), int(np.floor(iy))
                for dy in (0, 1):
                    for dx in (0, 1):
                        xx, yy = x0 + dx, y0 + dy
                        w = (1 - abs(ix - xx)) * (1 - abs(iy - yy))
                        if 0 <= xx < W and 0 <= yy < H:
                            out[n, :, i, j] += w * x[n, :, yy, xx]
    return out


@pytest.mark.parametrize("align_corners", [False, True])
def test_bilinear_matches_numpy_definition(align_corners):
    x, grid = R.standard_normal((2, 3, 4, 5)), R.uniform(-1.2, 1.2, (2, 3, 2, 2))
    out = F.grid_sample(npgrad.tensor(x), npgrad.tensor(grid), align_corners=align_corners).numpy()
    np.testing.assert_allclose(out, _bilinear_reference(x, grid, align_corners), rtol=1e-12, atol=1e-14)


def test_identity_affine_grid_samples_the_input_back():
    x = npgrad.tensor(R.standard_normal((2, 3, 4, 5)))
    theta = npgrad.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    for ac in (False, True):
        grid = F.affine_grid(theta, list(x.shape), align_corners=ac)
        for mode in ("bilinear", "nearest", "bicubic"):
            back = F.grid_sample(x, grid, mode=mode, align_corners=ac)
            np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)


def test_affine_grid_matches_numpy_definition():
    theta = R.standard_normal((2, 3, 4))
    grid = F.affine_grid(npgrad.tensor(theta), [2, 1, 2, 3, 4], align_corners=True).numpy()
    zs, ys, xs = np.linspace(-1, 1, 2), np.linspace(-1, 1, 3), np.linspace(-1, 1, 4)
    for n in range(2):
        for d, z in enumerate(zs):
            for h, y in enumerate(ys):
                for w, xv in enumerate(xs):
                    np.testing.assert_allclose(grid[n, d, h, w], theta[n] @ [xv, y, z, 1.0], rtol=1e-12)


def test_nearest_gives_the_grid_a_zero_gradient():
    x = npgrad.tensor(R.standard_normal((1, 1, 3, 3)), requires_grad=True)
    g = npgrad.tensor(R.uniform(-1, 1, (1, 2, 2, 2)), requires_grad=True)
    F.grid_sample(x, g, mode="nearest", align_corners=False).sum().backward()
    assert g.grad is not None and not g.grad.numpy().any()
    assert x.grad.numpy().sum() == 4.0  # each of the 4 locations reads one input value


def test_unit_size_align_corners_warns_like_torch():
    for lib in [npgrad] + ([torch] if HAS_TORCH else []):
        with pytest.warns(UserWarning, match="affine_grid behavior has changed for unit-size grids"):
            g = lib.nn.functional.affine_grid(lib.ones(1, 2, 3), [1, 1, 1, 2], align_corners=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert tuple(g.shape) == (1, 1, 2, 2)
