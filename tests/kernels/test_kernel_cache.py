"""numba's on-disk cache is dropped when any kernel source changed: numba itself checks only the compiled
function's own file, while kernels inline helpers from other files (kernels/_jit.py: drop_stale_cache); and the
compile target npgrad picks for numba (512-bit vectors on AVX-512 only, never over a user's own choice)."""
import os
import types

import pytest

from npgrad.kernels import _jit


def _files(folder):
    return sorted(os.listdir(folder))


def test_digest_follows_every_source_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("not a source")
    d0 = _jit.sources_digest(tmp_path)
    (tmp_path / "notes.txt").write_text("changed")
    assert _jit.sources_digest(tmp_path) == d0
    (tmp_path / "b.py").write_text("y = 3\n")
    assert _jit.sources_digest(tmp_path) != d0


def test_cached_code_goes_when_the_sources_changed(tmp_path):
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for name in ("softmax._rows-19.py311.nbi", "softmax._rows-19.py311.1.nbc", "softmax.cpython-311.pyc"):
        (cache / name).write_bytes(b"old")
    _jit.drop_stale_cache(str(cache), "digest-1")  # no stamp yet: whatever is there may be stale
    assert _files(cache) == ["npgrad-kernels.sources", "softmax.cpython-311.pyc"]
    (cache / "softmax._rows-19.py311.nbi").write_bytes(b"new")
    _jit.drop_stale_cache(str(cache), "digest-1")  # same sources: kept
    assert "softmax._rows-19.py311.nbi" in _files(cache)
    _jit.drop_stale_cache(str(cache), "digest-2")  # an edited helper file: dropped, the new stamp written
    assert _files(cache) == ["npgrad-kernels.sources", "softmax.cpython-311.pyc"]
    assert (cache / "npgrad-kernels.sources").read_text() == "digest-2"


def test_an_unwritable_cache_folder_is_left_alone(tmp_path, monkeypatch):
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "k.nbi").write_bytes(b"x")

    def refuse(path):
        raise PermissionError(13, "Permission denied", path)
    monkeypatch.setattr(os, "remove", refuse)  # a read-only install (the mode bits would not stop root)
    _jit.drop_stale_cache(str(cache), "digest")  # no error: the kernels still load
    assert _files(cache) == ["k.nbi"]


class _Features:
    def __init__(self, text):
        self.text = text

    def flatten(self):
        return self.text


def _fake_numba(name=None, features=None):
    cfg = types.SimpleNamespace(CPU_NAME=name, CPU_FEATURES=features)
    return types.SimpleNamespace(core=types.SimpleNamespace(config=cfg)), cfg


def test_full_width_vectors_on_avx512_only_and_never_over_a_users_choice(monkeypatch):
    llvm = pytest.importorskip("llvmlite.binding", reason="the target settings are llvmlite's (numba's own dependency)")
    monkeypatch.setattr(llvm, "get_host_cpu_name", lambda: "somelake")
    monkeypatch.setattr(llvm, "get_host_cpu_features", lambda: _Features("+avx2,+avx512f,+fma"))
    nb, cfg = _fake_numba()
    _jit._prefer_full_width_vectors(nb)
    assert (cfg.CPU_NAME, cfg.CPU_FEATURES) == ("somelake", "+avx2,+avx512f,+fma,-prefer-256-bit")
    nb, cfg = _fake_numba(name="znver3")  # the user's own target: kept
    _jit._prefer_full_width_vectors(nb)
    assert (cfg.CPU_NAME, cfg.CPU_FEATURES) == ("znver3", None)
    monkeypatch.setattr(llvm, "get_host_cpu_features", lambda: _Features("+avx2,-avx512f,+fma"))
    nb, cfg = _fake_numba()  # no AVX-512: nothing to prefer
    _jit._prefer_full_width_vectors(nb)
    assert (cfg.CPU_NAME, cfg.CPU_FEATURES) == (None, None)
