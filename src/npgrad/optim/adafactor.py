"""Adafactor: Adam-like steps whose second moment of a matrix is stored factored, as row and column averages."""
import numpy as np

from ..ops.inplace import bump_version
from ..tensor import Tensor
from . import _ops
from .optimizer import Optimizer, _scalar, increment_step, new_step

__all__ = ["Adafactor"]


def _norm(a, axis=None, keepdims=False):
    return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))


class Adafactor(Optimizer):
    """``torch.optim.Adafactor``: relative step sizes, update clipping at RMS ``d``, decoupled weight decay.

    For parameters of 2 or more dimensions the second moment is kept per row and per column of the last two
    dimensions (``row_var``, ``col_var``) and rebuilt as their outer product over the mean row variance.
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setdefault_in_groups(foreach=None)

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr, beta2_decay, d = _scalar(group["lr"]), _scalar(group["beta2_decay"]), _scalar(group["d"])
            weight_decay, maximize = _scalar(group["weight_decay"]), group["maximize"]
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                data, grad = p._data, p._grad._data
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    if grad.ndim > 1:
                        state["row_var"] = Tensor._wrap(np.zeros(grad.shape[:-1] + (1,), grad.dtype))
                        state["col_var"] = Tensor._wrap(np.zeros(grad.shape[:-2] + (1, grad.shape[-1]), grad.dtype))
                    else:
                        state["variance"] = Tensor._wrap(np.zeros(grad.shape, grad.dtype))
                if eps1 is None:  # PyTorch fixes it from the first parameter of the group, for the whole group
                    eps1 = float(np.finfo(data.dtype).eps)
                step = increment_step(state)
                if maximize:
                    grad = -grad
                beta2_complement = step ** beta2_decay
                rho = min(lr, 1 / step ** 0.5)
                alpha = max(eps2, float(_norm(data)) / data.size ** 0.5) * rho
                if weight_decay != 0:
                    data *= 1 - lr * weight_decay
                if grad.ndim > 1:
                    row_var, col_var = state["row_var"]._data, state["col_var"]._data
                    row_mean = _norm(grad, -1, True)
                    row_mean *= row_mean
                    row_mean /= grad.shape[-1]
                    _ops.lerp_(row_var, row_mean, beta2_complement, np.empty_like(row_var))
                    col_mean = _norm(grad, -2, True)
                    col_mean *= col_mean
                    col_mean /= grad.shape[-2]
                    _ops.lerp_(col_var, col_mean, beta2_complement, np.empty_like(col_var))
                    var_estimate = row_var @ col_var
                    var_estimate /= np.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
                else:
                    variance = state["variance"]._data
                    _ops.lerp_(variance, grad * grad, beta2_complement, np.empty_like(variance))
                    var_estimate = variance.copy()
                np.maximum(var_estimate, eps1 * eps1, out=var_estimate)
                update = np.sqrt(var_estimate, out=var_estimate)
                np.reciprocal(update, out=update)
                update *= grad
                denom = max(1.0, float(_norm(update)) / (update.size ** 0.5 * d))  # clip the update's RMS at d
                update *= -alpha / denom
                data += update
                bump_version(p)
        return loss
