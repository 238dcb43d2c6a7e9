"""Adagrad: per-coordinate step sizes shrinking with the sum of squared past gradients."""
import numpy as np

from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import Optimizer, _scalar, check_lr, increment_step, new_step, run_update, with_grads, zeros_like

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``torch.optim.Adagrad``: ``p -= clr * g / (sqrt(sum g^2) + eps)``, ``clr = lr / (1 + (t-1) lr_decay)``."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        check_nonnegative("weight_decay", weight_decay)
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        check_nonnegative("epsilon", eps)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # PyTorch creates Adagrad's state up front (it shows in state_dict() before the first step).
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = new_step()
        state["sum"] = zeros_like(p, _scalar(group["initial_accumulator_value"]))
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None, maximize=False, differentiable=False, fused=None)

    def share_memory(self):
        pass  # one process: nothing to share

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.adagrad(self, group)
                continue
            lr = _scalar(group["lr"])
            lr_decay = _scalar(group["lr_decay"])
            eps = _scalar(group["eps"])
            weight_decay = _scalar(group["weight_decay"])
            maximize = group["maximize"]
            for p, grad in with_grads(group, "weight_decay option is not compatible with sparse gradients"):
                state = self.state[p]
                if "sum" not in state:  # a parameter added with add_param_group after construction
                    state = self._init_state(p, group)
                step = increment_step(state)
                clr = lr / (1 + (step - 1) * lr_decay)
                run_update(_adagrad, p, [p._data, grad, state["sum"]._data], scratch, clr, eps, weight_decay,
                           maximize)
        return loss


def _adagrad(tmp, arrays, clr, eps, weight_decay, maximize):
    data, grad, state_sum = arrays
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    np.multiply(g, g, out=t)
    state_sum += t
    std = np.sqrt(state_sum, out=tmp(3))
    std += eps
    _ops.addcdiv_(data, g, std, -clr, t)
