"""The oracles catch what they are meant to catch: a wrong gradient, a wrong value, a missing error.

Property tests that always pass prove nothing unless the checks can fail, so each oracle is shown a
deliberately broken operator. The finite-difference path is also run for real in a process where
``import torch`` fails, as on a machine without PyTorch.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import npgrad
from _fuzz import check, numeric_grads
from oracle import HAS_TORCH


class _SinWrongGrad(npgrad.autograd.Function):
    """sin with the derivative of -cos: a plausible but wrong backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -x.sin()


def _broken_sin(lib, x):
    return _SinWrongGrad.apply(x) if lib is npgrad else x.sin()


def test_finite_differences_catch_a_wrong_gradient():
    x = np.linspace(-1, 1, 5)
    check(lambda lib, t: t.sin(), [x], "fd", ref=np.sin)  # the right one passes
    with pytest.raises(AssertionError, match="finite-difference grad 0"):
        check(_broken_sin, [x], "fd", ref=np.sin)


def test_finite_differences_catch_a_wrong_value():
    with pytest.raises(AssertionError, match="forward vs NumPy"):
        check(lambda lib, t: t.sin(), [np.linspace(-1, 1, 5)], "fd", ref=np.cos)


def test_numeric_grads_of_a_known_function():
    x = np.array([0.3, -1.2])
    up = np.array([1.0, 2.0])
    (g,) = numeric_grads(lambda lib, t: t * t * t, [x], up)
    np.testing.assert_allclose(g, up * 3 * x ** 2, rtol=1e-8)


if HAS_TORCH:
    def test_torch_oracle_catches_wrong_gradient_value_and_error():
        x = np.linspace(-1, 1, 5)
        with pytest.raises(AssertionError, match="gradient of input 0"):
            check(_broken_sin, [x], "torch")
        with pytest.raises(AssertionError, match="output 0"):
            check(lambda lib, t: t.sin() if lib is npgrad else t.cos(), [x], "torch")
        with pytest.raises(AssertionError, match="PyTorch raises"):
            check(lambda lib, t: t.sum(dim=3) if lib is not npgrad else t.sum(), [x], "torch")
        with pytest.raises(AssertionError, match="dtype"):
            check(lambda lib, t: t.double() if lib is npgrad else t, [x.astype(np.float32)], "torch")


def test_property_tests_run_without_torch():
    """The reliability property tests collect and pass in a process where PyTorch cannot be imported:
    only the finite-difference mode is parametrised, and it runs."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    targets = [os.path.join(here, "test_fuzz_elementwise.py") + "::test_unary",
               os.path.join(here, "test_fuzz_chains.py") + "::test_random_chain"]
    code = ("import sys; sys.modules['torch'] = None\n"  # `import torch` raises ImportError from here on
            "import pytest\n"
            f"sys.exit(pytest.main(['-vv', '-p', 'no:cacheprovider', '-W', 'ignore', '--rootdir', {root!r}, "
            f"'-k', 'sin or exp or tanh or chain', *{targets!r}]))\n")
    env = dict(os.environ, HYPOTHESIS_PROFILE="ci")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          cwd=root)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = [line for line in proc.stdout.splitlines() if "::" in line and " PASSED" in line]
    assert any("test_random_chain[fd]" in r for r in results), proc.stdout[-2000:]
    assert any("test_unary[sin-fd]" in r or "test_unary[fd-sin]" in r for r in results), proc.stdout[-2000:]
    assert not any("torch]" in line or "-torch" in line for line in proc.stdout.splitlines() if "::" in line)
