"""Anomaly detection: NaN gradients raise naming the node, and errors in backward point at the
forward call that created the failing node."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _errors import same_error

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])
by_name = dict(ids=lambda l: l.__name__)


def _sqrt_at_zero(lib):
    x = lib.tensor(np.array([0.0, 1.0]), requires_grad=True)
    y = x.sqrt()  # THE FORWARD LINE
    (y * 0).sum().backward()  # 0 * (0.5 / sqrt(0)) = 0 * inf = nan
    return x


def _nan_function(lib):
    class NanGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    NanGrad.apply(lib.ones(2, requires_grad=True)).sum().backward()


def test_nan_without_anomaly_mode_passes_silently():
    with np.errstate(divide="ignore", invalid="ignore"):
        x = _sqrt_at_zero(npgrad)
    assert np.isnan(x.grad.numpy()[0])


def test_nan_in_builtin_backward_raises():
    def f(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                _sqrt_at_zero(lib)
    same_error(f, RuntimeError, "Function 'SqrtBackward0' returned nan values in its 0th output.")


def test_nan_in_custom_function_raises():
    def f(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.set_detect_anomaly(True):
                _nan_function(lib)
    same_error(f, RuntimeError, "Function 'NanGradBackward' returned nan values in its 0th output.")


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_warning_points_at_forward_line(lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            with pytest.raises(RuntimeError):
                _sqrt_at_zero(lib)
    msgs = [str(m.message) for m in w]
    assert any("Anomaly Detection has been enabled" in m for m in msgs)
    detected = [m for m in msgs if m.startswith("Error detected in SqrtBackward0")]
    assert detected and "Traceback of forward call that caused the error" in detected[0]
    assert "_sqrt_at_zero" in detected[0] and "in test_warning_points_at_forward_line" in detected[0]


def test_error_message_carries_the_forward_traceback():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with npgrad.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as info:
                _sqrt_at_zero(npgrad)
    msg = str(info.value)
    assert "y = x.sqrt()  # THE FORWARD LINE" in msg
    assert "npgrad/ops" not in msg  # npgrad's own frames are not part of the user's trace


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_other_backward_errors_warn_with_forward_trace(lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            a = lib.ones(2, requires_grad=True) * 1
            y = a.exp()
            y.add_(1)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
    assert any(str(m.message).startswith("Error detected in ExpBackward0") for m in w)


class _Flags:
    """torch has the anomaly queries at top level; npgrad (so far) in npgrad.autograd."""

    def __init__(self, lib):
        home = lib if lib is not npgrad else npgrad.autograd
        self.is_anomaly_enabled = home.is_anomaly_enabled
        self.is_anomaly_check_nan_enabled = home.is_anomaly_check_nan_enabled
        self.set_detect_anomaly = lib.autograd.set_detect_anomaly
        self.detect_anomaly = lib.autograd.detect_anomaly


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_modes_and_flags(lib):
    flags = _Flags(lib)
    assert not flags.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with flags.detect_anomaly(check_nan=False):
            assert flags.is_anomaly_enabled()
            assert not flags.is_anomaly_check_nan_enabled()
            x = _sqrt_at_zero(lib)  # NaN allowed through when check_nan=False
            assert np.isnan(x.grad.numpy()[0])
    assert not flags.is_anomaly_enabled() and flags.is_anomaly_check_nan_enabled()
    flags.set_detect_anomaly(True)
    try:
        assert flags.is_anomaly_enabled()
    finally:
        flags.set_detect_anomaly(False)
    assert not flags.is_anomaly_enabled()


def test_detect_anomaly_as_decorator():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        @npgrad.autograd.detect_anomaly()
        def step():
            return npgrad.autograd.is_anomaly_enabled()

        assert step() is True
    assert not npgrad.autograd.is_anomaly_enabled()


def test_anomaly_mode_gives_same_gradients():
    def run():
        x = npgrad.tensor(np.array([0.3, -0.8, 1.1]), requires_grad=True)
        ((x.tanh() * x.exp()).sum() + (x * x).mean()).backward()
        return x.grad.numpy()
    plain = run()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with npgrad.autograd.detect_anomaly():
            checked = run()
    np.testing.assert_array_equal(plain, checked)
