"""RMSprop: divide the gradient by a running root-mean-square of recent gradients."""
import numpy as np

from ..tensor import Tensor
from . import _ops
from .optimizer import Optimizer, _scalar, bump_version, increment_step, new_step, with_grads, zeros_like

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``torch.optim.RMSprop`` with optional momentum and centering (divide by the gradient's variance)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if differentiable:
            raise NotImplementedError("npgrad optimizers do not support differentiable=True")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            alpha = _scalar(group["alpha"])
            eps = _scalar(group["eps"])
            weight_decay = _scalar(group["weight_decay"])
            momentum = _scalar(group["momentum"])
            centered, maximize = group["centered"], group["maximize"]
            for p, grad in with_grads(group):
                data = p._data
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if centered:
                        state["grad_avg"] = zeros_like(p)
                increment_step(state)
                g = _ops.grad_for_update(grad, data, maximize, weight_decay, scratch)
                square_avg = state["square_avg"]._data
                tmp = scratch(data, 2)
                square_avg *= alpha
                _ops.addcmul_(square_avg, g, g, 1 - alpha, tmp)
                avg = scratch(data, 3)
                if centered:
                    grad_avg = state["grad_avg"]._data
                    _ops.lerp_(grad_avg, g, 1 - alpha, tmp)
                    # square_avg.addcmul(grad_avg, grad_avg, value=-1): square_avg + (-grad_avg) * grad_avg
                    np.negative(grad_avg, out=avg)
                    avg *= grad_avg
                    np.add(square_avg, avg, out=avg)
                    np.sqrt(avg, out=avg)
                else:
                    np.sqrt(square_avg, out=avg)
                avg += eps
                if momentum > 0:
                    buf = state["momentum_buffer"]._data
                    buf *= momentum
                    np.divide(g, avg, out=tmp)
                    buf += tmp
                    _ops.add_scaled_(data, buf, -lr, tmp)
                else:
                    _ops.addcdiv_(data, g, avg, -lr, tmp)
                bump_version(p)
        return loss
