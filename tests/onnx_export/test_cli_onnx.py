"""`npgrad train mnist --onnx FILE` writes the trained model as ONNX, which onnxruntime runs to the same logits."""
import numpy as np
import pytest

import npgrad

onnx = pytest.importorskip("onnx", reason="--onnx writes through the optional onnx package")
ort = pytest.importorskip("onnxruntime", reason="the exported file is run in the optional onnxruntime")


def test_train_mnist_exports_onnx(tmp_path, monkeypatch, capsys):
    from npgrad import cli
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("NPGRAD_DATA", str(empty))      # no MNIST files: the embedded digits stand in
    monkeypatch.setenv("XDG_CACHE_HOME", str(empty))
    out, path = tmp_path / "run", tmp_path / "mnist.onnx"
    assert cli.main(["train", "mnist", "--max-steps", "3", "--no-plot", "--progress", "off", "--out", str(out),
                     "--onnx", str(path)]) == 0
    assert f"exported the model to ONNX: {path}" in capsys.readouterr().out
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    assert [i.name for i in proto.graph.input] == ["input"] and [o.name for o in proto.graph.output] == ["logits"]
    model = npgrad.nn.Sequential(npgrad.nn.Linear(64, 256), npgrad.nn.ReLU(), npgrad.nn.Linear(256, 128),
                                 npgrad.nn.ReLU(), npgrad.nn.Linear(128, 10))
    model.load_state_dict(npgrad.load(str(out / "model.npgrad")))
    x = np.random.default_rng(0).standard_normal((7, 64)).astype(np.float32)
    got = ort.InferenceSession(str(path)).run(None, {"input": x})[0]
    with npgrad.no_grad():
        want = model(npgrad.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_onnx_flag_without_onnx_is_refused_before_training(tmp_path, monkeypatch):
    import importlib.util
    from npgrad import cli
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnx" else real(name, *a))
    with pytest.raises(SystemExit, match="--onnx needs the onnx package"):
        cli.main(["train", "digits", "--onnx", str(tmp_path / "m.onnx"), "--out", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()
