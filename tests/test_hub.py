"""npgrad.hub (torch.hub): the cache directory, checkpoint files fetched into it, and hubconf.py entrypoints from
a directory or a cached GitHub snapshot; against torch.hub where it is installed. No test touches the network:
downloads read file:// URLs, and "offline" is urlopen raising URLError."""
import os
import urllib.error
import urllib.request
import zipfile

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

HUBCONF = '''dependencies = ["numpy"]


def double(x=1, *, extra=0):
    """Twice x, plus extra."""
    return 2 * x + extra


def _private():
    return None


SCALE = 3
'''


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(npgrad.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    if HAS_TORCH:
        monkeypatch.setattr(torch.hub, "_hub_dir", None)
    d = tmp_path / "home" / "hub"
    d.mkdir(parents=True)
    return d


def _repo(folder, text=HUBCONF):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hubconf.py").write_text(text)
    return folder


@pytest.fixture
def offline(monkeypatch):
    def refuse(*a, **k):
        raise urllib.error.URLError("no network in the tests")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def test_reachable_as_torch_hub():
    import importlib
    assert npgrad.hub is importlib.import_module("npgrad.hub")
    assert "hub" in dir(npgrad)


def test_cache_directory(hub_dir, tmp_path, monkeypatch):
    assert npgrad.hub.get_dir() == str(hub_dir)
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert npgrad.hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    npgrad.hub.set_dir(tmp_path / "mine")
    assert npgrad.hub.get_dir() == str(tmp_path / "mine")
    if HAS_TORCH:
        torch.hub.set_dir(tmp_path / "mine")
        assert torch.hub.get_dir() == npgrad.hub.get_dir()


def test_download_url_to_file_checks_the_hash(tmp_path):
    src = tmp_path / "weights-abc.bin"
    src.write_bytes(os.urandom(300_000))  # several read chunks
    import hashlib
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    dst = tmp_path / "out" / "copy.bin"
    npgrad.hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:8], progress=False)
    assert dst.read_bytes() == src.read_bytes()
    bad = tmp_path / "out" / "bad.bin"
    with pytest.raises(RuntimeError, match="invalid hash value"):
        npgrad.hub.download_url_to_file(src.as_uri(), str(bad), hash_prefix="0000", progress=False)
    assert not bad.exists() and os.listdir(tmp_path / "out") == ["copy.bin"]  # no partial file kept


def test_load_state_dict_from_url_reads_the_cache_first(hub_dir, offline):
    state = {"w": npgrad.arange(6.0).reshape(2, 3)}
    ckpt = hub_dir / "checkpoints"
    ckpt.mkdir()
    npgrad.save(state, str(ckpt / "net-0123abcd.pth"))
    got = npgrad.hub.load_state_dict_from_url("https://example.invalid/models/net-0123abcd.pth", check_hash=True)
    np.testing.assert_array_equal(got["w"].numpy(), state["w"].numpy())
    other = hub_dir / "elsewhere"
    other.mkdir()
    npgrad.save(state, str(other / "renamed.pth"))
    got = npgrad.hub.load_state_dict_from_url("https://example.invalid/x.pth", model_dir=str(other),
                                              file_name="renamed.pth")
    assert list(got) == ["w"]


@pytest.mark.skipif(not HAS_TORCH, reason="needs torch to write a PyTorch checkpoint")
def test_a_pytorch_checkpoint_in_the_cache_loads(hub_dir, offline):
    ckpt = hub_dir / "checkpoints"
    ckpt.mkdir()
    t = torch.randn(3, 4)
    torch.save({"layer.weight": t}, ckpt / "model-feedbeef.pth")
    got = npgrad.hub.load_state_dict_from_url("https://download.example/model-feedbeef.pth")
    np.testing.assert_array_equal(got["layer.weight"].numpy(), t.numpy())


def test_offline_download_names_the_file_and_its_place(hub_dir, offline):
    with pytest.raises(RuntimeError) as err:
        npgrad.hub.load_state_dict_from_url("https://download.example/models/big-12345678.pth")
    msg = str(err.value)
    assert "https://download.example/models/big-12345678.pth" in msg
    assert str(hub_dir / "checkpoints" / "big-12345678.pth") in msg
    assert os.listdir(hub_dir / "checkpoints") == []


