"""The demo scripts in examples/ run and reproduce the numbers worked out by hand in their docstrings."""
import importlib.util
import math
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_neuron_values_and_gradients(tmp_path, capsys):
    out = load("neuron").main(["--graph", str(tmp_path / "neuron.dot")])
    # o = tanh(0.8814) = 1/sqrt(2); do/dn = 1 - o**2 = 0.5, then each product passes it on scaled by
    # the other factor: do/dx1 = w1 * 0.5, do/dw1 = x1 * 0.5, and so on. (float32 tolerances)
    assert math.isclose(out["o"], 1 / math.sqrt(2), rel_tol=1e-6)
    assert math.isclose(out["x1"], -1.5, rel_tol=1e-6)
    assert math.isclose(out["w1"], 1.0, rel_tol=1e-6)
    assert math.isclose(out["x2"], 0.5, rel_tol=1e-6)
    assert out["w2"] == 0.0
    assert math.isclose(out["b"], 0.5, rel_tol=1e-6)
    dot = (tmp_path / "neuron.dot").read_text()
    for word in ("Mul", "Add", "Tanh", "x1", "x2", "w1", "w2", '"b', "o"):
        assert word in dot
    assert "o = 0.7071" in capsys.readouterr().out


def test_neuron_picture_without_graphviz_falls_back_to_dot_text(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    out = load("neuron").main(["--graph", str(tmp_path / "neuron.svg")])
    assert out["graph"].endswith(".svg.dot")
    assert "digraph" in pathlib.Path(out["graph"]).read_text()


def test_scalar_walkthrough_matches_hand_derivations():
    r = load("scalar_walkthrough").main([])
    assert r["L"] == (21.0, 10.0, 3.0)          # L = a*b + a**2 at a=3, b=4
    assert r["z"] == (8.0, 4.0, 2.0)            # z = x*y + x at x=2, y=3
    assert r["f"] == (2.0, 0.5, -1.5)           # f = (p - q) / q at p=6, q=2
    assert math.isclose(r["g"][0], math.log(2), rel_tol=1e-6) and math.isclose(r["g"][1], 0.5, rel_tol=1e-6)
    assert r["accumulated"] == 20.0


def test_tiny_mlp_fits_the_four_points():
    r = load("tiny_mlp").main(["--quiet"])
    losses = r["losses"]
    assert len(losses) == 200
    assert losses[-1] < 0.05
    assert losses[-1] < losses[0]
    # The signs of the predictions match the targets.
    assert [math.copysign(1, p) for p in r["predictions"]] == [1.0, -1.0, -1.0, 1.0]


def test_tiny_mlp_runs_as_a_script_with_a_smoke_budget():
    done = subprocess.run([sys.executable, str(EXAMPLES / "tiny_mlp.py"), "--steps", "3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "step    2  loss" in done.stdout


@pytest.mark.parametrize("script", ["neuron.py", "scalar_walkthrough.py"])
def test_demo_scripts_run(script):
    done = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_learn_filter_recovers_the_low_pass_response():
    r = load("learn_filter").main(["--steps", "150"])
    assert r["losses"][-1] < r["losses"][0] / 50
    assert r["response_err"] < 0.05 and r["impulse_err"] < 0.02
    assert r["snr_learned"] > r["snr_observed"] + 10  # the learned filter removes most of the observation noise
