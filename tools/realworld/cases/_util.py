"""Deviations the cases share, each named the way the harness prints it."""
import numpy as np

NO_DROPOUT = "dropout probabilities set to 0 (the two frameworks draw different masks)"
SYNTHETIC = "synthetic batches from a fixed NumPy generator instead of the downloaded data set"
DEFS_ONLY = "only the script's definitions run (its argparse/data-loading module body does not)"
LOOP = "the training step is the case's restatement of the script's loop"


def no_dropout(torch, *modules):
    """Zero every dropout module's probability (modules keep their other behaviour)."""
    kinds = tuple(getattr(torch.nn, n) for n in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout")
                  if hasattr(torch.nn, n))
    for root in modules:
        for m in root.modules():
            if isinstance(m, kinds):
                m.p = 0.0
            if isinstance(m, torch.nn.MultiheadAttention):
                m.dropout = 0.0


def replay_normal_draws(torch, seed=1):
    """Make torch.randn / randn_like draw from one NumPy generator, so a program that samples noise in
    its forward (a VAE's reparameterisation, a GAN's latent) sees the same draws under both frameworks."""
    rng = np.random.default_rng(seed)

    def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, out=None, **kw):
        if len(size) == 1 and isinstance(size[0], (tuple, list)) or len(size) == 1 and hasattr(size[0], "__len__"):
            size = tuple(size[0])
        t = torch.from_numpy(rng.standard_normal(size).astype(np.float32))
        return t.to(dtype) if dtype is not None else t

    def randn_like(x, dtype=None, **kw):
        return torch.from_numpy(rng.standard_normal(tuple(x.shape))).to(dtype or x.dtype)

    torch.randn, torch.randn_like = randn, randn_like


def labels(rng, n, classes):
    return rng.integers(0, classes, size=n).astype(np.int64)


def images(rng, n, c, h, w):
    return rng.standard_normal((n, c, h, w)).astype(np.float32)


REPLAY_LINEAR = ("every nn.Linear's initial weights drawn from one NumPy generator (the program builds a Linear "
                 "inside forward, on every call, so its weights are fresh random draws each step)")


def replay_linear_init(torch, seed=2):
    """nn.Linear.reset_parameters draws PyTorch's U(-1/sqrt(fan_in), 1/sqrt(fan_in)) bounds from one NumPy
    generator, so layers created while the program runs get the same weights under both frameworks."""
    import math
    rng = np.random.default_rng(seed)

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
        with torch.no_grad():
            for p in (self.weight, self.bias):
                if p is not None:
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))).to(p.dtype))

    torch.nn.Linear.reset_parameters = reset_parameters