def _both(fn):
    """fn(hub) under npgrad and, when installed, torch: (result or (error type, message)) pairs."""
    out = []
    for hub in [npgrad.hub] + ([torch.hub] if HAS_TORCH else []):
        try:
            out.append(fn(hub))
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize("call", [
    lambda hub, d: hub.load(d, "double", 5, source="local"),
    lambda hub, d: hub.load(d, "double", x=2, extra=1, source="LOCAL"),
    lambda hub, d: hub.load(d, "nope", source="local"),
    lambda hub, d: hub.load(d, "SCALE", source="local"),
    lambda hub, d: hub.load(d, 3, source="local"),
    lambda hub, d: hub.load(d, "double", source="svn"),
])
def test_load_local(tmp_path, call):
    d = str(_repo(tmp_path / "repo"))
    results = _both(lambda hub: call(hub, d))
    assert results[0] in (10, 5) or isinstance(results[0], tuple)
    if HAS_TORCH:
        assert results[0] == results[1]


def test_local_hubconf_dependencies_and_its_own_modules(tmp_path):
    d = _repo(tmp_path / "repo", "from helper import VALUE\ndependencies = ['numpy', 'no_such_module_xyz', 'zzz_q']\n"
                                  "def get():\n    return VALUE\n")
    (d / "helper.py").write_text("VALUE = 41\n")
    with pytest.raises(RuntimeError, match="^Missing dependencies: no_such_module_xyz, zzz_q$"):
        npgrad.hub.load(str(d), "get", source="local")
    (d / "hubconf.py").write_text("from helper import VALUE\ndependencies = ['numpy']\ndef get():\n    return VALUE + 1\n")
    assert npgrad.hub.load(str(d), "get", source="local") == 42
    assert str(d) not in __import__("sys").path  # the repository's folder is on sys.path only while loading


def test_github_from_the_cache(hub_dir, offline, capsys):
    _repo(hub_dir / "someone_tools_main")
    results = _both(lambda hub: (hub.list("someone/tools"), hub.help("someone/tools", "double"),
                                 hub.load("someone/tools", "double", 4, extra=1)))
    assert results[0] == (["double"], "Twice x, plus extra.", 9)
    assert f"Using cache found in {hub_dir / 'someone_tools_main'}" in capsys.readouterr().err
    if HAS_TORCH:
        assert results[0] == results[1]
    _repo(hub_dir / "someone_tools_v1.0", HUBCONF.replace("2 * x", "3 * x"))
    assert npgrad.hub.load("someone/tools:v1.0", "double", 1, verbose=False) == 3


@pytest.mark.parametrize("answer", ["n", "y", "what"])
def test_trust_prompt(hub_dir, offline, monkeypatch, answer, capsys):
    _repo(hub_dir / "someone_tools_main")
    prompts = []
    monkeypatch.setattr("builtins.input", lambda p: prompts.append(p) or answer)
    results = _both(lambda hub: hub.load("someone/tools", "double", 1, trust_repo=False))
    assert results[0] == {"n": ("Exception", "Untrusted repository."), "y": 2,
                          "what": ("ValueError", "Unrecognized response what.")}[answer]
    assert prompts[0].startswith("The repository someone_tools does not belong to the list of trusted repositories")
    if HAS_TORCH:
        assert results[0] == results[1] and prompts[0] == prompts[1]
    if answer == "y":
        assert "The repository is already trusted." in capsys.readouterr().out


def test_github_offline_error_and_trusted_list(hub_dir, offline):
    results = _both(lambda hub: hub.load("someone/absent", "double", trust_repo=True))
    assert results[0][0] == "RuntimeError"
    assert results[0][1].startswith("It looks like there is no internet connection and the repo could not be found "
                                    f"in the cache ({hub_dir})")
    assert str(hub_dir / "someone_absent_main") in results[0][1]
    assert (hub_dir / "trusted_list").read_text().split() == ["someone_absent"]
    if HAS_TORCH:
        assert results[1][0] == "RuntimeError" and results[0][1].startswith(results[1][1])


