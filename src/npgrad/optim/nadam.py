"""NAdam: Adam with Nesterov momentum, whose momentum coefficient warms up by ``momentum_decay``."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, check_betas, check_capturable, check_lr, increment_step, new_step,
                        run_update, tensor_scalars, with_grads, zeros_like)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """``torch.optim.NAdam``; ``decoupled_weight_decay=True`` gives NAdamW."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        check_nonnegative("epsilon", eps)
        check_betas(betas)
        check_nonnegative("weight_decay", weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(maximize=False, foreach=None, capturable=False, differentiable=False,
                                   decoupled_weight_decay=False)
        tensor_scalars(self, "step", "mu_product")

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            what = "params, mu_products, and state_steps" if group["foreach"] else "params, mu_products and state_steps"
            check_capturable(group, what)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.nadam(self, group)
                continue
            lr, eps = _scalar(group["lr"]), _scalar(group["eps"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            weight_decay, momentum_decay = _scalar(group["weight_decay"]), _scalar(group["momentum_decay"])
            decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["mu_product"] = new_step(1.0)
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                step = increment_step(state)
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                # The running product lives in the step dtype (float32 by default) and rounds there, as PyTorch's.
                mu_product = state["mu_product"]._data
                mu_product *= mu
                mu_product = float(mu_product)
                grad_coef = -lr * (1.0 - mu) / (1.0 - mu_product)
                avg_coef = (-lr * mu_next) / (1.0 - mu_product * mu_next)
                run_update(_nadam, p, [p._data, grad, state["exp_avg"]._data, state["exp_avg_sq"]._data], scratch,
                           lr, beta1, beta2, eps, weight_decay, decoupled, maximize, 1 - beta2 ** step, grad_coef,
                           avg_coef)
        return loss


def _nadam(tmp, arrays, lr, beta1, beta2, eps, weight_decay, decoupled, maximize, bias_correction2, grad_coef,
           avg_coef):
    data, grad, exp_avg, exp_avg_sq = arrays
    if decoupled and weight_decay != 0:
        data *= 1 - lr * weight_decay
        weight_decay = 0
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    _ops.lerp_(exp_avg, g, 1 - beta1, t)
    exp_avg_sq *= beta2
    _ops.addcmul_(exp_avg_sq, g, g, 1 - beta2, t)
    denom = np.divide(exp_avg_sq, bias_correction2, out=tmp(3))
    np.sqrt(denom, out=denom)
    denom += eps
    _ops.addcdiv_(data, g, denom, grad_coef, t)
    _ops.addcdiv_(data, exp_avg, denom, avg_coef, t)
