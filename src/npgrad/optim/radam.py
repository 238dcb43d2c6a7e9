"""RAdam: Adam whose adaptive step is switched on, and rectified, once the second moment's variance is tractable."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, check_betas, check_capturable, check_lr, increment_step, new_step,
                        run_update, with_grads, zeros_like)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """``torch.optim.RAdam``; ``decoupled_weight_decay=True`` gives RAdamW."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_nonnegative("epsilon", eps)
        check_betas(betas)
        check_nonnegative("weight_decay", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False,
                                   capturable=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            check_capturable(group)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.radam(self, group)
                continue
            lr, eps = _scalar(group["lr"]), _scalar(group["eps"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            weight_decay = _scalar(group["weight_decay"])
            decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                step = increment_step(state)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                # rho: the length of the simple moving average the exponential one approximates
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                rect = None
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                run_update(_radam, p, [p._data, grad, state["exp_avg"]._data, state["exp_avg_sq"]._data], scratch,
                           lr, beta1, beta2, eps, weight_decay, decoupled, maximize, bias_correction1,
                           bias_correction2, rect)
        return loss


def _radam(tmp, arrays, lr, beta1, beta2, eps, weight_decay, decoupled, maximize, bias_correction1, bias_correction2,
           rect):
    data, grad, exp_avg, exp_avg_sq = arrays
    if decoupled and weight_decay != 0:
        data *= 1 - lr * weight_decay
        weight_decay = 0
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    _ops.lerp_(exp_avg, g, 1 - beta1, t)
    exp_avg_sq *= beta2
    _ops.addcmul_(exp_avg_sq, g, g, 1 - beta2, t)
    update = np.divide(exp_avg, bias_correction1, out=tmp(3))
    update *= lr
    if rect is not None:
        adaptive = np.sqrt(exp_avg_sq, out=tmp(4))
        adaptive += eps
        np.reciprocal(adaptive, out=adaptive)  # a scalar over a tensor is the reciprocal times the scalar
        adaptive *= bias_correction2 ** 0.5
        update *= adaptive
        update *= rect
    data -= update
