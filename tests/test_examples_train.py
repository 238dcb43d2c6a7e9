"""Smoke tests for the training examples, the ``npgrad train`` command and the curve plotter.

Everything runs on a tiny budget and on data made here (a small synthetic MNIST written as real IDX
files, a short text), so the tests need no download and no dataset folder: NPGRAD_DATA and the cache
are pointed at empty folders, so a real copy of MNIST on the machine is never picked up by accident.
"""
import csv
import gzip
import importlib.util
import json
import math
import os
import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

import npgrad
from npgrad.utils import plot

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

HAS_MPL = importlib.util.find_spec("matplotlib") is not None


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data):
    """(width, height) from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def read_curves_csv(path):
    """The header and the rows (floats, None for an empty cell) of a CSV that save_curves wrote."""
    with open(path, newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    assert rows and all(len(r) == len(header) for r in rows)
    return header, [[float(v) if v else None for v in r] for r in rows]


def hide_modules(monkeypatch, *names):
    """Make ``import name`` (and its submodules) fail, as if the package were not installed."""
    for mod in list(sys.modules):
        if any(mod == n or mod.startswith(n + ".") for n in names):
            monkeypatch.setitem(sys.modules, mod, None)
    for n in names:
        monkeypatch.setitem(sys.modules, n, None)


def write_idx(path, array, magic):
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape)
    path.write_bytes(gzip.compress(header + array.astype(np.uint8).tobytes(), compresslevel=1))


@pytest.fixture
def no_real_data(tmp_path, monkeypatch):
    """Empty NPGRAD_DATA and cache folders: only the data a test provides can be found."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("NPGRAD_DATA", str(empty))
    monkeypatch.setenv("XDG_CACHE_HOME", str(empty))
    return empty


@pytest.fixture(scope="module")
def fake_mnist_dir(tmp_path_factory):
    """A small MNIST look-alike in the original file format: each class is a fixed random blob of
    pixels with 20% of them dropped per image, so a classifier can learn it from a few hundred images."""
    rng = np.random.default_rng(0)
    templates = (rng.random((10, 28, 28)) > 0.75) * 255
    root = tmp_path_factory.mktemp("mnist_data")
    folder = root / "mnist"
    folder.mkdir()
    for prefix, n in (("train", 512), ("t10k", 200)):
        labels = rng.integers(0, 10, n)
        images = templates[labels] * (rng.random((n, 28, 28)) > 0.2)
        write_idx(folder / f"{prefix}-images-idx3-ubyte.gz", images, 0x803)
        write_idx(folder / f"{prefix}-labels-idx1-ubyte.gz", labels, 0x801)
    return root


@pytest.fixture
def fake_mnist(fake_mnist_dir, no_real_data):
    return fake_mnist_dir


def run_cli(args, env_extra, cwd):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "npgrad", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=env)


