"""SummaryWriter's records, read back with TensorBoard's event reader and checked against NumPy."""
import os
import time

import numpy as np
import pytest

from _read import accumulator, decode_png, events

import npgrad
from npgrad.utils.tensorboard import SummaryWriter
from npgrad.utils.tensorboard._summary import tensorflow_bins


def test_scalars_steps_and_wall_times(tmp_path):
    t0 = time.time()
    with SummaryWriter(tmp_path) as w:
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalar("loss", npgrad.tensor(0.125), 5, walltime=1234.5)
        w.add_scalar("new", 2.5, 0, new_style=True)
        w.add_scalar("dbl", 0.1, 0, new_style=True, double_precision=True)
    acc = accumulator(tmp_path)
    got = acc.Scalars("loss")
    assert [e.step for e in got] == [0, 1, 2, 3, 4, 5]
    np.testing.assert_allclose([e.value for e in got], [1, .5, 1 / 3, .25, .2, .125], rtol=1e-7)
    assert all(t0 - 1 <= e.wall_time <= time.time() + 1 for e in got[:5])
    assert got[5].wall_time == 1234.5
    from tensorboard.util import tensor_util
    assert tensor_util.make_ndarray(acc.Tensors("new")[0].tensor_proto) == np.float32(2.5)
    dbl = tensor_util.make_ndarray(acc.Tensors("dbl")[0].tensor_proto)
    assert dbl.dtype == np.float64 and dbl == 0.1


