"""Muon: momentum SGD for 2-d weights whose update is orthogonalised by a Newton-Schulz iteration."""
import math

import numpy as np

from ..ops.inplace import bump_version
from ..tensor import Tensor
from . import _ops
from ._bfloat16 import round_bf16
from .optimizer import Optimizer, _scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def orthogonalize(grad, ns_coefficients, ns_steps, eps):
    """Approximately ``U V^T`` of ``grad = U S V^T`` by the quintic Newton-Schulz iteration
    ``X <- a X + (b A + c A^2) X``, ``A = X X^T``, from ``X = grad / ||grad||``. As in PyTorch, every
    operation runs in bfloat16 (float32 accumulation, one rounding per result), on the wide orientation."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(v) for v in ns_coefficients)
    x = round_bf16(grad.astype(np.float32))
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = round_bf16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    x = round_bf16(x / max(norm, round_bf16(np.float32(eps))))
    for _ in range(ns_steps):
        gram = round_bf16(x @ x.T)
        poly = round_bf16(b * gram + c * (gram @ gram))
        x = round_bf16(a * x + poly @ x)
    return x.T if tall else x


def adjust_lr(lr, adjust_lr_fn, shape):
    """Scale lr by the matrix's aspect: ``sqrt(max(1, A/B))`` ("original") or ``0.2 sqrt(max(A, B))``
    ("match_rms_adamw", an update RMS like AdamW's)."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """``torch.optim.Muon``: for 2-d parameters only (use e.g. AdamW for biases and embeddings)."""

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure=None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr, weight_decay = _scalar(group["lr"]), _scalar(group["weight_decay"])
            momentum = _scalar(group["momentum"])
            for p in group["params"]:
                if p._grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                grad = p._grad._data
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = Tensor._wrap(np.zeros(grad.shape, grad.dtype))
                buf = state["momentum_buffer"]._data
                _ops.lerp_fused(buf, grad, 1 - momentum)
                if group["nesterov"]:
                    update = grad.copy()
                    _ops.lerp_fused(update, buf, momentum)
                else:
                    update = buf
                update = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                data = p._data
                data *= 1 - lr * weight_decay
                _ops.add_scaled_fused(data, update, -adjust_lr(lr, group["adjust_lr_fn"], data.shape))
                bump_version(p)
        return loss
