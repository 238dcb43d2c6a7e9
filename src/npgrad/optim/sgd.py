"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""
import numpy as np

from .. import _layout
from ..kernels import optim_updates as _kernels
from ..tensor import Tensor
from . import _differentiable, _ops
from .optimizer import (Optimizer, _scalar, bump_version, check_fused_flags, check_fused_params, one_call,
                        run_update, with_grads)

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
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused_flags(defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(nesterov=False, maximize=False, foreach=None, differentiable=False, fused=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for index, group in enumerate(self.param_groups):
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                _differentiable.sgd(self, group)
                continue
            lr = _scalar(group["lr"])
            momentum = _scalar(group["momentum"])
            dampening = _scalar(group["dampening"])
            weight_decay = _scalar(group["weight_decay"])
            nesterov, maximize = group["nesterov"], group["maximize"]
            if group.get("fused") and any(p._grad is not None and p._grad.layout is not _layout.strided
                                          for p in group["params"]):
                raise RuntimeError("`_fused_sgd` does not support sparse gradients")
            pairs = with_grads(group, _SPARSE_DECAY)  # sparse gradients welcome
            check_fused_params(group, [p for p, _ in pairs])
            if not pairs:
                continue
            # The momentum buffers first, then the updates: one compiled call for the group where it applies,
            # else one per parameter.
            rows, firsts = [], []
            for p, grad in pairs:
                if momentum == 0:
                    rows.append([p._data, grad])
                    continue
                state = self.state[p]
                buf = state.get("momentum_buffer")
                first = buf is None
                if first:  # the buffer starts as the first (decayed) gradient
                    buf = state["momentum_buffer"] = Tensor._wrap(np.empty(p._data.shape, p._data.dtype))
                rows.append([p._data, grad, buf._data])
                firsts.append(first)
            if one_call(group) and _kernels.sgd_many(rows, firsts, lr, weight_decay, maximize, momentum, dampening,
                                                     nesterov, self._group_cache(index)):
                for p, _ in pairs:
                    bump_version(p)
                continue
            for (p, _), arrays, first in zip(pairs, rows, firsts if momentum != 0 else [False] * len(rows)):
                if momentum == 0:
                    if _kernels.sgd_(*arrays, None, lr, weight_decay, maximize):
                        bump_version(p)  # one compiled pass (kernels/optim_updates.py), bit-identical to _sgd
                        continue
                    run_update(_sgd, p, arrays, scratch, lr, weight_decay, maximize)
                    continue
                if _kernels.sgd_(*arrays, lr, weight_decay, maximize, momentum, dampening, nesterov, first):
                    bump_version(p)
                    continue
                run_update(_sgd_momentum, p, arrays, scratch, lr, weight_decay, maximize, momentum, dampening,
                           nesterov, first)
        return loss


_SPARSE_DECAY = "add(sparse, dense) is not supported. Use add(dense, sparse) instead."


def _sgd(tmp, arrays, lr, weight_decay, maximize):
    data, grad = arrays
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    _ops.add_scaled_(data, g, -lr, tmp(3))


def _sgd_momentum(tmp, arrays, lr, weight_decay, maximize, momentum, dampening, nesterov, first):
    data, grad, buf = arrays
    g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    if first:
        np.copyto(buf, g)
    else:
        buf *= momentum
        _ops.add_scaled_(buf, g, 1 - dampening, tmp(2))
    if nesterov:
        out = tmp(2)
        np.multiply(buf, momentum, out=out)
        np.add(g, out, out=out)
        g = out
    else:
        g = buf
    _ops.add_scaled_(data, g, -lr, tmp(3))