def test_scalar_needs_one_element(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(AssertionError, match="one element"):
        w.add_scalar("x", np.ones(3))


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run/a", {"sin": np.sin(step), "cos": np.cos(step)}, step)
    for key, fn in (("sin", np.sin), ("cos", np.cos)):
        got = accumulator(tmp_path / f"run_a_{key}").Scalars("run/a")
        np.testing.assert_allclose([e.value for e in got], fn(np.arange(3)), rtol=1e-6, atol=1e-7)
        assert [e.step for e in got] == [0, 1, 2]


def _numpy_buckets(values, bins):
    """The buckets PyTorch stores: right edges of the occupied range, plus one empty bucket left of it."""
    counts, edges = np.histogram(values, bins=bins)
    nz = np.nonzero(counts)[0]
    lo, hi = nz[0], nz[-1] + 1
    counts = counts[lo - 1:hi] if lo > 0 else np.concatenate([[0], counts[:hi]])
    return edges[lo:hi + 1], counts


@pytest.mark.parametrize("bins", ["tensorflow", "auto", 7, "fd"])
def test_histogram_buckets_match_numpy(tmp_path, bins):
    rng = np.random.default_rng(0)
    values = rng.normal(size=(40, 5)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", npgrad.from_numpy(values), 3, bins=bins)
    (ev,) = accumulator(tmp_path).Histograms("w")
    h = ev.histogram_value
    flat = values.astype(float).ravel()
    assert ev.step == 3 and h.num == flat.size and sum(h.bucket) == flat.size
    assert (h.min, h.max) == (flat.min(), flat.max())
    np.testing.assert_allclose([h.sum, h.sum_squares], [flat.sum(), flat @ flat], rtol=1e-12)
    np_bins = tensorflow_bins() if bins == "tensorflow" else bins
    limits, counts = _numpy_buckets(flat, np_bins)
    np.testing.assert_array_equal(h.bucket, counts)
    np.testing.assert_allclose(h.bucket_limit, limits, rtol=1e-15)


def test_tensorflow_bins_are_tensorboards_exponential_edges():
    b = np.array(tensorflow_bins())
    assert b[len(b) // 2] == 0 and np.all(np.diff(b) > 0)
    pos = b[len(b) // 2 + 1:]
    assert pos[0] == 1e-12 and pos[-1] < 1e20 <= pos[-1] * 1.1
    np.testing.assert_allclose(pos[1:] / pos[:-1], 1.1)
    np.testing.assert_array_equal(b[:len(b) // 2], -pos[::-1])


def test_histogram_max_bins_merges_buckets(tmp_path):
    values = np.arange(100.0)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", values, 0, bins=20, max_bins=5)
    h = accumulator(tmp_path).Histograms("h")[0].histogram_value
    assert sum(h.bucket) == 100 and list(h.bucket) == [0, 20, 20, 20, 20, 20]
    np.testing.assert_allclose(h.bucket_limit, [0, 19.8, 39.6, 59.4, 79.2, 99])


def test_histogram_raw(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_histogram_raw("r", 0, 3, 6, 9, 19, [1, 2, 3], [2, 2, 2], global_step=1)
        with pytest.raises(ValueError, match="len\\(bucket_limits\\)"):
            w.add_histogram_raw("r", 0, 3, 6, 9, 19, [1, 2], [2, 2, 2])
    h = accumulator(tmp_path).Histograms("r")[0].histogram_value
    assert list(h.bucket) == [2, 2, 2] and h.sum_squares == 19


def _image(acc, tag):
    (ev,) = acc.Images(tag)
    return ev, decode_png(ev.encoded_image_string)


def test_images_decode_to_the_logged_pixels(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.random((3, 5, 7)).astype(np.float32)
    hwc_u8 = rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)
    hw = rng.random((3, 4))
    rgba = rng.random((4, 2, 3))
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw", npgrad.from_numpy(chw), 2)
        w.add_image("hwc", hwc_u8, 0, dataformats="HWC")
        w.add_image("hw", hw, 0, dataformats="HW")
        w.add_image("rgba", rgba, 0)
        w.add_image("clip", np.full((1, 2, 2), 1.7), 0)
    acc = accumulator(tmp_path)
    ev, px = _image(acc, "chw")
    assert (ev.step, ev.width, ev.height) == (2, 7, 5)
    np.testing.assert_array_equal(px, (chw.transpose(1, 2, 0) * 255).astype(np.uint8))
    np.testing.assert_array_equal(_image(acc, "hwc")[1], hwc_u8)
    u8 = lambda a: (a.astype(np.float32) * np.float32(255)).astype(np.uint8)  # noqa: E731  (truncation, as PyTorch)
    np.testing.assert_array_equal(_image(acc, "hw")[1], np.stack([u8(hw)] * 3, 2))
    np.testing.assert_array_equal(_image(acc, "rgba")[1], u8(rgba.transpose(1, 2, 0)))
    np.testing.assert_array_equal(_image(acc, "clip")[1], np.full((2, 2, 3), 255, np.uint8))


def test_image_format_errors(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match="same dimension shorthand twice"):
            w.add_image("x", np.zeros((3, 3, 3)), dataformats="CCW")
        with pytest.raises(AssertionError, match="size of input tensor and input format are different"):
            w.add_image("x", np.zeros((3, 3)), dataformats="CHW")


def test_add_images_tiles_a_batch_in_rows_of_eight(tmp_path):
    batch = np.random.default_rng(2).random((10, 1, 3, 2))
    with SummaryWriter(tmp_path) as w:
        w.add_images("b", batch, 0)
        w.add_images("nhwc", batch.transpose(0, 2, 3, 1), 0, dataformats="NHWC")
    acc = accumulator(tmp_path)
    ev, px = _image(acc, "b")
    assert px.shape == (6, 16, 3)
    u8 = (batch.astype(np.float32) * 255).astype(np.uint8)
    for i in range(10):
        r, c = divmod(i, 8)
        np.testing.assert_array_equal(px[r * 3:(r + 1) * 3, c * 2:(c + 1) * 2, 0], u8[i, 0])
    assert not px[3:, 4:].any()  # the grid's unused cells stay black
    np.testing.assert_array_equal(_image(acc, "nhwc")[1], px)


def test_pil_reads_the_png_too(tmp_path):
    Image = pytest.importorskip("PIL.Image", reason="cross-checking the PNG with Pillow")
    import io
    img = np.random.default_rng(3).integers(0, 256, (5, 4, 4), dtype=np.uint8)
    with SummaryWriter(tmp_path) as w:
        w.add_image("x", img, 0, dataformats="HWC")
    (ev,) = accumulator(tmp_path).Images("x")
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(ev.encoded_image_string))), img)


def test_add_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib", reason="add_figure renders matplotlib figures")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(2, 1), dpi=20)
    fig.patch.set_facecolor((1.0, 0.0, 0.0))
    figs = [plt.figure(figsize=(1, 1), dpi=10) for _ in range(2)]
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 1)
        w.add_figure("figs", figs, 1, close=False)
    assert not plt.fignum_exists(fig.number) and all(plt.fignum_exists(f.number) for f in figs)
    plt.close("all")
    acc = accumulator(tmp_path)
    ev, px = _image(acc, "fig")
    assert px.shape == (20, 40, 3) and (px == [255, 0, 0]).all()
    assert _image(acc, "figs")[1].shape == (10, 20, 3)


def test_text(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "**lr** = 0.1 — ünïcode", 7)
    acc = accumulator(tmp_path)
    (ev,) = acc.Tensors("notes/text_summary")
    assert ev.step == 7
    assert ev.tensor_proto.string_val[0].decode("utf-8") == "**lr** = 0.1 — ünïcode"
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def test_hparams_plugin_data(tmp_path):
    from tensorboard.plugins.hparams import metadata
    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1, "layers": 3, "opt": "adam", "skip": None, "t": npgrad.tensor([0.5])},
                      {"hparam/acc": 0.9}, hparam_domain_discrete={"opt": ["adam", "sgd"]}, run_name="trial")
    acc = accumulator(tmp_path / "trial")
    start = metadata.parse_session_start_info_plugin_data(
        acc.SummaryMetadata(metadata.SESSION_START_INFO_TAG).plugin_data.content)
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["layers"].number_value == 3
    assert start.hparams["opt"].string_value == "adam" and "skip" not in start.hparams
    assert start.hparams["t"].number_value == 0.5
    exp = metadata.parse_experiment_plugin_data(acc.SummaryMetadata(metadata.EXPERIMENT_TAG).plugin_data.content)
    assert [h.name for h in exp.hparam_infos] == ["lr", "layers", "opt", "t"]
    assert [v.string_value for v in exp.hparam_infos[2].domain_discrete.values] == ["adam", "sgd"]
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/acc"]
    end = metadata.parse_session_end_info_plugin_data(
        acc.SummaryMetadata(metadata.SESSION_END_INFO_TAG).plugin_data.content)
    assert end.status == 1  # STATUS_SUCCESS
    assert acc.Scalars("hparam/acc")[0].value == pytest.approx(0.9)


def test_hparams_errors(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(TypeError, match="should be dictionary"):
            w.add_hparams([1], {})
        with pytest.raises(TypeError, match=r"hparam_domain_discrete\[lr\] should be a list"):
            w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"lr": ["a"]})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool"):
            w.add_hparams({"lr": [0.1]}, {})


