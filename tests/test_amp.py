"""torch.amp: GradScaler scales, unscales, skips overflowing steps and adapts its scale as PyTorch's does
(checked step by step against PyTorch on the CPU); autocast behaves as PyTorch's where nothing is cast and
refuses, rather than ignores, a request to cast."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch


def _train_with_scaler(lib, steps=6, inf_at=(2,)):
    """A linear model, SGD, a CPU GradScaler; at the steps in ``inf_at`` one gradient is made inf."""
    rng = np.random.default_rng(0)
    w0, x, y = rng.standard_normal((3, 4)), rng.standard_normal((8, 4)), rng.standard_normal((8, 3))
    model = lib.nn.Linear(4, 3, bias=False)
    with lib.no_grad():
        model.weight.copy_(lib.tensor(w0, dtype=lib.float32))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 4, growth_interval=2)
    scales, weights, results = [], [], []
    for step in range(steps):
        opt.zero_grad()
        loss = ((model(lib.tensor(x, dtype=lib.float32)) - lib.tensor(y, dtype=lib.float32)) ** 2).mean()
        scaler.scale(loss).backward()
        if step in inf_at:
            model.weight.grad[0, 0] = float("inf")
        results.append(scaler.step(opt))
        scaler.update()
        scales.append(scaler.get_scale())
        weights.append(model.weight.detach().numpy().copy())
    return scales, weights, results, scaler.state_dict()


def test_grad_scaler_skips_overflowing_steps_and_adapts_the_scale():
    scales, weights, _, state = _train_with_scaler(npgrad)
    # steps 0, 1 clean -> grows at 2 clean steps; step 2 overflows -> backs off; steps 3, 4 clean -> grows
    assert scales == [16.0, 32.0, 16.0, 16.0, 32.0, 32.0]
    np.testing.assert_array_equal(weights[2], weights[1])  # the overflowing step was skipped
    assert not np.array_equal(weights[3], weights[2])
    assert state == {"scale": 32.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                     "_growth_tracker": 1}


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle")
def test_grad_scaler_matches_pytorch_step_by_step():
    n_scales, n_weights, n_results, n_state = _train_with_scaler(npgrad)
    t_scales, t_weights, t_results, t_state = _train_with_scaler(torch)
    assert n_scales == t_scales and n_state == t_state and n_results == t_results
    for a, b in zip(n_weights, t_weights):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_grad_scaler_errors_and_disabled_pass_through():
    m = npgrad.nn.Linear(2, 1)
    opt = npgrad.optim.SGD(m.parameters(), lr=0.1)
    off = npgrad.amp.GradScaler("cpu", enabled=False)
    loss = m(npgrad.ones(1, 2)).sum()
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    s = npgrad.amp.GradScaler("cpu")
    s.scale(m(npgrad.ones(1, 2)).sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        npgrad.amp.GradScaler("cpu").step(opt, closure=lambda: 0)
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        npgrad.amp.GradScaler("cpu").load_state_dict({})
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        assert not npgrad.amp.GradScaler().is_enabled()


def _warned(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(lib)
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("case", ["cuda_disables", "disabled", "bad_dtype"])
def test_autocast_where_nothing_is_cast(case):
    fn = {"cuda_disables": lambda lib: lib.autocast("cuda"),
          "disabled": lambda lib: lib.autocast("cpu", enabled=False),
          "bad_dtype": lambda lib: lib.autocast("cpu", dtype=lib.float64)}[case]
    ctx, messages = _warned(npgrad, fn)
    with ctx:  # a no-op context: results are those of the plain computation
        y = npgrad.ones(2, 2) @ npgrad.ones(2, 2)
    assert y.dtype == npgrad.float32 and y.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    if HAS_TORCH:
        _, expected = _warned(torch, fn)
        assert messages == expected
    decorator, _ = _warned(npgrad, fn)  # (the same warnings again)
    assert decorator(lambda a: a * 2)(npgrad.ones(1)).item() == 2.0


def test_autocast_device_checks():
    # (what CPU autocast casts: tests/test_autocast_cpu.py)
    assert npgrad.amp.is_autocast_available("cpu") and not npgrad.amp.is_autocast_available("cuda")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        npgrad.autocast("gpu")


@pytest.mark.parametrize("case", ["scaler", "autocast", "autocast_fp16"])
def test_cuda_amp_deprecated_spellings(case):
    # torch.cuda.amp.*: a FutureWarning pointing to torch.amp, then disabled as on a machine without CUDA.
    fn = {"scaler": lambda lib: lib.cuda.amp.GradScaler().is_enabled(),
          "autocast": lambda lib: lib.cuda.amp.autocast() is not None,
          "autocast_fp16": lambda lib: lib.cuda.amp.autocast(dtype=lib.float16) is not None}[case]
    result, messages = _warned(npgrad, fn)
    assert messages and "is deprecated. Please use `torch.amp." in messages[0]
    assert result is (case != "scaler")
    if HAS_TORCH:
        assert (result, messages) == _warned(torch, fn)


def _double_function(lib, decorate_fwd, decorate_bwd):
    class Double(lib.autograd.Function):
        @staticmethod
        @decorate_fwd
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @decorate_bwd
        def backward(ctx, g):
            return g * 2
    return Double


@pytest.mark.parametrize("spelling", ["amp", "cuda_amp"])
def test_custom_fwd_bwd_run_the_function_as_written(spelling):
    def run(lib):
        if spelling == "amp":
            fwd = lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
            bwd = lib.amp.custom_bwd(device_type="cpu")
        else:
            fwd, bwd = lib.cuda.amp.custom_fwd, lib.cuda.amp.custom_bwd
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        y = _double_function(lib, fwd, bwd).apply(x)
        y.sum().backward()
        return y.tolist(), x.grad.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got = run(npgrad)
        assert got == ([2.0, 6.0], [2.0, 2.0])
        if HAS_TORCH:
            assert got == run(torch)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'device_type'"):
        npgrad.amp.custom_fwd(lambda ctx, x: x)
