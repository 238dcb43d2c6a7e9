"""Adadelta: step sizes from running averages of squared gradients and of squared past updates."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, check_capturable, check_lr, increment_step, new_step, run_update,
                        with_grads, zeros_like)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``torch.optim.Adadelta``: ``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g``, ``p -= lr * delta``."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative("epsilon", eps)
        check_nonnegative("weight_decay", weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            check_capturable(group, xla=False)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.adadelta(self, group)
                continue
            lr, rho, eps = _scalar(group["lr"]), _scalar(group["rho"]), _scalar(group["eps"])
            weight_decay, maximize = _scalar(group["weight_decay"]), group["maximize"]
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = zeros_like(p)
                    state["acc_delta"] = zeros_like(p)
                increment_step(state)
                run_update(_adadelta, p, [p._data, grad, state["square_avg"]._data, state["acc_delta"]._data],
                           scratch, lr, rho, eps, weight_decay, maximize)
        return loss


def _adadelta(tmp, arrays, lr, rho, eps, weight_decay, maximize):
    data, grad, square_avg, acc_delta = arrays
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    square_avg *= rho
    _ops.addcmul_(square_avg, g, g, 1 - rho, t)
    std = np.add(square_avg, eps, out=tmp(3))
    np.sqrt(std, out=std)
    delta = np.add(acc_delta, eps, out=tmp(4))
    np.sqrt(delta, out=delta)
    delta /= std
    delta *= g
    acc_delta *= rho
    _ops.addcmul_(acc_delta, delta, delta, 1 - rho, t)
    _ops.add_scaled_(data, delta, -lr, t)
