"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""
import numpy as np

from ..tensor import Tensor
from . import _ops
from .optimizer import Optimizer, _scalar, bump_version, with_grads

__all__ = ["SGD"]


class SGD(Optimizer):
    """``torch.optim.SGD``: ``p -= lr * v`` with ``v = momentum * v + (1 - dampening) * g`` (or ``g``)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("npgrad optimizers do not support differentiable=True")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            momentum = _scalar(group["momentum"])
            dampening = _scalar(group["dampening"])
            weight_decay = _scalar(group["weight_decay"])
            nesterov, maximize = group["nesterov"], group["maximize"]
            for p, grad in with_grads(group):
                data = p._data
                g = _ops.grad_for_update(grad, data, maximize, weight_decay, scratch)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        state["momentum_buffer"] = Tensor._wrap(np.array(g, copy=True))
                        b = state["momentum_buffer"]._data
                    else:
                        b = buf._data
                        b *= momentum
                        _ops.add_scaled_(b, g, 1 - dampening, scratch(data, 2))
                    if nesterov:
                        out = scratch(data, 2)
                        np.multiply(b, momentum, out=out)
                        np.add(g, out, out=out)
                        g = out
                    else:
                        g = b
                _ops.add_scaled_(data, g, -lr, scratch(data, 3))
                bump_version(p)
        return loss