def losses_on_fixed_batch(model, x, y, steps=8, lr=1e-2):
    opt = npgrad.optim.Adam(model.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        loss = npgrad.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


# -- the curve plotter -----------------------------------------------------------------------------------------
PANELS = [
    {"title": "loss", "xlabel": "epoch", "series": [
        {"label": "train", "x": [0.5, 1.0, 1.5, 2.0], "y": [2.0, 1.0, 0.6, 0.4]},
        {"label": "test", "x": [1.0, 2.0], "y": [0.9, 0.5], "marker": True}]},
    {"title": "accuracy (%)", "xlabel": "epoch", "series": [
        {"label": "train", "x": [0.5, 1.0, 1.5, 2.0], "y": [40.0, 70.0, 85.0, 90.0]}]},
]


def test_csv_backend_writes_every_series_by_x(tmp_path):
    path = tmp_path / "curves.png"
    assert plot.save_curves(str(path), PANELS, backend="csv") == str(tmp_path / "curves.csv")
    assert not path.exists()
    header, rows = read_curves_csv(tmp_path / "curves.csv")
    assert header == ["epoch", "loss/train", "loss/test", "accuracy (%)/train"]
    assert rows == [[0.5, 2.0, None, 40.0],
                    [1.0, 1.0, 0.9, 70.0],
                    [1.5, 0.6, None, 85.0],
                    [2.0, 0.4, 0.5, 90.0]]
    # Floats are written exactly, and the x values come out sorted whatever order the series give them.
    third = 1 / 3
    plot.save_curves(str(path), {"series": [{"label": "a", "x": [2, 1], "y": [third, 2.0]}]}, backend="csv")
    assert read_curves_csv(tmp_path / "curves.csv") == (["x", "a"], [[1.0, 2.0], [2.0, third]])


def test_plot_rejects_mismatched_series(tmp_path):
    with pytest.raises(ValueError, match="2 x values but 3 y values"):
        plot.save_curves(str(tmp_path / "p.png"), [{"series": [{"label": "a", "x": [0, 1], "y": [1, 2, 3]}]}])
    with pytest.raises(ValueError, match="backend"):
        plot.save_curves(str(tmp_path / "p.png"), PANELS, backend="svg")
    with pytest.raises(ValueError, match="no panels"):
        plot.save_curves(str(tmp_path / "p.png"), [])
    assert not list(tmp_path.iterdir())


def test_auto_backend_without_matplotlib_writes_csv(tmp_path, monkeypatch):
    hide_modules(monkeypatch, "matplotlib")
    path = tmp_path / "sub" / "curves.png"  # the folder is made
    assert plot.save_curves(str(path), PANELS) == str(tmp_path / "sub" / "curves.csv")
    assert not path.exists()
    header, rows = read_curves_csv(tmp_path / "sub" / "curves.csv")
    assert header[0] == "epoch" and len(rows) == 4
    with pytest.raises(ImportError):
        plot.save_curves(str(path), PANELS, backend="matplotlib")


@pytest.mark.parametrize("backend", ["auto", "matplotlib"])
def test_matplotlib_backend_writes_a_png(tmp_path, backend):
    pytest.importorskip("matplotlib", reason="the PNG is drawn by matplotlib (pip install matplotlib)")
    path = tmp_path / "curves.png"
    assert plot.save_curves(str(path), PANELS, backend=backend) == str(path)
    assert png_size(path.read_bytes()) == (2 * 480, 400)
    assert not (tmp_path / "curves.csv").exists()


# -- npgrad train ------------------------------------------------------------------------------------------------
def test_cli_falls_back_to_embedded_digits_and_says_so(tmp_path, no_real_data):
    out = tmp_path / "runs" / "mnist"  # the default output folder, under the working directory
    done = run_cli(["train", "mnist", "--max-steps", "6", "--progress", "plain"],
                   {"NPGRAD_DATA": str(no_real_data), "XDG_CACHE_HOME": str(no_real_data)}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "MNIST was not found" in done.stdout and "8x8 handwritten digits" in done.stdout
    assert str(no_real_data) in done.stdout          # says where it looked
    assert "MLP 64-256-128-10" in done.stdout
    assert "test accuracy:" in done.stdout
    assert "[" in done.stderr and "6/6" in done.stderr  # the plain progress bar reached the end
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "digits" and metrics["steps"] == 6
    if HAS_MPL:
        assert png_size((out / "curves.png").read_bytes()) == (960, 400)
    else:
        assert "pip install matplotlib" in done.stdout
        assert f"curves as numbers to {pathlib.Path('runs', 'mnist', 'curves.csv')}" in done.stdout
        header, rows = read_curves_csv(out / "curves.csv")
        assert header[0] == "epoch" and rows[-1] == [metrics["history"][k][-1] for k in
                                                     ("test_x", "train_loss", "test_loss", "train_acc", "test_acc")]
    # The saved state_dict loads into the model the command describes.
    model = npgrad.nn.Sequential(npgrad.nn.Linear(64, 256), npgrad.nn.ReLU(), npgrad.nn.Linear(256, 128),
                                 npgrad.nn.ReLU(), npgrad.nn.Linear(128, 10))
    model.load_state_dict(npgrad.load(str(out / "model.npgrad")))


def test_cli_trains_on_mnist_files_without_tqdm_or_matplotlib(fake_mnist, tmp_path, monkeypatch, capsys):
    from npgrad import cli
    hide_modules(monkeypatch, "matplotlib", "tqdm")
    out = tmp_path / "run"
    assert cli.main(["train", "mnist", "--data-dir", str(fake_mnist), "--epochs", "3", "--batch-size", "32",
                     "--lr", "3e-3", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "MLP 784-256-128-10" in captured.out and "on MNIST (512 train / 200 test)" in captured.out
    assert f"curves as numbers to {out / 'curves.csv'}" in captured.out and "pip install matplotlib" in captured.out
    assert "epoch 3/3 [" in captured.err              # the plain bar stands in for tqdm
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "mnist" and metrics["epochs"] == 3
    assert metrics["test_accuracy"] > 50             # chance is 10%
    assert metrics["history"]["train_loss"][-1] < metrics["history"]["train_loss"][0]
    assert not (out / "curves.png").exists()
    header, rows = read_curves_csv(out / "curves.csv")
    assert header == ["epoch", "loss/train", "loss/test", "accuracy (%)/train", "accuracy (%)/test"]
    history = metrics["history"]
    assert [r[0] for r in rows] == sorted(set(history["train_x"]) | set(history["test_x"]))
    assert [r[1] for r in rows if r[1] is not None] == history["train_loss"]
    assert [r[4] for r in rows if r[4] is not None] == history["test_acc"]
    assert rows[-1][0] == 3.0 and None not in rows[-1]  # the last step is both a train and a test point
    state = npgrad.load(str(out / "model.npgrad"))
    assert tuple(state["0.weight"].shape) == (256, 784)


def test_cli_no_plot_and_bad_arguments(tmp_path, no_real_data, capsys):
    from npgrad import cli
    out = tmp_path / "run"
    assert cli.main(["train", "digits", "--max-steps", "2", "--no-plot", "--progress", "off", "--out", str(out)]) == 0
    assert (out / "model.npgrad").exists()
    assert not (out / "curves.png").exists() and not (out / "curves.csv").exists()
    with pytest.raises(SystemExit):
        cli.main(["train", "imagenet"])
    with pytest.raises(SystemExit):
        cli.main(["train", "mnist", "--epochs", "0"])
    assert "invalid choice" in capsys.readouterr().err


def test_cli_refuses_a_missing_tqdm_or_matplotlib_it_was_told_to_use(tmp_path, no_real_data, monkeypatch):
    from npgrad import cli
    hide_modules(monkeypatch, "matplotlib", "tqdm")
    out = tmp_path / "run"
    with pytest.raises(SystemExit, match=r'--plot-backend matplotlib needs matplotlib \(pip install "npgrad\[examples\]"\)'):
        cli.main(["train", "digits", "--max-steps", "2", "--plot-backend", "matplotlib", "--out", str(out)])
    assert not out.exists()  # refused before training, not after it
    with pytest.raises(SystemExit, match=r'--progress tqdm needs tqdm \(pip install "npgrad\[examples\]"\)'):
        cli.main(["train", "digits", "--max-steps", "2", "--progress", "tqdm", "--out", str(out)])


def test_cli_reports_a_damaged_mnist_file_without_a_traceback(fake_mnist_dir, tmp_path, no_real_data, capsys):
    from npgrad import cli
    bad = tmp_path / "bad" / "mnist"
    bad.mkdir(parents=True)
    for f in fake_mnist_dir.joinpath("mnist").iterdir():
        bad.joinpath(f.name).write_bytes(f.read_bytes())
    images = bad / "train-images-idx3-ubyte.gz"
    images.write_bytes(gzip.compress(gzip.decompress(images.read_bytes())[:-100]))  # cut short
    assert cli.main(["train", "mnist", "--data-dir", str(bad.parent), "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert str(images) in err and "truncated" in err


def test_console_script_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert '[project.scripts]\nnpgrad = "npgrad.cli:main"' in text
    done = subprocess.run([sys.executable, "-m", "npgrad", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"npgrad {npgrad.__version__}"


# -- the MNIST examples -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, cls", [("mnist_mlp", "MLP"), ("mnist_cnn", "CNN")])
def test_mnist_example_learns_and_saves_a_checkpoint(name, cls, fake_mnist, tmp_path, capsys):
    ex = load_example(name)
    npgrad.manual_seed(0)
    ds = ex.load(str(fake_mnist), True, limit=64)
    x, y = ds.tensors
    losses = losses_on_fixed_batch(getattr(ex, cls)(), x, y, lr=3e-3)
    assert losses[-1] < 0.5 * losses[0]

    r = ex.main(["--data-dir", str(fake_mnist), "--epochs", "3", "--batch-size", "32", "--limit", "256",
                 "--out", str(tmp_path / name)])
    assert r["test_acc"] > 0.5
    assert "final test accuracy" in capsys.readouterr().out
    model = getattr(ex, cls)()
    model.load_state_dict(npgrad.load(r["checkpoint"]))
    model.eval()
    test = ex.load(str(fake_mnist), False)
    with npgrad.no_grad():
        acc = (model(test.tensors[0]).argmax(1) == test.tensors[1]).float().mean().item()
    assert acc == pytest.approx(r["test_acc"])        # the checkpoint is the model that was evaluated


# -- the character-level GPT --------------------------------------------------------------------------------------
TEXT = "".join(f"{who}:\nWhat say you, {what}? I say {what} is {how}.\n\n"
               for who, what, how in [("ROMEO", "love", "sweet"), ("JULIET", "night", "long"),
                                      ("NURSE", "dinner", "late"), ("FRIAR", "time", "short")] * 12)


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "input.txt"
    path.write_text(TEXT)
    return path


def test_gpt_attention_is_causal_and_the_model_learns(text_file):
    ex = load_example("char_gpt")
    npgrad.manual_seed(0)
    model = ex.GPT(vocab_size=30, block_size=12, n_layer=2, n_head=2, d_model=16)
    assert model.head.weight is model.tok_emb.weight  # tied weights
    idx = npgrad.randint(0, 30, (2, 12))
    changed = idx.clone()
    changed[:, 8:] = (changed[:, 8:] + 1) % 30
    with npgrad.no_grad():
        a, _ = model(idx)
        b, _ = model(changed)
    np.testing.assert_allclose(a[:, :8].numpy(), b[:, :8].numpy(), rtol=1e-5, atol=1e-6)  # no peeking ahead
    assert not np.allclose(a[:, 8:].numpy(), b[:, 8:].numpy())

    x, y = idx[:, :-1], idx[:, 1:]
    model = ex.GPT(vocab_size=30, block_size=11, n_layer=2, n_head=2, d_model=16)
    opt = npgrad.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(10):
        _, loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.8 * losses[0]


def test_gpt_smoke_run_checkpoints_resumes_and_samples(text_file, tmp_path, capsys):
    ex = load_example("char_gpt")
    out = tmp_path / "gpt"
    common = ["--smoke", "--data-dir", str(text_file), "--out", str(out), "--quiet", "--sample-len", "30"]
    r = ex.main(common + ["--steps", "4", "--prompt", "ROMEO:"])
    assert r["history"]["step"] == [4]
    assert len(r["sample"]) == len("ROMEO:") + 30 and r["sample"].startswith("ROMEO:")
    assert set(r["sample"]) <= set(r["vocab"])
    state = npgrad.load(r["checkpoint"])
    assert state["step"] == 4 and state["config"]["d_model"] == 32

    r2 = ex.main(common + ["--steps", "8", "--resume", "--prompt", "JULIET:"])
    assert r2["history"]["step"] == [4, 8]             # carried on from step 4
    assert npgrad.load(r2["checkpoint"])["step"] == 8
    assert len(r2["sample"]) == len("JULIET:") + 30 and set(r2["sample"]) <= set(r2["vocab"])


def test_gpt_lr_schedule_warms_up_then_decays():
    ex = load_example("char_gpt")
    args = ex.parse_args(["--steps", "100", "--warmup", "10", "--lr", "1e-3", "--min-lr", "1e-4"])
    lrs = [ex.lr_at(s, args) for s in range(100)]
    assert lrs[0] == pytest.approx(1e-4) and lrs[9] == pytest.approx(1e-3)
    assert all(a <= b for a, b in zip(lrs[:10], lrs[1:10]))
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:]))
    assert lrs[-1] == pytest.approx(1e-4, rel=1e-2) and ex.lr_at(100, args) == pytest.approx(1e-4)


# -- custom Function and higher-order gradients ----------------------------------------------------------------
def test_custom_function_example():
    r = load_example("custom_function").main([])
    assert r["gradcheck"] and r["gradgradcheck"]
    assert r["naive"][-1] == float("inf") and r["stable"][-1] == pytest.approx(100.0)
    assert r["stable_ok"] and r["stable_grad"][-1] == pytest.approx(1.0)
    assert r["ste_out"] == [-1.0, -1.0, 1.0, 1.0]
    assert r["ste_grad"] == [0.0, 2.0, 3.0, 0.0]     # passed through only where |w| <= 1


def test_higher_order_example():
    ex = load_example("higher_order")

    class Cube(npgrad.nn.Module):
        def forward(self, x):
            return x ** 3

    x = npgrad.linspace(-1, 1, 5).unsqueeze(1)
    u, d2u = ex.second_derivative(Cube(), x)
    np.testing.assert_allclose(d2u.detach().numpy(), 6 * x.numpy(), rtol=1e-6)   # (x^3)'' = 6x
    r = ex.main(["--steps", "120", "--quiet"])
    assert r["losses"][-1] < 0.01 * r["losses"][0]
    assert r["max_error"] < 0.05                       # already close to sin(pi x)


def test_word_language_model_learns_on_a_repetitive_text(text_file, capsys):
    # The smoke configuration, trained longer on a text it can learn: validation loss falls well below the
    # uniform guess, and the batching helpers cut the stream as PyTorch's example does.
    ex = load_example("word_language_model")
    data = npgrad.arange(10)
    cols = ex.batchify(data, 3)
    assert cols.shape == (3, 3) and cols[:, 0].tolist() == [0, 1, 2] and cols[:, 1].tolist() == [3, 4, 5]
    x, y = ex.get_batch(cols, 0, 2)
    assert x.tolist() == [[0, 3, 6], [1, 4, 7]] and y.tolist() == [1, 4, 7, 2, 5, 8]
    h = (npgrad.ones(1, requires_grad=True) * 2, npgrad.ones(1, requires_grad=True) * 3)
    assert all(v.grad_fn is None and not v.requires_grad for v in ex.repackage_hidden(h))
    best = ex.main(["--smoke", "--data-dir", str(text_file), "--steps", "60", "--eval-every", "20",
                    "--lr", "0.02", "--val-chars", "200"])
    vocab = len(set(TEXT))
    assert best < 0.6 * math.log(vocab), (best, math.log(vocab))
    out = capsys.readouterr().out
    assert "best validation perplexity per character" in out


@pytest.mark.parametrize("model", ["GRU", "RNN_RELU"])
def test_word_language_model_other_cells_run(text_file, model, capsys):
    ex = load_example("word_language_model")
    best = ex.main(["--smoke", "--data-dir", str(text_file), "--model", model, "--val-chars", "200"])
    assert math.isfinite(best)
    assert f"{model}: 2 layers" in capsys.readouterr().out


# -- the variational autoencoder ------------------------------------------------------------------------------
def test_vae_elbo_parts_and_learning(fake_mnist, capsys):
    ex = load_example("vae")
    npgrad.manual_seed(0)
    model = ex.VAE(latent=4, hidden=32)
    x = ex.load(str(fake_mnist), True, limit=16).tensors[0]
    loss, rec, kl = model(x)
    assert loss.shape == (16,) and bool((kl >= 0).all())
    np.testing.assert_allclose(loss.detach().numpy(), (rec + kl).detach().numpy(), rtol=1e-6)
    # the KL of a diagonal Normal against N(0, I), written out
    q = model.posterior(x)
    mu, sigma = q.base_dist.loc, q.base_dist.scale
    closed = (0.5 * (sigma ** 2 + mu ** 2 - 1) - sigma.log()).sum(-1)
    np.testing.assert_allclose(kl.detach().numpy(), closed.detach().numpy(), rtol=1e-5, atol=1e-6)
    loss.mean().backward()                       # rsample: the encoder gets gradients through the draw
    assert all(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in model.encoder.parameters())
    r = ex.main(["--data-dir", str(fake_mnist), "--epochs", "3", "--batch-size", "32", "--limit", "256",
                 "--latent", "4"])
    first, last = r["history"][0][0], r["history"][-1][0]
    assert last < first, r["history"]
    assert "final test negative ELBO" in capsys.readouterr().out
