"""Second-order check shared by the op tables: gradients taken with ``create_graph=True`` must themselves
differentiate like PyTorch's (with respect to the inputs and to the upstream gradient)."""
import numpy as np

import npgrad
from oracle import HAS_TORCH, TOL, assert_close, make_arrays, torch


def to_numpy(t):
    if isinstance(t, npgrad.Tensor):
        return t.detach().numpy()
    return t.detach().numpy(force=True)  # torch may hand back a lazy ZeroTensor


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def _second_order(lib, case, arrays):
    ts = []
    for spec, a in zip(case.inputs, arrays):
        t = lib.tensor(a)
        if spec.grad and a.dtype.kind == "f":
            t.requires_grad_(True)
        ts.append(t)
    diff = [t for t in ts if t.requires_grad]
    out = _first(case.fn(lib, *ts))
    rng = np.random.default_rng(3)
    up = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(arrays[0].dtype)).requires_grad_(True)
    firsts = lib.autograd.grad(out, diff, up, create_graph=True, allow_unused=True)
    total = None
    for g in firsts:
        if g is None:
            continue
        w = lib.tensor(rng.standard_normal(tuple(g.shape)).astype(arrays[0].dtype))
        term = (g * w).sum()
        total = term if total is None else total + term
    wrt = diff + [up]
    if total is None or not total.requires_grad:
        seconds = [None] * len(wrt)
    else:
        seconds = lib.autograd.grad(total, wrt, allow_unused=True)
    as_np = [None if g is None else to_numpy(g) for g in firsts]
    # A second-order gradient that is absent is zero (the first gradient did not depend on that input).
    sec = [np.zeros(tuple(x.shape), arrays[0].dtype) if g is None else to_numpy(g) for g, x in zip(seconds, wrt)]
    return as_np, sec


def check_double_backward(case, dtype=np.float64):
    """Compare first and second-order gradients (create_graph=True) against PyTorch."""
    assert HAS_TORCH
    arrays = make_arrays(case, dtype)
    f_n, s_n = _second_order(npgrad, case, arrays)
    f_t, s_t = _second_order(torch, case, arrays)
    tol = case.grad_tol or TOL[dtype]
    for i, (a, b) in enumerate(zip(f_n, f_t)):
        assert (a is None) == (b is None), f"{case.name}: first-order grad {i} presence"
        if a is not None:
            assert_close(a, b, what=f"{case.name} create_graph grad {i}", **tol)
    for i, (a, b) in enumerate(zip(s_n, s_t)):
        assert_close(a, b, what=f"{case.name} second-order grad {i}", **tol)