def test_github_download_is_unpacked_into_the_cache(hub_dir, monkeypatch):
    """The archive GitHub serves holds one <owner>-<name>-<sha> folder; it becomes <owner>_<name>_<ref>."""
    urls = []

    def fake_download(url, dst, hash_prefix=None, progress=True):
        urls.append(url)
        with zipfile.ZipFile(dst, "w") as z:
            z.writestr("someone-tools-1a2b3c/hubconf.py", HUBCONF)
            z.writestr("someone-tools-1a2b3c/pkg/__init__.py", "")
    monkeypatch.setattr(npgrad.hub, "download_url_to_file", fake_download)
    assert npgrad.hub.load("someone/tools:dev", "double", 2, trust_repo=True, verbose=False) == 4
    assert urls == ["https://github.com/someone/tools/zipball/dev"]
    assert sorted(os.listdir(hub_dir / "someone_tools_dev")) == ["hubconf.py", "pkg"]
    assert not (hub_dir / "dev.zip").exists()
    npgrad.hub.load("someone/tools:dev", "double", trust_repo=True, verbose=False)
    assert len(urls) == 1  # cached now
    npgrad.hub.load("someone/tools:dev", "double", trust_repo=True, verbose=False, force_reload=True)
    assert len(urls) == 2


def test_a_zipped_pre_1_6_checkpoint_is_unpacked_and_read(tmp_path, offline):
    """Files zipped by hand around a legacy-format checkpoint (one member) load, with PyTorch's warning."""
    model_dir = tmp_path / "md"
    model_dir.mkdir()
    npgrad.save({"w": npgrad.ones(2)}, str(tmp_path / "inner.pth"))
    with zipfile.ZipFile(model_dir / "old-1234.zip", "w") as z:
        z.write(tmp_path / "inner.pth", "inner.pth")
    results = _both(lambda hub: _warned(lambda: hub.load_state_dict_from_url("http://x.invalid/old-1234.zip",
                                                                              model_dir=str(model_dir))))
    (state, messages) = results[0]
    np.testing.assert_array_equal(state["w"].numpy(), [1.0, 1.0])
    assert messages[0].startswith("Falling back to the old format < 1.6.")
    assert sorted(os.listdir(model_dir)) == ["inner.pth", "old-1234.zip"]
    if HAS_TORCH:
        assert results[1][1] == messages


def _warned(fn):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


def test_pytorch_vision_is_served_from_npgrad_vision_offline(hub_dir, offline):
    """torch.hub.load("pytorch/vision", ...) of the tutorials: that hubconf re-exports torchvision.models, so
    without a cached snapshot the builders come from npgrad.vision.models; a cached snapshot wins."""
    from npgrad.vision import models
    names = npgrad.hub.list("pytorch/vision")
    assert {"resnet18", "squeezenet1_1", "get_weight", "get_model_weights"} <= set(names)
    assert "Weights" not in names and all(callable(getattr(models, n, None)) or n in models.list_models() for n in names)
    m = npgrad.hub.load("pytorch/vision:v0.10.0", "squeezenet1_1", num_classes=3)
    assert isinstance(m, models.SqueezeNet) and m.num_classes == 3
    assert npgrad.hub.load("pytorch/vision", "get_weight", "ResNet50_Weights.DEFAULT") is models.ResNet50_Weights.DEFAULT
    assert npgrad.hub.help("pytorch/vision", "resnet18") == models.resnet18.__doc__
    with pytest.raises(RuntimeError, match="Cannot find callable no_such_net in hubconf"):
        npgrad.hub.load("pytorch/vision", "no_such_net")
    _repo(hub_dir / "pytorch_vision_main")
    assert npgrad.hub.list("pytorch/vision") == ["double"]


def test_github_default_branch_falls_back_to_master(hub_dir, monkeypatch):
    urls = []

    def fake_download(url, dst, hash_prefix=None, progress=True):
        urls.append(url)
        if url.endswith(("/main", "/nope-branch")):
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        with zipfile.ZipFile(dst, "w") as z:
            z.writestr("old-repo-9f9f9f/hubconf.py", HUBCONF)
    monkeypatch.setattr(npgrad.hub, "download_url_to_file", fake_download)
    assert npgrad.hub.list("old/repo", trust_repo=True, verbose=False) == ["double"]
    assert urls == ["https://github.com/old/repo/zipball/main", "https://github.com/old/repo/zipball/master"]
    assert (hub_dir / "old_repo_master" / "hubconf.py").exists()
    with pytest.raises(urllib.error.HTTPError):  # a ref that does not exist is GitHub's 404, not a fallback
        npgrad.hub.load("old/repo:nope-branch", "double", trust_repo=True, verbose=False)
