"""The same calls on PyTorch's SummaryWriter and npgrad's give the same records (read back the same way)."""
import numpy as np
import pytest

from _read import accumulator, decode_png
from oracle import HAS_TORCH

import npgrad
from npgrad.utils.tensorboard import SummaryWriter

pytestmark = pytest.mark.skipif(not HAS_TORCH, reason="the comparison needs PyTorch's SummaryWriter")


def _log(lib, Writer, logdir):
    rng = np.random.default_rng(0)
    values = rng.normal(size=200).astype(np.float32)
    img = rng.random((3, 4, 6)).astype(np.float32)
    batch = rng.random((3, 1, 2, 2)).astype(np.float32)
    labels, preds = rng.integers(0, 2, 50), rng.random(50)
    with Writer(str(logdir)) as w:
        for step in range(3):
            w.add_scalar("loss", lib.tensor(float(step) / 3), step, walltime=100.0 + step)
        w.add_scalars("pair", {"a": 1.5, "b": -2.0}, 4, walltime=7.0)
        w.add_histogram("h_tf", lib.tensor(values), 1)
        w.add_histogram("h_auto", values, 1, bins="auto")
        w.add_image("img", lib.tensor(img), 0)
        w.add_images("batch", batch, 0)
        w.add_text("txt", "hello *world*", 2)
        w.add_pr_curve("pr", labels, preds, 0, num_thresholds=20)
        w.add_hparams({"lr": 0.01, "opt": "sgd", "n": 4}, {"m/acc": 0.5}, run_name="hp")
        w.add_embedding(lib.tensor(values[:12].reshape(4, 3)), metadata=["w", "x", "y", "z"], tag="e")


def test_records_match_pytorch(tmp_path):
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    from tensorboard.plugins.hparams import metadata
    _log(npgrad, SummaryWriter, tmp_path / "np")
    _log(pytest.importorskip("torch"), TorchWriter, tmp_path / "pt")
    a, b = accumulator(tmp_path / "np"), accumulator(tmp_path / "pt")
    ta, tb = a.Tags(), b.Tags()
    for kind in ("scalars", "histograms", "images", "tensors"):
        assert sorted(ta[kind]) == sorted(tb[kind]), kind
    assert [(e.step, e.wall_time, e.value) for e in a.Scalars("loss")] == \
        [(e.step, e.wall_time, e.value) for e in b.Scalars("loss")]
    for tag in ("h_tf", "h_auto"):
        assert a.Histograms(tag)[0].histogram_value == b.Histograms(tag)[0].histogram_value, tag
    for tag in ("img", "batch"):
        ia, ib = a.Images(tag)[0], b.Images(tag)[0]
        assert (ia.width, ia.height) == (ib.width, ib.height)
        np.testing.assert_array_equal(decode_png(ia.encoded_image_string), decode_png(ib.encoded_image_string))
    for tag in ("txt/text_summary", "pr"):
        assert a.Tensors(tag)[0].tensor_proto == b.Tensors(tag)[0].tensor_proto, tag
        assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag), tag
    for key in ("a", "b"):
        ea, eb = accumulator(tmp_path / "np" / f"pair_{key}"), accumulator(tmp_path / "pt" / f"pair_{key}")
        assert [(e.step, e.wall_time, e.value) for e in ea.Scalars("pair")] == \
            [(e.step, e.wall_time, e.value) for e in eb.Scalars("pair")]
    ha, hb = accumulator(tmp_path / "np" / "hp"), accumulator(tmp_path / "pt" / "hp")
    for tag in (metadata.EXPERIMENT_TAG, metadata.SESSION_START_INFO_TAG, metadata.SESSION_END_INFO_TAG):
        assert ha.SummaryMetadata(tag) == hb.SummaryMetadata(tag), tag
    for name in ("tensors.tsv", "metadata.tsv"):
        assert (tmp_path / "np/00000/e" / name).read_bytes() == (tmp_path / "pt/00000/e" / name).read_bytes()
    cfg_a = (tmp_path / "np/projector_config.pbtxt").read_text()
    assert cfg_a == (tmp_path / "pt/projector_config.pbtxt").read_text()
