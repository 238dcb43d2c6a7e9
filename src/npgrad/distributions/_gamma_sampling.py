"""Gamma(alpha, 1) samples with implicit reparameterisation gradients.

A sample x = F^{-1}(u; alpha) of the standard Gamma CDF F = P(alpha, x) (the regularized lower incomplete
gamma function) moves with alpha along the level set F(x; alpha) = u, so dx/dalpha = -(dF/dalpha) / (dF/dx).
dF/dx is the density x^(alpha-1) e^-x / Gamma(alpha); dF/dalpha has no closed form and is taken as a
central difference of P (or of Q = 1 - P where P > 1/2, where Q keeps the digits) in float64, whose
truncation and rounding errors at step h = 1e-5 alpha are both near 1e-10 relative.
"""
import numpy as np

from ..autograd import Function
from ..ops._igamma import igamma
from ..ops.special import lgamma_np
from ..random import rng
from . import _torch as torch


def standard_gamma_grad_np(alpha, x):
    """dx/dalpha of a standard Gamma sample x, as NumPy float64."""
    a = np.asarray(alpha, np.float64)
    x = np.asarray(x, np.float64)
    a, x = np.broadcast_arrays(a, x)
    with np.errstate(all="ignore"):
        density = np.exp((a - 1) * np.log(x) - x - lgamma_np(a))
        h = 1e-5 * np.maximum(a, 1e-3)
        lower = igamma(a, x, lower=True) <= 0.5
        p_plus = np.where(lower, igamma(a + h, x, lower=True), -igamma(a + h, x, lower=False))
        p_minus = np.where(lower, igamma(a - h, x, lower=True), -igamma(a - h, x, lower=False))
        dF_da = (p_plus - p_minus) / (2 * h)
        grad = -dF_da / density
    return np.where(density > 0, grad, 0.0)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha):
        a = alpha.detach().numpy()
        finfo = np.finfo(a.dtype)
        x = np.maximum(rng().standard_gamma(a.astype(np.float64)), finfo.tiny).astype(a.dtype)
        out = torch.tensor(x)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        d = standard_gamma_grad_np(alpha.detach().numpy(), x.detach().numpy())
        return grad * torch.tensor(d.astype(alpha.detach().numpy().dtype))


def standard_gamma(alpha):
    """Gamma(alpha, 1) samples of alpha's shape, differentiable w.r.t. alpha (implicit reparameterisation)."""
    return _StandardGamma.apply(alpha)
