"""Shared driver for optimizer parity tests: the same weights and gradient field in npgrad and in PyTorch."""
import copy

import numpy as np

import npgrad

SHAPES = [(3, 4), (5,), ()]


def grad_field(p, k, t):
    """A smooth gradient, different per parameter ``k`` and step ``t``, computed in the parameter's dtype from
    each library's own current values."""
    p = np.asarray(p)
    dt = p.dtype.type
    field = dt(0.7 + 0.3 * k) * (p - dt(0.5)) + dt(0.2) * np.cos(p * dt(1 + t % 3)) + dt(0.05 * (t + 1))
    return field.astype(p.dtype)


def initial(seed=0, dtype=np.float32, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.5, 1.5, size=s).astype(dtype) for s in shapes]


def make(lib, name, kwargs, dtype=np.float32, groups=None, shapes=SHAPES):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in initial(dtype=dtype, shapes=shapes)]
    if groups is None:
        opt = getattr(lib.optim, name)(params, **kwargs)
    else:
        opt = getattr(lib.optim, name)([dict(params=[params[i] for i in idx], **extra) for idx, extra in groups],
                                       **kwargs)
    return params, opt


def train(lib, params, opt, start, stop):
    for t in range(start, stop):
        for k, p in enumerate(params):
            p.grad = lib.tensor(grad_field(p.detach().numpy(), k, t))
        opt.step()
    return [p.detach().numpy().copy() for p in params]


def run(lib, name, kwargs, steps=20, dtype=np.float32, groups=None, shapes=SHAPES):
    params, opt = make(lib, name, kwargs, dtype, groups, shapes)
    return train(lib, params, opt, 0, steps), opt


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


def assert_close(ours, theirs, dtype=np.float32):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, **tol(dtype))


def to_npgrad(obj):
    """A PyTorch state_dict with every tensor turned into an npgrad tensor (as a converted checkpoint would be)."""
    import torch  # optional
    if isinstance(obj, torch.Tensor):
        return npgrad.tensor(obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: to_npgrad(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_npgrad(v) for v in obj)
    return copy.deepcopy(obj)
