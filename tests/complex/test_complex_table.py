"""Runs the complex op table (tests/opinfo/family_complex.py): every complex sample in complex64 and complex128
against PyTorch (values, dtypes, gradients) and, in complex128, against complex finite differences; the exact rows
and the error rows against PyTorch."""
import zlib

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import EXACT, RAISES_LIKE_TORCH, samples
from _table_tests import errors_like_torch_test
from family_complex import COMPLEX, ERROR_ROWS, OTHER_EXACT, OTHER_SAMPLES
from _complex_oracle import check_against_torch, check_finite_differences, make_input

F = "complex"
CASES = samples(COMPLEX, F) + [s for s in OTHER_SAMPLES]
FD_CASES = [s for s in CASES if COMPLEX + "_fd" in s.checks]
DTYPES = [np.complex64, np.complex128]


def _arrays(case, dtype):
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))  # str hashes change per process: crc32 does not
    return [make_input(rng, shape, dtype, kind) for shape, kind in case.inputs]


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle for values and gradients")
@pytest.mark.parametrize("dtype", DTYPES, ids=["complex64", "complex128"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_torch(case, dtype):
    check_against_torch(case.fn, _arrays(case, dtype), dtype)


@pytest.mark.parametrize("case", FD_CASES, ids=lambda c: c.name)
def test_finite_differences(case):
    check_finite_differences(case.fn, _arrays(case, np.complex128))


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [o for part in out for o in _flatten(part)]
    return [out]


if HAS_TORCH:
    EXACT_ROWS = {**{c.name: c.fn for c in samples(EXACT, F)}, **OTHER_EXACT}
    test_errors_match_torch = errors_like_torch_test({c.name: c.fn for c in samples(RAISES_LIKE_TORCH, F) + ERROR_ROWS})

    @pytest.mark.parametrize("name", sorted(EXACT_ROWS))
    def test_exact_results_match_torch(name):
        got_n, got_t = _flatten(EXACT_ROWS[name](npgrad)), _flatten(EXACT_ROWS[name](torch))
        assert len(got_n) == len(got_t), name
        for a, b in zip(got_n, got_t):
            if isinstance(a, npgrad.Tensor):
                an, bn = (x.detach().resolve_conj().resolve_neg().numpy() for x in (a, b))
                assert a.is_conj() == b.is_conj() and a.is_neg() == b.is_neg(), name
                assert an.dtype == bn.dtype and an.shape == bn.shape, (name, an, bn)
                np.testing.assert_allclose(an, bn, rtol=1e-6, atol=0, equal_nan=True, err_msg=name)
            else:
                assert a == b, (name, a, b)
