"""RMSprop: divide the gradient by a running root-mean-square of recent gradients."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, check_capturable, check_lr, increment_step, new_step, run_update,
                        with_grads, zeros_like)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``torch.optim.RMSprop`` with optional momentum and centering (divide by the gradient's variance)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check_nonnegative("epsilon", eps)
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        check_nonnegative("weight_decay", weight_decay)
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                                   capturable=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            check_capturable(group, foreach_xla=True)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.rmsprop(self, group)
                continue
            lr = _scalar(group["lr"])
            alpha = _scalar(group["alpha"])
            eps = _scalar(group["eps"])
            weight_decay = _scalar(group["weight_decay"])
            momentum = _scalar(group["momentum"])
            centered, maximize = group["centered"], group["maximize"]
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if centered:
                        state["grad_avg"] = zeros_like(p)
                increment_step(state)
                arrays = [p._data, grad, state["square_avg"]._data,
                          state["momentum_buffer"]._data if momentum > 0 else None,
                          state["grad_avg"]._data if centered else None]
                run_update(_rmsprop, p, [a for a in arrays if a is not None], scratch, lr, alpha, eps,
                           weight_decay, momentum, centered, maximize)
        return loss


def _rmsprop(tmp, arrays, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    data, grad, square_avg = arrays[:3]
    buf = arrays[3] if momentum > 0 else None
    grad_avg = arrays[-1] if centered else None
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    square_avg *= alpha
    _ops.addcmul_(square_avg, g, g, 1 - alpha, t)
    avg = tmp(3)
    if centered:
        _ops.lerp_(grad_avg, g, 1 - alpha, t)
        # square_avg.addcmul(grad_avg, grad_avg, value=-1): square_avg + (-grad_avg) * grad_avg
        np.negative(grad_avg, out=avg)
        avg *= grad_avg
        np.add(square_avg, avg, out=avg)
        np.sqrt(avg, out=avg)
    else:
        np.sqrt(square_avg, out=avg)
    avg += eps
    if buf is not None:
        buf *= momentum
        np.divide(g, avg, out=t)
        buf += t
        _ops.add_scaled_(data, buf, -lr, t)
    else:
        _ops.addcdiv_(data, g, avg, -lr, t)
