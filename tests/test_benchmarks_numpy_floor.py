"""``python -m benchmarks.numpy_floor``: the inference workloads written directly in NumPy. The floor is only
meaningful if it computes what the model computes, so its forward must reproduce npgrad's output."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import numpy_floor  # noqa: E402


@pytest.mark.parametrize("which", ["infer_mlp", "infer_gpt"])
def test_floor_forward_reproduces_npgrad_output(which):
    import npgrad
    from benchmarks import models
    forward, _ = numpy_floor.FLOORS[which]()
    model, step = getattr(models, which)(npgrad)
    ours = step().numpy()
    got = forward().reshape(ours.shape)
    np.testing.assert_allclose(got, ours, rtol=2e-4, atol=2e-5)


def test_tanh_floor_is_a_different_function_but_close():
    exact, _ = numpy_floor.FLOORS["infer_gpt"]()
    approx, _ = numpy_floor.FLOORS["infer_gpt_tanh"]()
    a, b = exact(), approx()
    assert not np.array_equal(a, b)
    np.testing.assert_allclose(a, b, rtol=1e-2, atol=1e-2)


def test_child_prints_a_time_and_checks_the_output():
    proc = subprocess.run([sys.executable, "-m", "benchmarks.numpy_floor", "--child", "infer_mlp", "3", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert 0 < float(proc.stdout.split()[-1]) < 1.0
