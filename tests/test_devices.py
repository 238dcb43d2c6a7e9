"""torch.cuda / torch.backends / torch.mps, torch.device, and the process-wide settings, as a PyTorch build
without accelerators behaves: queries answer honestly, settings are kept, placing a tensor elsewhere than
the CPU raises PyTorch's own error. Each expression is evaluated in npgrad and (when installed) PyTorch."""
import sys
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from oracle import HAS_TORCH, torch

# expression in `lib` -> what a CPU-only PyTorch gives (the oracle when torch is installed)
EXPRS = {
    "cuda_available": ("lib.cuda.is_available()", False),
    "cuda_count": ("lib.cuda.device_count()", 0),
    "cuda_initialized": ("lib.cuda.is_initialized()", False),
    "cuda_seed": ("lib.cuda.manual_seed(0)", None),
    "cuda_seed_all": ("lib.cuda.manual_seed_all(0)", None),
    "cuda_empty_cache": ("lib.cuda.empty_cache()", None),
    "cuda_memory": ("lib.cuda.memory_allocated()", 0),
    "cuda_max_memory": ("lib.cuda.max_memory_allocated()", 0),
    "cuda_bf16": ("lib.cuda.is_bf16_supported()", False),
    "cuda_synchronize": ("lib.cuda.synchronize()", AssertionError("Torch not compiled with CUDA enabled")),
    "cuda_current_device": ("lib.cuda.current_device()", AssertionError("Torch not compiled with CUDA enabled")),
    "cuda_device_name": ("lib.cuda.get_device_name()", AssertionError("Torch not compiled with CUDA enabled")),
    "cudnn_available": ("lib.backends.cudnn.is_available()", False),
    "cudnn_enabled": ("lib.backends.cudnn.enabled", True),
    "cudnn_deterministic": ("lib.backends.cudnn.deterministic", False),
    "cudnn_version": ("lib.backends.cudnn.version()", None),
    "mps_available": ("lib.backends.mps.is_available()", False),
    "mps_built": ("lib.backends.mps.is_built()", False),
    "mps_count": ("lib.mps.device_count()", 0),
    "mps_synchronize": ("lib.mps.synchronize()",
                        RuntimeError("Cannot execute deviceSynchronize() without MPS backend.")),
    "tf32": ("lib.backends.cuda.matmul.allow_tf32", False),
    "device_cuda": ("repr(lib.device('cuda:1'))", "device(type='cuda', index=1)"),
    "device_str": ("str(lib.device('cuda', 0))", "cuda:0"),
    "device_cpu0": ("repr(lib.device('cpu:0'))", "device(type='cpu', index=0)"),
    "device_eq": ("lib.device('cpu') == lib.device('cpu')", True),
    "device_eq_index": ("lib.device('cpu') == lib.device('cpu', 0)", False),
    "device_bad": ("lib.device('cuda:x')", RuntimeError("Invalid device string: 'cuda:x'")),
    "device_int": ("lib.device(0)", RuntimeError("Cannot access accelerator device when none is available.")),
    "to_cuda": ("lib.ones(2).to('cuda')", AssertionError("Torch not compiled with CUDA enabled")),
    "to_device_cuda": ("lib.ones(2).to(lib.device('cuda'))", AssertionError("Torch not compiled with CUDA enabled")),
    "cuda_method": ("lib.ones(2).cuda()", AssertionError("Torch not compiled with CUDA enabled")),
    "cuda_method_index": ("lib.ones(2).cuda(0)",
                          RuntimeError("Cannot access accelerator device when none is available.")),
    "factory_cuda": ("lib.zeros(2, device='cuda')", AssertionError("Torch not compiled with CUDA enabled")),
    "to_xpu": ("lib.ones(2).to('xpu')", AssertionError("Torch not compiled with XPU enabled")),
    "to_mps": ("lib.ones(2).to('mps')", RuntimeError("PyTorch is not linked with support for mps devices")),
    "to_cpu0": ("lib.ones(2).to('cpu:0').tolist()", [1.0, 1.0]),
    "is_cpu": ("lib.ones(2).is_cpu", True),
    "is_cuda": ("lib.ones(2).is_cuda", False),
    "is_mps": ("lib.ones(2).is_mps", False),
    "is_xpu": ("lib.ones(2).is_xpu", False),
    "module_to_cuda": ("lib.nn.Linear(2, 2).to('cuda')", AssertionError("Torch not compiled with CUDA enabled")),
    "compile_bad": ("lib.compile(3)", AssertionError("A callable function is expected, but <class 'int'> is provided.")),
    "matmul_precision": ("lib.get_float32_matmul_precision()", "highest"),
    "deterministic": ("lib.are_deterministic_algorithms_enabled()", False),
}


