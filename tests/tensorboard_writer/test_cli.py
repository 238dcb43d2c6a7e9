"""`npgrad train ... --tensorboard DIR` logs loss and accuracy per step and per epoch."""
import numpy as np

from _read import accumulator

from npgrad import cli


def test_train_logs_to_tensorboard(tmp_path, capsys):
    logdir = tmp_path / "tb"
    assert cli.main(["train", "digits", "--epochs", "2", "--max-steps", "15", "--no-plot", "--progress", "off",
                     "--out", str(tmp_path / "out"), "--tensorboard", str(logdir)]) == 0
    assert f"wrote TensorBoard logs to {logdir}" in capsys.readouterr().out
    acc = accumulator(logdir)
    loss = acc.Scalars("train/loss")
    assert [e.step for e in loss] == list(range(1, 16))
    assert all(np.isfinite(e.value) and e.value > 0 for e in loss)
    assert all(0 <= e.value <= 100 for e in acc.Scalars("train/accuracy"))
    import json
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    test_acc = acc.Scalars("epoch/test_accuracy")
    assert [e.step for e in test_acc] == [12, 15]  # 1438 images / batch 128 = 12 steps per epoch
    np.testing.assert_allclose([e.value for e in test_acc], metrics["history"]["test_acc"], rtol=1e-6)
    np.testing.assert_allclose([e.value for e in acc.Scalars("epoch/test_loss")], metrics["history"]["test_loss"],
                               rtol=1e-6)
    assert len(acc.Scalars("epoch/train_loss")) == len(acc.Scalars("epoch/train_accuracy")) == 2
