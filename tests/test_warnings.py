"""npgrad warns where PyTorch warns, with PyTorch's message, and is silent where PyTorch is.

The parity tests call PyTorch's deprecated spellings and degenerate inputs on purpose (both libraries
then warn); pyproject.toml filters exactly these messages for the rest of the suite, and this file is
where they are checked instead. Each case is an expression in ``lib``; PyTorch's side runs in one fresh
process because many of its warnings fire once per process (TORCH_WARN_ONCE).
"""
import functools
import json
import re
import subprocess
import sys
import warnings

import pytest

import npgrad
from oracle import HAS_TORCH

WARNS = {
    "var_dof": ("lib.ones(1).var()", r"var\(\): degrees of freedom is <= 0"),
    "std_dof": ("lib.ones(2, 1).std(1)", r"std\(\): degrees of freedom is <= 0"),
    "var_mean_dof": ("lib.var_mean(lib.zeros(0, 3), 0)", r"var_mean\(\): degrees of freedom is <= 0"),
    "var_of_empty": ("lib.zeros(0, 2).var(0, correction=0)", r"var\(\): degrees of freedom is <= 0"),
    "std_mean_dof": ("lib.std_mean(lib.ones(3), correction=3)", r"std_mean\(\): degrees of freedom"),
    "cross_no_dim": ("lib.cross(lib.ones(2, 3), lib.ones(2, 3))",
                     r"Using torch.cross without specifying the dim arg is deprecated"),
    "meshgrid_no_indexing": ("lib.meshgrid(lib.ones(2), lib.ones(3))",
                             r"torch.meshgrid: in an upcoming release, it will be required to pass the indexing"),
    "tensor_of_tensor": ("lib.tensor(lib.ones(2))", r"To copy construct from a tensor"),
    "qr": ("lib.qr(lib.eye(2))", r"torch.qr is deprecated in favor of torch.linalg.qr"),
    "cholesky": ("lib.cholesky(lib.eye(2))", r"torch.cholesky is deprecated"),
    "lu": ("lib.lu(lib.eye(2))", r"torch.lu is deprecated in favor of torch.linalg.lu_factor"),
    "lu_solve": ("lib.lu_solve(lib.ones(2, 1), *lib.linalg.lu_factor(lib.eye(2)))", r"torch.lu_solve is deprecated"),
    "triangular_solve": ("lib.triangular_solve(lib.ones(2, 1), lib.eye(2))", r"torch.triangular_solve is deprecated"),
    "chain_matmul": ("lib.chain_matmul(lib.eye(2), lib.eye(2))", r"torch.chain_matmul is deprecated"),
    "nuclear_norm": ("lib.nuclear_norm(lib.eye(2))", r"at::nuclear_norm is deprecated"),
    "frobenius_norm": ("lib.frobenius_norm(lib.eye(2), (0, 1))", r"at::frobenius_norm is deprecated"),
    "cov_dof": ("lib.cov(lib.ones(2, 1))", r"cov\(\): degrees of freedom is <= 0"),
}
QUIET = {
    "var_enough_dof": "lib.ones(2).var()",
    "std_correction_0": "lib.ones(1).std(correction=0)",
    "cross_with_dim": "lib.cross(lib.ones(2, 3), lib.ones(2, 3), dim=1)",
    "meshgrid_ij": "lib.meshgrid(lib.ones(2), lib.ones(3), indexing='ij')",
    "mean_of_empty": "lib.zeros(0, 2).mean(0)",
    "cov_enough_dof": "lib.cov(lib.ones(2, 3))",
    "linalg_lu_factor": "lib.linalg.lu_factor(lib.eye(2))",
    "prod_with_nan_and_inf": "lib.tensor([float('inf'), 0.0, float('nan')]).prod()",
    "cumprod_with_inf": "lib.tensor([float('inf'), 0.0]).cumprod(0)",
    "var_with_inf": "lib.tensor([float('inf'), 1.0, -float('inf')]).var(0)",
    "std_with_inf_backward": "lib.tensor([float('inf'), 1.0], requires_grad=True).std(correction=0).backward()",
    "var_with_nan_backward": "lib.tensor([1.0, float('nan')], requires_grad=True).var().backward()",
    "mean_of_empty_backward": "lib.zeros(0, 2, requires_grad=True).mean(0).sum().backward()",
}

_COLLECT = """
import json, sys, warnings
import torch as lib
out = {}
for name, expr in json.loads(sys.argv[1]).items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(expr)
    out[name] = [str(w.message).split(" (Triggered internally")[0] for w in caught]
print(json.dumps(out))
"""


@functools.lru_cache(maxsize=None)
def _torch_messages():
    exprs = {name: expr for name, (expr, _) in WARNS.items()}
    run = subprocess.run([sys.executable, "-c", _COLLECT, json.dumps(exprs)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def _npgrad_messages(expr):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(expr, {"lib": npgrad})
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("name", WARNS)
def test_warns_like_pytorch(name):
    expr, pattern = WARNS[name]
    got = _npgrad_messages(expr)
    assert any(re.match(pattern, m) for m in got), f"{name}: npgrad warned {got}, expected /{pattern}/"
    if HAS_TORCH:
        expected = [m for m in _torch_messages()[name] if re.match(pattern, m)]
        assert expected, f"{name}: PyTorch no longer warns /{pattern}/"
        assert expected[0] in got, f"{name}: npgrad warned {got}, PyTorch {expected}"


@pytest.mark.parametrize("name", QUIET)
def test_silent_like_pytorch(name):
    # No NumPy "Mean of empty slice" or "invalid value encountered" reaches the user: PyTorch is silent.
    # (Every warning is recorded: npgrad installs no warnings filter; its kernels run with NumPy's floating-point
    # flags ignored, npgrad._fp_quiet, and tests/reliability/test_fp_warnings.py sweeps the operators.)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(QUIET[name], {"lib": npgrad})
    assert not caught, f"{name}: npgrad warned {[str(w.message) for w in caught]}"
