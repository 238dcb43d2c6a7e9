"""Second-order oracle: d/dx of (grad(y, x, v, create_graph=True) . w), against PyTorch and gradgradcheck.

``second_order(lib, case, arrays)`` runs the same expression in npgrad and in PyTorch: first-order
gradients of ``fn(xs)`` with a random upstream ``v`` (itself requiring grad) taken with
``create_graph=True``, contracted with random weights ``w``, then differentiated again with respect to
every input and to ``v``. Absent second-order gradients count as zeros.
"""
import numpy as np

import npgrad
from oracle import make_arrays


def to_numpy(t):
    if isinstance(t, npgrad.Tensor):
        return t.detach().numpy()
    return t.detach().numpy(force=True)  # torch may hand back a lazy ZeroTensor


def first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def leaves(lib, case, arrays):
    ts = []
    for spec, a in zip(case.inputs, arrays):
        t = lib.tensor(a)
        if spec.grad and a.dtype.kind == "f":
            t.requires_grad_(True)
        ts.append(t)
    return ts


def second_order(lib, case, arrays, seed=3):
    ts = leaves(lib, case, arrays)
    diff = [t for t in ts if t.requires_grad]
    out = first(case.fn(lib, *ts))
    rng = np.random.default_rng(seed)
    dtype = arrays[0].dtype if arrays[0].dtype.kind == "f" else np.float64
    v = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype)).requires_grad_(True)
    firsts = lib.autograd.grad(out, diff, v, create_graph=True, allow_unused=True)
    total = None
    for g in firsts:
        if g is None:
            continue
        w = lib.tensor(rng.standard_normal(tuple(g.shape)).astype(dtype))
        term = (g * w).sum()
        total = term if total is None else total + term
    wrt = diff + [v]
    if total is None or not total.requires_grad:
        seconds = [None] * len(wrt)
    else:
        seconds = lib.autograd.grad(total, wrt, allow_unused=True)
    f = [None if g is None else to_numpy(g) for g in firsts]
    s = [np.zeros(tuple(x.shape), dtype) if g is None else to_numpy(g) for g, x in zip(seconds, wrt)]
    return f, s


def gradgradcheck_case(case, seed=0, **kw):
    arrays = make_arrays(case, np.float64, seed)
    ts = leaves(npgrad, case, arrays)
    return npgrad.autograd.gradgradcheck(lambda *xs: first(case.fn(npgrad, *xs)), ts, **kw)
