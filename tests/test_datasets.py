"""npgrad.datasets: the IDX reader, MNIST/FashionMNIST (finding and downloading files), text data, digits.

Tests that use the real MNIST / tiny-shakespeare files find them through NPGRAD_DATA; when it is not
set they run the same code on small synthetic files written to tmp_path.
"""
import functools
import gzip
import hashlib
import http.server
import os
import pathlib
import socket
import sys
import threading

import numpy as np
import pytest

import npgrad as torch
from npgrad.datasets import (MNIST, CharTokenizer, DatasetNotFoundError, Digits, FashionMNIST, IDXError,
                             TextDataset, find_tiny_shakespeare, load_digits, load_tiny_shakespeare, read_idx)

MNIST_FILES = ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
               "t10k-labels-idx1-ubyte.gz"]
_CODES = {np.dtype(np.uint8): 0x08, np.dtype(np.int8): 0x09, np.dtype(np.int16): 0x0B, np.dtype(np.int32): 0x0C,
          np.dtype(np.float32): 0x0D, np.dtype(np.float64): 0x0E}


# -- helpers ------------------------------------------------------------------------------------------

def idx_bytes(arr):
    """The IDX encoding of ``arr``, written here independently of the reader."""
    arr = np.asarray(arr)
    header = bytes([0, 0, _CODES[arr.dtype], arr.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    return header + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def write_idx(path, arr, gz=True):
    data = idx_bytes(arr)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def make_mnist(folder, n_train=7, n_test=5, gz=True, seed=0):
    """Synthetic MNIST-format files in ``folder``; returns the arrays written."""
    rs = np.random.RandomState(seed)
    arrays = {
        "train-images-idx3-ubyte.gz": rs.randint(0, 256, (n_train, 28, 28)).astype(np.uint8),
        "train-labels-idx1-ubyte.gz": rs.randint(0, 10, n_train).astype(np.uint8),
        "t10k-images-idx3-ubyte.gz": rs.randint(0, 256, (n_test, 28, 28)).astype(np.uint8),
        "t10k-labels-idx1-ubyte.gz": rs.randint(0, 10, n_test).astype(np.uint8),
    }
    for name, arr in arrays.items():
        write_idx(pathlib.Path(folder) / (name if gz else name[:-3]), arr, gz=gz)
    return arrays


def md5(path):
    return hashlib.md5(pathlib.Path(path).read_bytes()).hexdigest()


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No NPGRAD_DATA and an empty cache, so only what a test puts in place can be found."""
    monkeypatch.delenv("NPGRAD_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path


# -- the IDX reader -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("gz", [True, False])
def test_read_idx_round_trip(tmp_path, dtype, gz):
    arr = (np.arange(2 * 3 * 5).reshape(2, 3, 5) - 7).astype(dtype)
    if np.dtype(dtype).kind == "u":
        arr = np.arange(30, dtype=dtype).reshape(2, 3, 5)
    got = read_idx(write_idx(tmp_path / "a.idx", arr, gz=gz))
    assert got.dtype == np.dtype(dtype) and got.dtype.isnative
    assert got.shape == (2, 3, 5)
    np.testing.assert_array_equal(got, arr)
    got[0, 0, 0] = 1  # writable: a copy the caller owns


def test_read_idx_one_dimensional_and_empty(tmp_path):
    np.testing.assert_array_equal(read_idx(write_idx(tmp_path / "l", np.array([3, 1, 4], np.uint8))), [3, 1, 4])
    assert read_idx(write_idx(tmp_path / "e", np.zeros((0, 28, 28), np.uint8))).shape == (0, 28, 28)


def test_read_idx_rejects_the_wrong_kind_of_file(tmp_path):
    p = write_idx(tmp_path / "labels.gz", np.array([1, 2], np.uint8))
    with pytest.raises(IDXError, match=r"0x00000801, expected 0x00000803"):
        read_idx(p, expected_magic=0x803)


@pytest.mark.parametrize("raw, match", [
    (b"", "too short"),
    (b"\x00\x00", "too short"),
    (b"\x01\x00\x08\x01" + (1).to_bytes(4, "big") + b"\x05", "bad IDX magic number 0x01000801"),
    (b"\x00\x00\x07\x01" + (1).to_bytes(4, "big") + b"\x05", "bad IDX magic number 0x00000701"),
    (b"\x00\x00\x08\x00", "bad IDX magic number"),
    (b"\x00\x00\x08\x03" + (2).to_bytes(4, "big"), "truncated header"),
    (b"\x00\x00\x08\x01" + (5).to_bytes(4, "big") + b"\x01\x02", r"truncated.*shape \(5,\).*2 data bytes"),
    (b"\x00\x00\x0c\x01" + (1).to_bytes(4, "big") + b"\x00\x00\x00\x01\x09", "trailing bytes"),
    (b"PK\x03\x04 not an idx file at all", "bad IDX magic number"),
])
def test_read_idx_rejects_malformed_files(tmp_path, raw, match):
    for gz in (False, True):
        p = tmp_path / ("bad.gz" if gz else "bad")
        p.write_bytes(gzip.compress(raw) if gz else raw)
        with pytest.raises(IDXError, match=match) as e:
            read_idx(p)
        assert str(p) in str(e.value)


def test_read_idx_names_a_corrupt_gzip_file(tmp_path):
    good = gzip.compress(idx_bytes(np.arange(1000, dtype=np.int32)))
    p = tmp_path / "cut.gz"
    p.write_bytes(good[: len(good) // 2])
    with pytest.raises(IDXError, match="not a readable gzip file.*truncated or corrupt"):
        read_idx(p)


# -- MNIST / FashionMNIST from local files -------------------------------------------------------------

def test_mnist_reads_synthetic_files(isolated):
    arrays = make_mnist(isolated / "data")
    ds = MNIST(root=isolated / "data", download=False)
    assert len(ds) == 7
    assert ds.data.dtype == torch.uint8 and tuple(ds.data.shape) == (7, 28, 28)
    assert ds.targets.dtype == torch.int64
    np.testing.assert_array_equal(ds.data.numpy(), arrays["train-images-idx3-ubyte.gz"])
    np.testing.assert_array_equal(ds.targets.numpy(), arrays["train-labels-idx1-ubyte.gz"])
    img, label = ds[3]
    assert img.dtype == torch.float32 and tuple(img.shape) == (1, 28, 28)
    np.testing.assert_allclose(img.numpy()[0], arrays["train-images-idx3-ubyte.gz"][3] / 255.0, rtol=1e-6)
    assert type(label) is int and label == arrays["train-labels-idx1-ubyte.gz"][3]
    assert ds[-1][1] == arrays["train-labels-idx1-ubyte.gz"][-1]
    test = MNIST(root=isolated / "data", train=False, download=False)
    np.testing.assert_array_equal(test.targets.numpy(), arrays["t10k-labels-idx1-ubyte.gz"])
    assert "Split: Test" in repr(test)


def test_mnist_transforms(isolated):
    arrays = make_mnist(isolated)
    ds = MNIST(root=isolated, download=False, transform=lambda x: (x - 0.5) * 2, target_transform=lambda y: y + 100)
    img, label = ds[0]
    np.testing.assert_allclose(img.numpy()[0], (arrays["train-images-idx3-ubyte.gz"][0] / 255.0 - 0.5) * 2,
                               rtol=1e-5, atol=1e-6)
    assert label == int(arrays["train-labels-idx1-ubyte.gz"][0]) + 100


@pytest.mark.parametrize("layout", ["mnist", "MNIST/raw"])
def test_mnist_subfolders_and_unpacked_files(isolated, layout):
    arrays = make_mnist(isolated / layout, gz=False)
    ds = MNIST(root=isolated, train=False, download=False)
    np.testing.assert_array_equal(ds.data.numpy(), arrays["t10k-images-idx3-ubyte.gz"])


def test_mnist_found_through_npgrad_data(tmp_path, monkeypatch):
    """Real MNIST when NPGRAD_DATA is set (CI), else synthetic files in an NPGRAD_DATA made here."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    real = bool(os.environ.get("NPGRAD_DATA"))
    if not real:
        arrays = make_mnist(tmp_path / "env" / "mnist")
        monkeypatch.setenv("NPGRAD_DATA", str(tmp_path / "env"))
    train = MNIST(download=False)
    test = MNIST(train=False, download=False)
    if real:
        # Facts of the MNIST distribution: sizes, the first labels, and the class counts of the training set.
        assert len(train) == 60000 and len(test) == 10000
        assert train.targets[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
        assert test.targets[:10].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]
        assert np.bincount(train.targets.numpy()).tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265,
                                                                5851, 5949]
        assert int(train.data.numpy().max()) == 255 and int(train.data.numpy().min()) == 0
    else:
        np.testing.assert_array_equal(train.data.numpy(), arrays["train-images-idx3-ubyte.gz"])
        np.testing.assert_array_equal(test.targets.numpy(), arrays["t10k-labels-idx1-ubyte.gz"])
    img, label = train[0]
    np.testing.assert_allclose(img.numpy()[0], train.data.numpy()[0] / 255.0, rtol=1e-6)
    assert label == train.targets[0].item()


def test_fashion_mnist_reads_its_files_and_refuses_mnists(isolated, monkeypatch):
    fashion = make_mnist(isolated / "fashion_mnist", seed=1)
    digits = make_mnist(isolated / "mnist_only", seed=2)
    ds = FashionMNIST(root=isolated, download=False)
    np.testing.assert_array_equal(ds.targets.numpy(), fashion["train-labels-idx1-ubyte.gz"])
    assert ds.classes[9] == "Ankle boot" and ds.class_to_idx["Trouser"] == 1
    # MNIST and Fashion-MNIST use the same file names; a folder whose files are MNIST's (by checksum)
    # must not be read as Fashion-MNIST.
    monkeypatch.setattr(MNIST, "resources", [(n, md5(isolated / "mnist_only" / n)) for n in MNIST_FILES])
    with pytest.raises(DatasetNotFoundError, match="is MNIST's file, not FashionMNIST's"):
        FashionMNIST(root=isolated / "mnist_only", download=False)
    assert len(MNIST(root=isolated / "mnist_only", download=False)) == len(digits["train-labels-idx1-ubyte.gz"])


def test_mnist_rejects_inconsistent_files(isolated):
    make_mnist(isolated)
    write_idx(isolated / "train-labels-idx1-ubyte.gz", np.zeros(3, np.uint8))
    with pytest.raises(IDXError, match="holds 7 images but .* holds 3 labels"):
        MNIST(root=isolated, download=False)
    write_idx(isolated / "train-labels-idx1-ubyte.gz", np.full(7, 10, np.uint8))
    with pytest.raises(IDXError, match="label 10 is out of range for 10 classes"):
        MNIST(root=isolated, download=False)
    write_idx(isolated / "train-labels-idx1-ubyte.gz", np.zeros(7, np.uint8))
    write_idx(isolated / "train-images-idx3-ubyte.gz", np.zeros((7, 8, 8), np.uint8))
    with pytest.raises(IDXError, match="images are 8x8, expected 28x28"):
        MNIST(root=isolated, download=False)
    # Image and label files swapped: the magic numbers say so.
    write_idx(isolated / "train-images-idx3-ubyte.gz", np.zeros(7, np.uint8))
    with pytest.raises(IDXError, match="expected 0x00000803"):
        MNIST(root=isolated, download=False)


def test_mnist_not_found_names_every_place_searched(isolated, monkeypatch):
    monkeypatch.setenv("NPGRAD_DATA", str(isolated / "env"))
    with pytest.raises(DatasetNotFoundError) as e:
        MNIST(root=isolated / "mine", download=False)
    msg = str(e.value)
    for place in (isolated / "mine", isolated / "mine" / "mnist", isolated / "env", isolated / "env" / "mnist",
                  isolated / "xdg" / "npgrad", isolated / "xdg" / "npgrad" / "mnist"):
        assert f"  - {place}\n" in msg
    assert "download=False" in msg and "NPGRAD_DATA" in msg and "train-images-idx3-ubyte.gz" in msg


# -- downloading (from a local HTTP server: this machine has no internet) -----------------------------

class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        _Quiet.requests.append(self.path)
        super().do_GET()


@pytest.fixture
def server(tmp_path):
    """An HTTP server on 127.0.0.1 serving tmp_path/served; yields its base URL."""
    folder = tmp_path / "served"
    folder.mkdir()
    _Quiet.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", folder
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _dead_url():
    # A port nothing listens on: connecting is refused at once.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/"


def test_download_into_the_cache_with_checksums(isolated, server, monkeypatch, capsys):
    base, served = server
    arrays = make_mnist(served)
    monkeypatch.setattr(MNIST, "mirrors", [_dead_url(), base])  # the first mirror is down
    monkeypatch.setattr(MNIST, "resources", [(n, md5(served / n)) for n in MNIST_FILES])
    ds = MNIST()
    cache = isolated / "xdg" / "npgrad" / "mnist"
    assert sorted(os.listdir(cache)) == sorted(MNIST_FILES)
    np.testing.assert_array_equal(ds.data.numpy(), arrays["train-images-idx3-ubyte.gz"])
    assert "Downloading" in capsys.readouterr().err
    n_requests = len(_Quiet.requests)
    assert n_requests == 4
    MNIST(train=False)  # found in the cache now: nothing downloaded again
    assert len(_Quiet.requests) == n_requests


def test_download_goes_to_root_when_given(isolated, server, monkeypatch):
    base, served = server
    make_mnist(served)
    monkeypatch.setattr(MNIST, "mirrors", [base])
    monkeypatch.setattr(MNIST, "resources", [(n, md5(served / n)) for n in MNIST_FILES])
    MNIST(root=isolated / "mine")
    assert sorted(os.listdir(isolated / "mine" / "mnist")) == sorted(MNIST_FILES)


def test_download_with_a_wrong_checksum_keeps_nothing(isolated, server, monkeypatch):
    base, served = server
    make_mnist(served)
    resources = [(n, md5(served / n)) for n in MNIST_FILES]
    resources[2] = (resources[2][0], "0" * 32)  # t10k-images is "corrupt"
    monkeypatch.setattr(MNIST, "mirrors", [base])
    monkeypatch.setattr(MNIST, "resources", resources)
    with pytest.raises(DatasetNotFoundError) as e:
        MNIST()
    msg = str(e.value)
    assert f"checksum mismatch for {base}t10k-images-idx3-ubyte.gz" in msg
    assert f"expected {'0' * 32}" in msg
    cache = isolated / "xdg" / "npgrad" / "mnist"
    left = os.listdir(cache)
    assert "t10k-images-idx3-ubyte.gz" not in left
    assert not [f for f in left if f.endswith(".part")]


def test_download_failure_lists_mirrors_and_how_to_provide_files(isolated, server, monkeypatch):
    base, _ = server  # serves nothing: every file is a 404
    dead = _dead_url()
    monkeypatch.setattr(MNIST, "mirrors", [dead, base])
    with pytest.raises(DatasetNotFoundError) as e:
        MNIST()
    msg = str(e.value)
    assert f"{dead}train-images-idx3-ubyte.gz: " in msg
    assert f"{base}train-images-idx3-ubyte.gz: HTTP 404" in msg
    assert str(isolated / "xdg" / "npgrad" / "mnist") in msg and "NPGRAD_DATA" in msg and "root=" in msg


def test_download_progress_without_tqdm(isolated, server, monkeypatch, capsys):
    base, served = server
    (served / "input.txt").write_text("to be or not to be\n" * 1000)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` now fails: the plain progress is used
    monkeypatch.setattr("npgrad.datasets.text._SHAKESPEARE", [("input.txt", md5(served / "input.txt"))])
    monkeypatch.setattr("npgrad.datasets.text._SHAKESPEARE_MIRRORS", [base])
    text = load_tiny_shakespeare()
    assert text.startswith("to be or not")
    err = capsys.readouterr().err
    assert "input.txt [########################] 19,000/19,000" in err  # the plain bar reached the end
    assert os.path.isfile(isolated / "xdg" / "npgrad" / "tinyshakespeare" / "input.txt")


# -- character-level text ---------------------------------------------------------------------------------

def test_char_tokenizer_round_trip():
    text = "hello world, héllo wörld 😀\n"
    tok = CharTokenizer(text)
    assert tok.itos == sorted(set(text)) and tok.vocab_size == len(set(text)) == len(tok)
    assert all(tok.stoi[c] == i for i, c in enumerate(tok.itos))
    ids = tok.encode(text)
    assert type(ids) is list and all(type(i) is int for i in ids)
    assert ids == [tok.stoi[c] for c in text]
    assert tok.decode(ids) == text
    assert tok.decode(np.array(ids)) == text
    assert tok.decode(torch.tensor(ids)) == text
    assert tok.decode([]) == "" and tok.encode("") == []


def test_char_tokenizer_errors():
    tok = CharTokenizer("abc")
    with pytest.raises(ValueError, match="character 'z' not in the vocabulary of 3 characters"):
        tok.encode("abz")
    with pytest.raises(ValueError, match="id 3 is out of range for a vocabulary of 3"):
        tok.decode([0, 3])
    with pytest.raises(ValueError, match="id -1 is out of range"):
        tok.decode([-1])
    with pytest.raises(TypeError, match="integer ids"):
        tok.decode([0.5])
    with pytest.raises(ValueError, match="empty"):
        CharTokenizer("")


TEXT = "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(40))


def test_text_dataset_windows():
    ds = TextDataset(TEXT, block_size=16)
    n_train = int(len(TEXT) * 0.9)
    assert len(ds) == n_train - 16
    tok = ds.tokenizer
    for i in (0, 5, len(ds) - 1, -1):
        x, y = ds[i]
        j = i % len(ds)
        assert x.dtype == torch.int64 and tuple(x.shape) == (16,) and tuple(y.shape) == (16,)
        assert tok.decode(x) == TEXT[j:j + 16]
        assert tok.decode(y) == TEXT[j + 1:j + 17]
    with pytest.raises(IndexError, match="out of range"):
        ds[len(ds)]


def test_text_dataset_splits_share_the_vocabulary():
    train = TextDataset(TEXT, 8, split="train", val_fraction=0.25)
    val = TextDataset(TEXT, 8, split="val", val_fraction=0.25)
    assert train.tokenizer.itos == val.tokenizer.itos
    assert len(train.data) + len(val.data) == len(TEXT)
    assert train.tokenizer.decode(val.data) == TEXT[int(len(TEXT) * 0.75):]


def test_text_dataset_get_batch():
    ds = TextDataset(TEXT, block_size=12)
    x, y = ds.get_batch(32, generator=torch.Generator().manual_seed(3))
    assert x.dtype == torch.int64 and tuple(x.shape) == (32, 12) and tuple(y.shape) == (32, 12)
    train_text = ds.tokenizer.decode(ds.data)
    for row_x, row_y in zip(x.tolist(), y.tolist()):
        sx, sy = ds.tokenizer.decode(row_x), ds.tokenizer.decode(row_y)
        assert sx[1:] == sy[:-1] and (sx + sy[-1]) in train_text
    x2, y2 = ds.get_batch(32, generator=torch.Generator().manual_seed(3))
    assert x2.tolist() == x.tolist() and y2.tolist() == y.tolist()
    x[0, 1] = -5  # x and y are separate memory
    assert y[0, 0].item() != -5


def test_text_dataset_reads_files_and_checks_arguments(tmp_path):
    p = tmp_path / "corpus.txt"
    p.write_text(TEXT, encoding="utf-8")
    assert TextDataset(p, 8).tokenizer.decode(TextDataset(str(p), 8).data) == TEXT[:int(len(TEXT) * 0.9)]
    with pytest.raises(FileNotFoundError, match="no such file"):
        TextDataset(str(tmp_path / "missing.txt"), 8)
    with pytest.raises(ValueError, match="has 6 characters, too few for one window of block_size=8"):
        TextDataset("abcde\n", 8, val_fraction=0.0)
    with pytest.raises(ValueError, match="split must be 'train' or 'val'"):
        TextDataset(TEXT, 8, split="test")
    with pytest.raises(ValueError, match="block_size must be at least 1"):
        TextDataset(TEXT, 0)


def test_tiny_shakespeare_through_npgrad_data(tmp_path, monkeypatch):
    """The real corpus when NPGRAD_DATA is set (CI), else a small stand-in file in an NPGRAD_DATA made here."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    real = bool(os.environ.get("NPGRAD_DATA"))
    if not real:
        (tmp_path / "env" / "tinyshakespeare").mkdir(parents=True)
        (tmp_path / "env" / "tinyshakespeare" / "input.txt").write_text("First Citizen:\n" + TEXT)
        monkeypatch.setenv("NPGRAD_DATA", str(tmp_path / "env"))
    path = find_tiny_shakespeare(download=False)
    text = load_tiny_shakespeare(download=False)
    assert text.startswith("First Citizen:")
    ds = TextDataset(path, block_size=32)
    if real:
        assert len(text) == 1115394 and ds.vocab_size == 65
    assert len(ds.data) == int(len(text) * 0.9)
    assert ds.tokenizer.decode(ds[0][0]) == text[:32]


def test_tiny_shakespeare_not_found(isolated):
    with pytest.raises(DatasetNotFoundError, match="(?s)tiny-shakespeare not found.*tinyshakespeare"):
        find_tiny_shakespeare(root=isolated, download=False)


# -- the embedded digits ------------------------------------------------------------------------------------

def test_shipped_digits_file_is_the_documented_one():
    import npgrad.datasets.digits as d
    notice = (pathlib.Path(d.__file__).parent / "data" / "NOTICE.txt").read_text()
    assert f"md5    {md5(d._FILE)}" in notice


def test_load_digits():
    X, y = load_digits()
    assert X.dtype == torch.float32 and tuple(X.shape) == (1797, 64)
    assert y.dtype == torch.int64 and tuple(y.shape) == (1797,)
    Xn = X.numpy()
    assert Xn.min() == 0 and Xn.max() == 16 and np.all(Xn == np.round(Xn))
    assert np.bincount(y.numpy()).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert y[:10].tolist() == list(range(10))
    X[0, 0] = 99.0  # the caller's own copy: the next call is unaffected
    assert load_digits()[0][0, 0].item() == 0.0


def test_digits_split_is_fixed_stratified_and_complete():
    train, test = Digits(), Digits(train=False)
    assert len(train) == 1438 and len(test) == 359
    X, y = load_digits()
    rows = lambda imgs, labels: sorted(map(tuple, np.column_stack([imgs.reshape(len(labels), -1), labels])))
    both = rows(np.concatenate([train.data.numpy(), test.data.numpy()]),
                np.concatenate([train.targets.numpy(), test.targets.numpy()]))
    assert both == rows(X.numpy().astype(np.uint8), y.numpy())
    counts = np.bincount(y.numpy())
    assert np.bincount(test.targets.numpy()).tolist() == [int(round(0.2 * c)) for c in counts]
    assert Digits().targets.tolist() == train.targets.tolist()
    assert np.array_equal(Digits(train=False).data.numpy(), test.data.numpy())


def test_digits_items():
    ds = Digits(transform=lambda t: t.reshape(64), target_transform=str)
    x, label = ds[5]
    assert x.dtype == torch.float32 and tuple(x.shape) == (64,)
    np.testing.assert_allclose(x.numpy(), ds.data.numpy()[5].reshape(64) / 16.0, rtol=1e-6)
    assert label == str(ds.targets[5].item())
    img, _ = Digits()[0]
    assert tuple(img.shape) == (1, 8, 8) and 0.0 <= img.min().item() and img.max().item() <= 1.0


def test_digits_are_learnable():
    """Images and labels belong together: a linear softmax classifier trained on the training split for a
    few full-batch steps classifies the held-out test split far above chance (10%)."""
    train, test = Digits(), Digits(train=False)
    X, y = train.data.float().reshape(-1, 64) / 16, train.targets
    W = torch.zeros(64, 10, requires_grad=True)
    b = torch.zeros(10, requires_grad=True)
    for _ in range(60):
        logits = X @ W + b
        loss = (logits.logsumexp(1) - logits.gather(1, y[:, None]).squeeze(1)).mean()
        W.grad = b.grad = None
        loss.backward()
        with torch.no_grad():
            W -= 0.5 * W.grad
            b -= 0.5 * b.grad
    pred = (test.data.float().reshape(-1, 64) / 16 @ W + b).argmax(1)
    assert (pred == test.targets).float().mean().item() > 0.85


def test_download_resumes_and_replaces_a_corrupt_leftover(isolated, server, monkeypatch):
    base, served = server
    arrays = make_mnist(served)
    monkeypatch.setattr(MNIST, "mirrors", [base])
    monkeypatch.setattr(MNIST, "resources", [(n, md5(served / n)) for n in MNIST_FILES])
    cache = isolated / "xdg" / "npgrad" / "mnist"
    cache.mkdir(parents=True)
    (cache / "train-labels-idx1-ubyte.gz").write_bytes((served / "train-labels-idx1-ubyte.gz").read_bytes())
    (cache / "train-images-idx3-ubyte.gz").write_bytes(b"garbage")  # left by some earlier failure
    ds = MNIST()
    np.testing.assert_array_equal(ds.data.numpy(), arrays["train-images-idx3-ubyte.gz"])
    assert sorted(_Quiet.requests) == sorted(["/train-images-idx3-ubyte.gz", "/t10k-images-idx3-ubyte.gz",
                                              "/t10k-labels-idx1-ubyte.gz"])
