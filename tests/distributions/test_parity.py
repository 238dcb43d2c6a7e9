"""log_prob, entropy, cdf, icdf, moments and log-det-Jacobians against PyTorch (values, dtypes and gradients
w.r.t. parameters and values, float32 and float64), and against central finite differences (no torch needed)."""
import dataclasses

import numpy as np
import pytest

from _cases import CASES
from oracle import HAS_TORCH, check_against_torch, check_finite_differences

DIST_TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}
# Gradients through digamma go through trigamma (polygamma(1)), where npgrad's series and PyTorch's differ by up to
# ~1e-9 relative in float64 (the operator's own accuracy, checked in its own tests).
TRIGAMMA = {"Gamma.entropy", "Chi2.entropy", "Beta.entropy", "Dirichlet.entropy", "kl.Gamma.Gamma", "kl.Beta.Beta",
            "kl.Dirichlet.Dirichlet", "StudentT.entropy",
            "InverseGamma.entropy", "Kumaraswamy.entropy_moments",
            "LKJCholesky.log_prob"}


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case,dtype", [(c, d) for c in CASES for d in c.dtypes],
                         ids=[f"{c}-{np.dtype(d).name}" for c in CASES for d in c.dtypes])
def test_matches_torch(case, dtype):
    if case.name.startswith("VonMises"):
        # torch evaluates log I0 / I1 with a rational approximation good to ~1e-8 relative (its derivative to
        # ~1e-6); npgrad uses its i0e/i1e, which the finite-difference test checks at 1e-6
        tol = DIST_TOL[np.float32] if dtype is np.float32 else dict(rtol=1e-7, atol=1e-8)
        gtol = DIST_TOL[np.float32] if dtype is np.float32 else dict(rtol=1e-5, atol=1e-8)
        check_against_torch(dataclasses.replace(case, grad_tol=gtol), dtype, tol=tol)
        return
    if case.name in TRIGAMMA and dtype is np.float64:
        case = dataclasses.replace(case, grad_tol=dict(rtol=1e-8, atol=1e-10))
    check_against_torch(case, dtype, tol=DIST_TOL[dtype])


@pytest.mark.parametrize("case", [c for c in CASES if c.fd], ids=str)
def test_finite_differences(case):
    check_finite_differences(case)
