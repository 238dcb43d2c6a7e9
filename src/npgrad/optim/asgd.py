"""ASGD: SGD with a decaying step size that also keeps a running (Polyak) average of the iterates in ``ax``."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, check_capturable, check_lr, increment_step, new_step, run_update,
                        tensor_scalars, with_grads, zeros_like)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``torch.optim.ASGD``: ``eta_t = lr / (1 + lambd lr t)^alpha``; averaging starts after ``t0`` steps."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonnegative("weight_decay", weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None, maximize=False, differentiable=False, capturable=False)
        tensor_scalars(self, "step", "eta", "mu")

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            check_capturable(group, "params, mus, etas, and state_steps")
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.asgd(self, group)
                continue
            lr, lambd, alpha, t0 = (_scalar(group[k]) for k in ("lr", "lambd", "alpha", "t0"))
            weight_decay, maximize = _scalar(group["weight_decay"]), group["maximize"]
            foreach = bool(group["foreach"])
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["eta"] = new_step(lr)
                    state["mu"] = new_step(1.0)
                    state["ax"] = zeros_like(p)
                step = increment_step(state)
                eta, mu = state["eta"]._data, state["mu"]._data
                run_update(_asgd, p, [p._data, grad, state["ax"]._data], scratch, float(eta), float(mu), lambd,
                           weight_decay, maximize, foreach)
                # eta and mu for the next step, stored in the step dtype as PyTorch's are. PyTorch's foreach
                # path computes eta from the step tensor, so in the step dtype rather than in Python floats.
                t = state["step"]._data if foreach else step
                eta[...] = lr / ((1 + lambd * lr * t) ** alpha)
                mu[...] = 1 / max(1, step - t0)
        return loss


def _asgd(tmp, arrays, eta, mu, lambd, weight_decay, maximize, foreach):
    data, grad, ax = arrays
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    if foreach:  # PyTorch's foreach kernel: p -= (g + lambd * p) * eta, and ax always moves by (p - ax) * mu
        np.multiply(data, lambd, out=t)
        t += g
        t *= eta
        data -= t
        np.subtract(data, ax, out=t)
        t *= mu
        ax += t
        return
    data *= 1 - lambd * eta
    _ops.add_scaled_(data, g, -eta, t)
    if mu != 1:
        np.subtract(data, ax, out=t)
        t *= mu
        ax += t
    else:
        np.copyto(ax, data)
