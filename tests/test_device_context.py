"""``with torch.device(...)``: the default device inside, nested and restored; set/get_default_device."""
import threading

import pytest

import npgrad

from oracle import HAS_TORCH, torch

LIBS = ["npgrad"] + (["torch"] if HAS_TORCH else [])


def _lib(name):
    return npgrad if name == "npgrad" else torch


@pytest.mark.parametrize("libname", LIBS)
def test_device_context_sets_and_restores_the_default(libname):
    lib = _lib(libname)
    assert lib.get_default_device() == lib.device("cpu") and isinstance(lib.get_default_device(), lib.device)
    outer = lib.device("cpu", 0)
    with outer as d:
        assert d is outer and lib.get_default_device() == outer
        assert lib.zeros(1).device == lib.device("cpu")
        assert lib.nn.Linear(2, 2).weight.device.type == "cpu"
        with lib.device("cpu"):
            assert lib.get_default_device() == lib.device("cpu")
            with outer:  # the same object entered again
                assert lib.get_default_device() == outer
            assert lib.get_default_device() == lib.device("cpu")
        assert lib.get_default_device() == outer
    assert lib.get_default_device() == lib.device("cpu") and lib.get_default_device().index is None


@pytest.mark.parametrize("libname", LIBS)
def test_default_device_is_per_thread(libname):
    lib = _lib(libname)
    seen = []
    with lib.device("cpu", 0):
        t = threading.Thread(target=lambda: seen.append(lib.get_default_device()))
        t.start()
        t.join()
    assert seen == [lib.device("cpu")]
    lib.set_default_device("cpu:0")
    try:
        assert lib.get_default_device() == lib.device("cpu", 0)
    finally:
        lib.set_default_device(None)
    assert lib.get_default_device() == lib.device("cpu")


@pytest.mark.parametrize("libname", LIBS)
def test_exit_without_enter_and_cuda(libname):
    lib = _lib(libname)
    with pytest.raises(RuntimeError, match="^trying to pop from empty mode stack$"):
        lib.device("cpu").__exit__(None, None, None)
    with pytest.raises(TypeError):
        with "cpu":
            pass
    # A build without CUDA: PyTorch raises at the first factory inside, npgrad already on entry (same error).
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        with lib.device("cuda"):
            lib.zeros(1)
    assert lib.get_default_device() == lib.device("cpu")
