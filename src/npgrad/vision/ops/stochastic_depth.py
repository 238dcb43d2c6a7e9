"""Stochastic depth (Huang et al., "Deep Networks with Stochastic Depth"): a residual branch dropped whole,
per sample ("row") or per batch ("batch"), with the survivors scaled by 1/(1-p)."""
from ... import nn
from ...factories import empty

__all__ = ["stochastic_depth", "StochasticDepth"]


def stochastic_depth(input, p, mode, training=True):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ("batch", "row"):
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    keep = 1.0 - p
    shape = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    mask = empty(shape, dtype=input.dtype).bernoulli_(keep)
    if keep > 0.0:
        mask.div_(keep)
    return input * mask


class StochasticDepth(nn.Module):
    def __init__(self, p, mode):
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input):
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
