"""copysign, logaddexp, gcd/lcm, ldexp/frexp, heaviside, nextafter, rad2deg, isin, renorm, the arrangement functions
(cartesian_prod ... rot90), trapezoid/gradient, histograms, predicates and poisson/binomial: the rows live in
tests/opinfo/family_math_extra.py. With PyTorch: values, dtypes, gradients and errors against it; without:
finite differences and the NumPy references below."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import DOUBLE_BACKWARD, EXACT, FD, PARITY, RAISES_LIKE_TORCH, grad_samples, samples
from _table_tests import (double_backward_test, errors_like_torch_test, finite_difference_test, no_upcast_test,
                          torch_parity_test)

F = "math_extra"
CASES = samples(PARITY, F)
GRAD_CASES = grad_samples(samples(FD, F))

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)
    test_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, F)))
    test_errors_match_torch = errors_like_torch_test({c.name: c.fn for c in samples(RAISES_LIKE_TORCH, F)})
test_finite_differences = finite_difference_test(GRAD_CASES)
test_float32_gradients_stay_float32 = no_upcast_test(GRAD_CASES)


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [o for part in out for o in _flatten(part)]
    return [out]


def _same(a, b, name):
    if HAS_TORCH and isinstance(b, torch.Tensor) or isinstance(a, npgrad.Tensor):
        an, bn = a.detach().numpy(), b.detach().numpy()
        assert an.shape == bn.shape and an.dtype == bn.dtype, (name, an, bn)
        np.testing.assert_allclose(an, bn, rtol=1e-6, atol=0, equal_nan=True, err_msg=name)
    elif isinstance(b, (tuple, list)) or hasattr(b, "__len__") and not isinstance(b, str):
        assert tuple(a) == tuple(b), (name, a, b)
    else:
        assert a == b or str(a).split(".")[-1] == str(b).split(".")[-1], (name, a, b)


if HAS_TORCH:
    EXACT_ROWS = {c.name: c.fn for c in samples(EXACT, F)}

    @pytest.mark.parametrize("name", sorted(EXACT_ROWS))
    def test_exact_results_match_torch(name):
        got_n, got_t = _flatten(EXACT_ROWS[name](npgrad)), _flatten(EXACT_ROWS[name](torch))
        assert len(got_n) == len(got_t), name
        for a, b in zip(got_n, got_t):
            _same(a, b, name)

    @pytest.mark.parametrize("expr", ["L.copysign(x, -x)", "L.logaddexp(x, x)", "L.logaddexp2(x, x)",
                                      "L.fix(x)"])
    def test_node_names(expr):
        names = [eval(expr, {"L": L, "x": L.tensor([1.0, -2.0, 3.0], requires_grad=True)}).grad_fn.name()
                 for L in (npgrad, torch)]
        assert names[0] == names[1]


# -- NumPy references: the non-differentiable functions mean something without PyTorch ------------------------------

def test_integer_and_bit_functions_against_numpy():
    a, b = np.array([-4, 0, 0, 12, 7, 9]), np.array([6, 0, -3, 18, 5, -12])
    np.testing.assert_array_equal(npgrad.gcd(npgrad.tensor(a), npgrad.tensor(b)).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(npgrad.lcm(npgrad.tensor(a), npgrad.tensor(b)).numpy(), np.lcm(a, b))
    x = np.array([1.5, -2.0, 0.0, 3e-40, np.inf], np.float32)
    m, e = npgrad.frexp(npgrad.tensor(x))
    nm, ne = np.frexp(x)
    np.testing.assert_array_equal(m.numpy(), nm)
    np.testing.assert_array_equal(e.numpy(), ne.astype(np.int32))
    y = np.array([1.0, -1.0, 0.0], np.float32)
    np.testing.assert_array_equal(npgrad.nextafter(npgrad.tensor(x[:3]), npgrad.tensor(y)).numpy(), np.nextafter(x[:3], y))
    np.testing.assert_array_equal(npgrad.heaviside(npgrad.tensor(y), npgrad.tensor([0.25])).numpy(),
                                  np.heaviside(y, 0.25).astype(np.float32))
    np.testing.assert_array_equal(npgrad.copysign(npgrad.tensor(y), -1.0).numpy(), np.copysign(y, -1.0))
    np.testing.assert_array_equal(npgrad.isin(npgrad.tensor(a), npgrad.tensor([0, 7])).numpy(), np.isin(a, [0, 7]))


def test_arrangements_against_numpy():
    m = np.arange(24.0).reshape(2, 3, 4)
    t = npgrad.tensor(m)
    for k in range(-4, 5):
        np.testing.assert_array_equal(npgrad.rot90(t, k, (1, 2)).numpy(), np.rot90(m, k, (1, 2)))
    for fn, ref in [(npgrad.hsplit, np.hsplit), (npgrad.vsplit, np.vsplit), (npgrad.dsplit, np.dsplit)]:
        for got, want in zip(fn(t, 2 if fn is not npgrad.hsplit else 3), ref(m, 2 if fn is not npgrad.hsplit else 3)):
            np.testing.assert_array_equal(got.numpy(), want)
    v = npgrad.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(npgrad.combinations(v, 2).numpy(), [[1, 2], [1, 3], [2, 3]])
    np.testing.assert_array_equal(npgrad.cartesian_prod(v, v[:2]).numpy(),
                                  np.array(np.meshgrid([1, 2, 3], [1, 2], indexing="ij")).reshape(2, -1).T)
    np.testing.assert_array_equal(npgrad.column_stack([v, v]).numpy(), np.column_stack([v.numpy()] * 2))
    np.testing.assert_array_equal(npgrad.dstack([v, v]).numpy(), np.dstack([v.numpy()] * 2))
    np.testing.assert_array_equal(npgrad.atleast_3d(v).numpy(), np.atleast_3d(v.numpy()))
    np.testing.assert_array_equal(npgrad.diagflat(npgrad.tensor([[1, 2], [3, 4]]), 1).numpy(),
                                  np.diagflat([[1, 2], [3, 4]], 1))
    idx = np.array([[1, 5], [2, 3]])
    for got, want in zip(npgrad.unravel_index(npgrad.tensor(idx), (2, 3)), np.unravel_index(idx, (2, 3))):
        np.testing.assert_array_equal(got.numpy(), want)


def test_integration_and_histograms_against_numpy():
    rng = np.random.default_rng(0)
    y, x = rng.standard_normal((3, 6)), np.sort(rng.uniform(0, 5, 6))
    np.testing.assert_allclose(npgrad.trapezoid(npgrad.tensor(y), npgrad.tensor(x)).numpy(), np.trapezoid(y, x)
                               if hasattr(np, "trapezoid") else np.trapz(y, x))
    for edge_order in (1, 2):
        for spacing, ref_spacing in [(0.7, [0.7]), ((npgrad.tensor(x),), [x])]:
            got = npgrad.gradient(npgrad.tensor(y), spacing=spacing, dim=1, edge_order=edge_order)[0]
            np.testing.assert_allclose(got.numpy(), np.gradient(y, *ref_spacing, axis=1, edge_order=edge_order))
    s = rng.standard_normal(50)
    h, e = npgrad.histogram(npgrad.tensor(s), 7)
    nh, ne = np.histogram(s, 7)
    np.testing.assert_array_equal(h.numpy(), nh)
    np.testing.assert_allclose(e.numpy(), ne)
    pts = rng.standard_normal((40, 2))
    h, edges = npgrad.histogramdd(npgrad.tensor(pts), [3, 4], density=True)
    nh, nedges = np.histogramdd(pts, [3, 4], density=True)
    np.testing.assert_allclose(h.numpy(), nh)
