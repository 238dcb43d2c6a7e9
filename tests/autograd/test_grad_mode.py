"""Grad mode: no_grad / enable_grad / set_grad_enabled / inference_mode as contexts and decorators,
nested, and thread-local."""
import threading

import pytest

import npgrad
from oracle import HAS_TORCH, torch

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])


def _leaf(lib):
    return lib.ones(2, requires_grad=True)


@pytest.mark.parametrize("lib", LIBS, ids=lambda l: l.__name__)
def test_no_grad_context_and_nesting(lib):
    x = _leaf(lib)
    with lib.no_grad():
        assert not lib.is_grad_enabled()
        y = x * 2
        with lib.enable_grad():
            assert lib.is_grad_enabled()
            z = x * 2
            with lib.no_grad():
                w = x * 2
            assert lib.is_grad_enabled()
        assert not lib.is_grad_enabled()
    assert lib.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None
    assert not w.requires_grad


@pytest.mark.parametrize("lib", LIBS, ids=lambda l: l.__name__)
def test_decorators_with_and_without_parentheses(lib):
    x = _leaf(lib)

    @lib.no_grad()
    def f1():
        return x * 2, lib.is_grad_enabled()

    @lib.no_grad
    def f2():
        return x * 2

    @lib.enable_grad()
    def f3():
        return x * 2

    @lib.inference_mode()
    def f4():
        return x * 2

    @lib.inference_mode
    def f5():
        return x * 2

    y, mode = f1()
    assert not y.requires_grad and mode is False
    assert not f2().requires_grad
    with lib.no_grad():
        assert f3().requires_grad
    assert not f4().requires_grad and not f5().requires_grad
    assert f1.__name__ == "f1"
    assert lib.is_grad_enabled()


@pytest.mark.parametrize("lib", LIBS, ids=lambda l: l.__name__)
def test_set_grad_enabled_call_context_and_decorator(lib):
    x = _leaf(lib)
    lib.set_grad_enabled(False)
    try:
        assert not lib.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        lib.set_grad_enabled(True)
    assert lib.is_grad_enabled()
    with lib.set_grad_enabled(False):
        assert not (x * 2).requires_grad
        with lib.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not lib.is_grad_enabled()
    assert lib.is_grad_enabled()

    @lib.set_grad_enabled(False)
    def f():
        return x * 2

    assert lib.is_grad_enabled()  # decorating does not change the mode
    assert not f().requires_grad
    assert lib.is_grad_enabled()


@pytest.mark.parametrize("lib", LIBS, ids=lambda l: l.__name__)
def test_mode_restored_after_exception(lib):
    with pytest.raises(ValueError):
        with lib.no_grad():
            raise ValueError("boom")
    assert lib.is_grad_enabled()

    @lib.no_grad()
    def bad():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        bad()
    assert lib.is_grad_enabled()


@pytest.mark.parametrize("lib", LIBS, ids=lambda l: l.__name__)
def test_inference_mode(lib):
    x = _leaf(lib)
    with lib.inference_mode():
        assert lib.is_inference_mode_enabled() and not lib.is_grad_enabled()
        assert not (x * 2).requires_grad
        with lib.inference_mode(False):
            assert not lib.is_inference_mode_enabled() and lib.is_grad_enabled()
        with lib.enable_grad():
            assert lib.is_inference_mode_enabled() and lib.is_grad_enabled()
    assert not lib.is_inference_mode_enabled() and lib.is_grad_enabled()
    with lib.inference_mode(False):
        assert (x * 2).requires_grad


@pytest.mark.parametrize("lib", LIBS, ids=lambda l: l.__name__)
def test_decorated_generator_keeps_mode_inside(lib):
    x = _leaf(lib)

    @lib.no_grad()
    def gen():
        for _ in range(2):
            yield (x * 2).requires_grad, lib.is_grad_enabled()

    results = []
    for item in gen():
        results.append(item)
        assert lib.is_grad_enabled()  # the caller's mode between steps
    assert results == [(False, False), (False, False)]


def test_grad_mode_is_thread_local():
    seen = {}
    started, release = threading.Event(), threading.Event()

    def worker():
        x = _leaf(npgrad)
        seen["enabled"] = npgrad.is_grad_enabled()
        seen["records"] = (x * 2).requires_grad
        with npgrad.no_grad():  # must not leak into the main thread
            started.set()
            release.wait(5)

    with npgrad.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        started.wait(5)
        assert not npgrad.is_grad_enabled()
        release.set()
        t.join(5)
    assert seen == {"enabled": True, "records": True}
    assert npgrad.is_grad_enabled()


def test_backward_inside_no_grad_still_works():
    # PyTorch computes gradients in a no_grad block (only recording is off).
    x = _leaf(npgrad)
    y = (x * x).sum()
    with npgrad.no_grad():
        y.backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert npgrad.is_grad_enabled()
