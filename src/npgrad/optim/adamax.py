"""Adamax: Adam with the second moment replaced by an exponentially weighted infinity norm."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, check_betas, check_capturable, check_lr, increment_step, new_step,
                        run_update, with_grads, zeros_like)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``torch.optim.Adamax``: ``u = max(beta2 * u, |g| + eps)``, ``p -= lr / (1 - beta1^t) * m / u``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonnegative("epsilon", eps)
        check_betas(betas)
        check_nonnegative("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            check_capturable(group)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.adamax(self, group)
                continue
            lr, eps = _scalar(group["lr"]), _scalar(group["eps"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            weight_decay, maximize = _scalar(group["weight_decay"]), group["maximize"]
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = zeros_like(p)
                    state["exp_inf"] = zeros_like(p)
                step = increment_step(state)
                clr = lr / (1 - beta1 ** step)
                run_update(_adamax, p, [p._data, grad, state["exp_avg"]._data, state["exp_inf"]._data], scratch,
                           beta1, beta2, eps, weight_decay, maximize, clr)
        return loss


def _adamax(tmp, arrays, beta1, beta2, eps, weight_decay, maximize, clr):
    data, grad, exp_avg, exp_inf = arrays
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    _ops.lerp_(exp_avg, g, 1 - beta1, t)
    exp_inf *= beta2
    norm = np.abs(g, out=tmp(3))
    norm += eps
    np.maximum(exp_inf, norm, out=exp_inf)
    _ops.addcdiv_(data, exp_avg, exp_inf, -clr, t)
