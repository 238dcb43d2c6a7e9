"""SparseAdam: Adam for sparse gradients (``nn.Embedding(sparse=True)``), updating only the rows a step saw.

The moments of the rows present in the gradient decay and take the gradient in; rows the step did not
touch keep their moments and their values ("lazy" Adam). The bias corrections use the parameter's step
count, and eps is added to the root of the uncorrected second moment: the step is
``lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)``.
"""
import numpy as np

from .._layout import strided as _STRIDED
from ..ops.inplace import bump_version
from .optimizer import Optimizer, check_lr, check_nonnegative, increment_step, new_step, zeros_like

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """``torch.optim.SparseAdam``: parameters must be dense, their gradients sparse COO."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_lr(lr)
        check_nonnegative("epsilon", eps)
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse = [[gi, pi] for gi, g in enumerate(self.param_groups) for pi, p in enumerate(g["params"])
                  if p.layout is not _STRIDED]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr, eps = float(group["lr"]), float(group["eps"])
            beta1, beta2 = (float(b) for b in group["betas"])
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if g.layout is _STRIDED:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                g = g.coalesce()
                rows = tuple(g._indices()._data)
                values = g._values().detach()._data
                if group["maximize"]:
                    values = -values
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                t = increment_step(state)
                m, v, data = state["exp_avg"]._data, state["exp_avg_sq"]._data, p._data
                m_new = m[rows] * beta1 + values * (1 - beta1)
                v_new = v[rows] * beta2 + values * values * (1 - beta2)
                m[rows], v[rows] = m_new, v_new
                size = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
                data[rows] -= (size * m_new / (np.sqrt(v_new) + eps)).astype(data.dtype, copy=False)
                bump_version(p)
        return loss
