"""Random sampling from tensors of parameters, loaded on first use: poisson and binomial, and the in-place
fills cauchy_, geometric_ and log_normal_. NumPy's generator draws them (npgrad.random): the same seed gives
the same numbers, never PyTorch's stream."""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..autograd.grad_mode import state as _grad_state
from ..random import rng
from ..tensor import Tensor
from . import _poly as P
from ._registry import method, op
from .inplace import bump_version, check_inplace
from .tensor_extras import _cpp


class Poisson(Op):
    """A draw has no derivative in its rate; PyTorch records one that is zero everywhere."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, rates, generator):
        return np.asarray(rng(generator).poisson(rates), rates.dtype)  # (a 0-d rate draws a Python int)

    @staticmethod
    def backward(ctx, g):
        return P.zeros_like(g), None


@op(methods=())
def poisson(input, generator=None):
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_dt.scalar_name(input._data.dtype)}'")
    if (input._data < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return Poisson.apply(input, generator)


class Binomial(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, count, prob, generator):
        p = np.clip(np.nan_to_num(prob), 0.0, 1.0)  # PyTorch draws with p clamped into [0, 1]
        n = np.maximum(count, 0).astype(np.int64)
        return rng(generator).binomial(n, p).astype(count.dtype)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::binomial is not implemented")


@op(methods=())
def binomial(count, prob, generator=None):
    if count._data.dtype.kind != "f" and count._data.dtype not in _dt.LOW_PRECISION_NP:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dt.scalar_name(count._data.dtype)}")
    if prob._data.dtype != count._data.dtype:
        raise RuntimeError(f"Found dtype {_dt.scalar_name(prob._data.dtype)} but expected "
                           f"{_dt.scalar_name(count._data.dtype)}")
    return Binomial.apply(count, prob, generator)


def _fill(t, arr):
    if _grad_state.enabled and t._requires_grad:
        check_inplace(t)
    t._data[...] = arr
    bump_version(t)
    return t


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    if self._data.dtype.kind != "f" and self._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {_cpp(self._data.dtype)}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill(self, median + sigma * rng(generator).standard_cauchy(self._data.shape))


def _geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill(self, rng(generator).geometric(p, self._data.shape))


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    if self._data.dtype.kind != "f" and self._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{_dt.scalar_name(self._data.dtype)}'")
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill(self, rng(generator).lognormal(mean, std, self._data.shape))


method("cauchy_", _cauchy_)
method("geometric_", _geometric_)
method("log_normal_", _log_normal_)