def _outcome(lib, expr):
    try:
        return eval(expr, {"lib": lib})
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return e


def _same(got, want):
    if isinstance(want, Exception):
        return type(got) is type(want) and str(got).split(" (Triggered internally")[0] == str(want)
    return not isinstance(got, Exception) and got == want


@pytest.mark.parametrize("name", EXPRS)
def test_like_a_cpu_only_pytorch(name):
    expr, expected = EXPRS[name]
    if HAS_TORCH:
        t = _outcome(torch, expr)
        assert _same(t, expected), f"{name}: PyTorch gives {t!r}, the table says {expected!r}"
    got = _outcome(npgrad, expr)
    assert _same(got, expected), f"{name}: npgrad gives {got!r}, PyTorch {expected!r}"


def test_backend_flags_are_settable_and_kept():
    from npgrad.backends import cudnn
    old = cudnn.benchmark, cudnn.deterministic
    try:
        npgrad.backends.cudnn.benchmark = True
        npgrad.backends.cudnn.deterministic = True
        assert cudnn.benchmark is True and npgrad.backends.cudnn.deterministic is True
    finally:
        cudnn.benchmark, cudnn.deterministic = old


def test_settings_round_trip_and_refuse_like_pytorch():
    npgrad.set_float32_matmul_precision("high")
    assert npgrad.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        npgrad.set_float32_matmul_precision("fastest")
    assert npgrad.get_float32_matmul_precision() == "high"
    npgrad.set_float32_matmul_precision("highest")
    npgrad.use_deterministic_algorithms(True, warn_only=True)
    assert npgrad.are_deterministic_algorithms_enabled() and npgrad.is_deterministic_algorithms_warn_only_enabled()
    npgrad.use_deterministic_algorithms(False)
    assert not npgrad.are_deterministic_algorithms_enabled()
    with pytest.raises(TypeError, match="must be bool, not int"):
        npgrad.use_deterministic_algorithms(1)


def test_compile_returns_the_model_that_runs_unchanged(monkeypatch):  # (PyTorch's real compile takes ~20 s: not run)
    monkeypatch.setattr(npgrad._runtime, "_warned", set())  # as in a fresh process
    m = nn.Linear(3, 2)
    x = npgrad.randn(4, 3)
    with pytest.warns(UserWarning, match="npgrad has no compiler, so the model or function is returned unchanged"):
        assert npgrad.compile(m) is m
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the notice is given once per process
        decorated = npgrad.compile(mode="reduce-overhead")(lambda t: t.sum())
    assert decorated(x).item() == x.sum().item()
    with pytest.raises(RuntimeError, match="Either mode or options"):
        npgrad.compile(m, mode="default", options={})


def test_set_num_threads_without_threadpoolctl_never_fails_a_program(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # as if it were not installed
    monkeypatch.setattr(npgrad._runtime, "_warned", set())
    # as in a fresh process: an earlier test's set_num_threads (with threadpoolctl) is remembered and would win
    monkeypatch.setitem(npgrad._runtime._state, "threads", None)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert npgrad.get_num_threads() == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        npgrad.set_num_threads(3)  # the count it already has: silent
    assert npgrad.get_num_threads() == 3
    with pytest.warns(UserWarning, match="threadpoolctl is not installed"):
        npgrad.set_num_threads(1)
    assert npgrad.get_num_threads() == 1  # what the program set, as PyTorch reports it back
    with pytest.raises(RuntimeError, match="positive integer"):
        npgrad.set_num_threads(0)


def test_set_num_threads_changes_the_blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl", reason="set_num_threads acts through threadpoolctl")
    before = npgrad.get_num_threads()
    try:
        npgrad.set_num_threads(1)
        assert npgrad.get_num_threads() == 1
        blas = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
        assert blas and all(i["num_threads"] == 1 for i in blas)
        a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
        np.testing.assert_allclose((npgrad.tensor(a) @ npgrad.tensor(a)).numpy(), a @ a, rtol=1e-5)
        with pytest.raises(RuntimeError, match="positive integer"):
            npgrad.set_num_threads(0)
    finally:
        npgrad.set_num_threads(before)
