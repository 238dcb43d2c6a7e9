"""Adam and AdamW: adaptive moment estimation, with L2 or decoupled weight decay and AMSGrad."""
import numpy as np

from ..kernels import optim_updates as _kernels
from ..tensor import Tensor
from . import _differentiable, _ops
from .optimizer import check_nonnegative
from .optimizer import (Optimizer, _scalar, bump_version, check_capturable, check_fused_flags, check_fused_params,
                        check_lr, increment_step, new_step, one_call, run_update, with_grads, zeros_like)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """``torch.optim.Adam``; ``decoupled_weight_decay=True`` makes it AdamW."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_lr(lr)
        check_nonnegative("epsilon", eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        check_nonnegative("weight_decay", weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused_flags(defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(amsgrad=False, maximize=False, foreach=None, capturable=False, differentiable=False,
                                   fused=None, decoupled_weight_decay=False)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        scratch = self._scratch
        for index, group in enumerate(self.param_groups):
            if not group.get("fused"):  # PyTorch's fused CPU step takes capturable=True; its other paths refuse it
                check_capturable(group)
            if group["differentiable"]:  # through autograd, so the step itself can be differentiated
                if group.get("foreach") and any(p._grad is not None for p in group["params"]):
                    raise AssertionError("_foreach ops don't support autograd")
                _differentiable.adam(self, group)
                continue
            lr = _scalar(group["lr"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            eps = _scalar(group["eps"])
            weight_decay = _scalar(group["weight_decay"])
            amsgrad, maximize = group["amsgrad"], group["maximize"]
            decoupled = group.get("decoupled_weight_decay", False)
            pairs = with_grads(group)
            check_fused_params(group, [p for p, _ in pairs])
            # Every parameter's state and step count first (as PyTorch's foreach step does), then the updates:
            # one compiled call for the group where it applies, else one per parameter.
            rows, step_sizes, bc2_sqrts = [], [], []
            for p, grad in pairs:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = zeros_like(p)
                step = increment_step(state)
                step_sizes.append(lr / (1 - beta1 ** step))
                bc2_sqrts.append((1 - beta2 ** step) ** 0.5)
                arrays = [p._data, grad, state["exp_avg"]._data, state["exp_avg_sq"]._data]
                if amsgrad:
                    arrays.append(state["max_exp_avg_sq"]._data)
                rows.append(arrays)
            if not rows:
                continue
            if one_call(group) and _kernels.adam_many(rows, step_sizes, bc2_sqrts, lr, beta1, beta2, eps,
                                                      weight_decay, decoupled, maximize, self._group_cache(index)):
                for p, _ in pairs:
                    bump_version(p)
                continue
            for (p, _), arrays, step_size, bias_correction2_sqrt in zip(pairs, rows, step_sizes, bc2_sqrts):
                if _kernels.adam_(*arrays, *([None] if not amsgrad else []), lr, beta1, beta2, eps, weight_decay,
                                  decoupled, maximize, step_size, bias_correction2_sqrt):
                    bump_version(p)  # one compiled pass (kernels/optim_updates.py), bit-identical to _adam
                    continue
                run_update(_adam, p, arrays, scratch, lr, beta1, beta2, eps, weight_decay, decoupled, maximize,
                           step_size, bias_correction2_sqrt)
        return loss


def _adam(tmp, arrays, lr, beta1, beta2, eps, weight_decay, decoupled, maximize, step_size, bias_correction2_sqrt):
    data, grad, exp_avg, exp_avg_sq = arrays[:4]
    if decoupled:
        if weight_decay != 0:
            data *= 1 - lr * weight_decay
        g = _ops.grad_for_update(grad, data, maximize, 0, tmp)
    else:
        g = _ops.grad_for_update(grad, data, maximize, weight_decay, tmp)
    t = tmp(2)
    _ops.lerp_(exp_avg, g, 1 - beta1, t)
    exp_avg_sq *= beta2
    _ops.addcmul_(exp_avg_sq, g, g, 1 - beta2, t)
    if len(arrays) == 5:  # amsgrad: normalise by the largest second moment seen so far
        second = arrays[4]
        np.maximum(second, exp_avg_sq, out=second)
    else:
        second = exp_avg_sq
    denom = np.sqrt(second, out=tmp(3))
    denom /= bias_correction2_sqrt
    denom += eps
    _ops.addcdiv_(data, exp_avg, denom, -step_size, t)


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with weight decay applied to the parameters, not the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
