"""torch's submodules that programs import beside the big ones: torch.cpu (and its deprecated amp spellings),
torch.functional, torch.futures, torch.backends.mkl/openmp/opt_einsum, torch.signal.windows, torch.types."""
import math

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch


def test_cpu_is_a_device_module():
    cpu = npgrad.cpu
    assert cpu.is_available() and cpu.is_initialized() and cpu.device_count() == 1 and cpu.current_device() == "cpu"
    assert cpu.synchronize() is None and cpu.set_device("cpu") is None
    s = cpu.current_stream()
    with cpu.stream(s):
        assert s.record_event().query()
    x = npgrad.ones(2, 2)
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
        ctx = cpu.amp.autocast()
    with ctx:
        assert (x @ x).dtype == npgrad.bfloat16
    assert (x @ x).dtype == npgrad.float32
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.GradScaler\(args...\)` is deprecated"):
        assert cpu.amp.GradScaler().is_enabled()
    if HAS_TORCH:
        assert [torch.cpu.device_count(), torch.cpu.current_device()] == [cpu.device_count(), cpu.current_device()]


def test_functional_names_are_the_top_level_functions():
    for name in npgrad.functional.__all__:
        assert getattr(npgrad.functional, name) is getattr(npgrad, name)
    if HAS_TORCH:
        assert sorted(npgrad.functional.__all__) == sorted(torch.functional.__all__)
    a = npgrad.arange(6.0).reshape(2, 3)
    assert npgrad.functional.einsum("ij->j", a).tolist() == [3.0, 5.0, 7.0]


def test_futures_collect_and_wait():
    futs = [npgrad.jit.fork(lambda v: v * 2, i) for i in range(3)]
    assert npgrad.futures.wait_all(futs) == [0, 2, 4]
    assert [f.wait() for f in npgrad.futures.collect_all(futs).wait()] == [0, 2, 4]
    assert isinstance(futs[0], npgrad.futures.Future)


def test_backend_flags():
    b = npgrad.backends
    assert b.openmp.is_available() is False
    assert b.mkl.is_available() is ("mkl" in npgrad._process_tuning.blas_name())
    with b.mkl.verbose(b.mkl.VERBOSE_ON):
        pass
    assert b.opt_einsum.is_available() == b.opt_einsum.enabled
    if HAS_TORCH:
        assert b.opt_einsum.is_available() == torch.backends.opt_einsum.is_available()


def _closed_form(name, n, L):
    """The textbook definitions (SciPy's), independent of the module's code."""
    x = 2 * math.pi * n / (L - 1)
    return {"hann": 0.5 - 0.5 * math.cos(x), "hamming": 0.54 - 0.46 * math.cos(x),
            "blackman": 0.42 - 0.5 * math.cos(x) + 0.08 * math.cos(2 * x),
            "bartlett": 1 - abs(2 * n / (L - 1) - 1), "cosine": math.sin(math.pi * (n + 0.5) / L),
            "gaussian": math.exp(-0.5 * (n - (L - 1) / 2) ** 2)}[name]


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "cosine", "gaussian"])
@pytest.mark.parametrize("sym", [True, False])
def test_windows_against_their_definitions(name, sym):
    M = 9
    got = getattr(npgrad.signal.windows, name)(M, sym=sym, dtype=npgrad.float64).tolist()
    L = M if sym else M + 1
    assert got == pytest.approx([_closed_form(name, n, L) for n in range(M)], abs=1e-12)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
                                  "general_hamming", "hamming", "hann", "kaiser", "nuttall"])
def test_windows_like_pytorch(name):
    kw = dict(a=[0.5, 0.3, 0.2]) if name == "general_cosine" else {}
    for M in (0, 1, 2, 8):
        for sym in (True, False):
            got = getattr(npgrad.signal.windows, name)(M, sym=sym, **kw)
            assert got.dtype == npgrad.float32 and tuple(got.shape) == (M,)
            if HAS_TORCH:
                want = getattr(torch.signal.windows, name)(M, sym=sym, **kw)
                assert np.allclose(got.numpy(), want.numpy(), atol=3e-7)
    if HAS_TORCH:
        for bad in (dict(M=-1), dict(M=3, dtype="int64")):
            msgs = []
            for lib in (npgrad, torch):
                args = dict(bad, **kw)
                if "dtype" in args:
                    args["dtype"] = getattr(lib, args["dtype"])
                with pytest.raises(ValueError) as e:
                    getattr(lib.signal.windows, name)(**args)
                msgs.append(str(e.value))
            assert msgs[0] == msgs[1]


def test_window_parameter_errors():
    w = npgrad.signal.windows
    with pytest.raises(ValueError, match="Center must be None for symmetric windows"):
        w.exponential(5, center=1.0)
    with pytest.raises(ValueError, match="Standard deviation must be positive"):
        w.gaussian(5, std=0)
    assert w.exponential(5, center=1.0, sym=False).tolist() == pytest.approx([math.exp(-abs(n - 1)) for n in range(5)])
    assert npgrad.windows is w


def test_types_aliases():
    assert npgrad.types.Device is npgrad.device and npgrad.types.Size is npgrad.Size
    assert isinstance(3, npgrad.types._Number) and not isinstance("3", npgrad.types._Number)
