"""Rprop: per-coordinate step sizes that grow while the gradient keeps its sign and shrink when it flips."""
import numpy as np

from . import _differentiable
from .optimizer import (Optimizer, _scalar, check_capturable, check_lr, increment_step, new_step, run_update,
                        with_grads, zeros_like)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """``torch.optim.Rprop``: ``p -= sign(g) * step_size``; after a sign flip that coordinate's step is skipped."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            check_capturable(group, foreach_xla=True)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.rprop(self, group)
                continue
            etaminus, etaplus = (_scalar(e) for e in group["etas"])
            step_size_min, step_size_max = (_scalar(s) for s in group["step_sizes"])
            maximize = group["maximize"]
            for p, grad in with_grads(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["prev"] = zeros_like(p)
                    lr = _scalar(group["lr"])
                    # a complex parameter steps its real and imaginary parts each by lr (PyTorch's state: lr + lr*1j)
                    state["step_size"] = zeros_like(p, lr if not p.is_complex() else complex(lr, lr))
                increment_step(state)
                run_update(_rprop, p, [p._data, grad, state["prev"]._data, state["step_size"]._data], scratch,
                           etaminus, etaplus, step_size_min, step_size_max, maximize)
        return loss


def _rprop(tmp, arrays, etaminus, etaplus, step_size_min, step_size_max, maximize):
    data, grad, prev, step_size = arrays
    g = np.negative(grad, out=tmp(0)) if maximize else grad
    agree = np.multiply(g, prev, out=tmp(1))
    factor = tmp(2)
    factor.fill(1)
    factor[agree > 0] = etaplus
    flipped = agree < 0
    factor[flipped] = etaminus
    step_size *= factor
    np.clip(step_size, step_size_min, step_size_max, out=step_size)
    np.copyto(prev, g)
    prev[flipped] = 0  # no step, and no sign comparison next time, where the gradient changed sign
    direction = np.sign(prev, out=tmp(1))
    direction *= step_size
    data -= direction
