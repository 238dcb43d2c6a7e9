"""nn.functional's linear maps, convolutions, pooling, normalizations, padding, embeddings, resampling, distances
and attention against PyTorch (outputs and input gradients, float32 and float64), finite differences, exact
indices and PyTorch's errors."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import EXACT, FD, PARITY, raised, samples
from _table_tests import expected_errors_test, finite_difference_test, torch_parity_test

# The rows live in the op table: tests/opinfo/family_conv.py, family_pool.py, family_norm.py, family_nn_misc.py.
FAMILIES = ("conv", "pool", "norm", "nn_misc")


def _samples(check):
    return [s for family in FAMILIES for s in samples(check, family)]


if HAS_TORCH:
    test_functional_matches_torch = torch_parity_test(_samples(PARITY))
test_functional_finite_differences = finite_difference_test([c for c in _samples(FD) if c.fd])
test_expected_errors = expected_errors_test([r for family in FAMILIES for r in raised(family)])

if HAS_TORCH:
    EXACT_CALLS = {c.name: c.fn for c in _samples(EXACT)}

    def _flatten(out):
        return [o for part in out for o in _flatten(part)] if isinstance(out, tuple) else [out]

    @pytest.mark.parametrize("name", sorted(EXACT_CALLS))
    def test_exact_results_match_torch(name):
        got_n, got_t = _flatten(EXACT_CALLS[name](npgrad)), _flatten(EXACT_CALLS[name](torch))
        assert len(got_n) == len(got_t)
        for a, b in zip(got_n, got_t):
            an, bn = a.numpy(), b.numpy()
            assert an.shape == bn.shape and an.dtype == bn.dtype, (an, bn)
            np.testing.assert_array_equal(an, bn)