def test_pr_curve(tmp_path):
    labels = np.array([1, 0, 1, 1, 0, 0])
    preds = np.array([0.9, 0.8, 0.6, 0.3, 0.2, 0.1])
    with SummaryWriter(tmp_path) as w:
        w.add_pr_curve("pr", labels, preds, 0, num_thresholds=5)
    from tensorboard.util import tensor_util
    data = tensor_util.make_ndarray(accumulator(tmp_path).Tensors("pr")[0].tensor_proto)
    assert data.shape == (6, 5)
    # Each prediction falls in bucket floor(p * 4) = 3, 3, 2, 1, 0, 0; those indices are histogrammed into
    # 5 equal bins over [0, 4] (PyTorch's and TensorBoard's recipe); tp/fp count from each bin upwards.
    tp = [3, 3, 2, 1, 0]
    fp = [3, 1, 1, 1, 0]
    np.testing.assert_array_equal(data[0], tp)
    np.testing.assert_array_equal(data[1], fp)
    np.testing.assert_allclose(data[4], np.array(tp) / np.maximum(1e-7, np.add(tp, fp)), rtol=1e-6)
    np.testing.assert_allclose(data[5], np.array(tp) / 3, rtol=1e-6)


def test_embedding_files(tmp_path):
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
    mat = np.arange(12, dtype=np.float32).reshape(4, 3) / 4
    imgs = np.random.default_rng(4).random((4, 3, 2, 5))
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(npgrad.from_numpy(mat), metadata=["a", "b", "c", "d"], label_img=npgrad.from_numpy(imgs),
                        tag="emb/x")
        w.add_embedding(mat, metadata=[["a", 1], ["b", 2], ["c", 3], ["d", 4]], metadata_header=["n", "k"],
                        global_step=3)
        with pytest.raises(AssertionError, match="#labels should equal"):
            w.add_embedding(mat, metadata=["a"], global_step=9)
    sub = tmp_path / "00000" / "emb%2fx"
    rows = (sub / "tensors.tsv").read_text().splitlines()
    np.testing.assert_array_equal(np.array([r.split("\t") for r in rows], float), mat)
    assert (sub / "metadata.tsv").read_text() == "a\nb\nc\nd\n"
    assert (tmp_path / "00003" / "default" / "metadata.tsv").read_text() == "n\tk\na\t1\nb\t2\nc\t3\nd\t4\n"
    sprite = decode_png((sub / "sprite.png").read_bytes())
    assert sprite.shape == (10, 10, 3)  # 2 x 2 thumbnails of 2 x 5, padded to a square
    np.testing.assert_array_equal(sprite[:2, 5:], (imgs[1].transpose(1, 2, 0) * 255).astype(np.uint8))
    cfg = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), ProjectorConfig())
    assert [e.tensor_name for e in cfg.embeddings] == ["emb/x:00000", "default:00003"]
    assert cfg.embeddings[0].tensor_path == os.path.join("00000", "emb%2fx", "tensors.tsv")
    assert list(cfg.embeddings[0].sprite.single_image_dim) == [5, 2]
    assert cfg.embeddings[1].metadata_path.endswith("metadata.tsv") and not cfg.embeddings[1].sprite.image_path


def test_lifecycle_logdir_purge_and_suffix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import socket
    w = SummaryWriter(comment="_lr0.1")
    d = w.get_logdir()
    assert d.startswith("runs" + os.sep) and d.endswith("_" + socket.gethostname() + "_lr0.1")
    w.close()
    w.close()  # a second close is harmless
    w.add_scalar("x", 1.0, 0)  # logging after close opens a new event file
    w.flush()
    assert len([f for f in os.listdir(d) if f.startswith("events.out.tfevents")]) == 2
    w.close()
    with SummaryWriter("r2", purge_step=5, filename_suffix=".sfx") as w2:
        w2.add_scalar("x", 1.0, 6)
    (name,) = os.listdir("r2")
    assert name.endswith(".sfx")
    evs = events("r2")
    assert evs[0].file_version == "brain.Event:2"
    assert any(e.session_log.status == e.session_log.START and e.step == 5 for e in evs)


def test_flush_makes_events_visible(tmp_path):
    w = SummaryWriter(tmp_path, flush_secs=10000, max_queue=1000)
    w.add_scalar("x", 3.0, 0)
    w.flush()
    assert accumulator(tmp_path).Scalars("x")[0].value == 3.0
    w.close()
