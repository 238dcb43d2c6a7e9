"""Second-order oracle: d/dx of (grad(y, x, v, create_graph=True) . w), against PyTorch and gradgradcheck.

``second_order(lib, case, arrays)`` runs the same expression in npgrad and in PyTorch: first-order
gradients of ``fn(xs)`` with a random upstream ``v`` (itself requiring grad) taken with
``create_graph=True``, contracted with random weights ``w``, then differentiated again with respect to
every input and to ``v``. Absent second-order gradients count as zeros.

``check_double_backward(case)`` compares both orders with PyTorch's (the op tables and the autograd
tests use it); ``gradgradcheck_case(case)`` is the finite-difference check that needs no PyTorch.
"""
import numpy as np

import npgrad
from oracle import HAS_TORCH, assert_close, scaled_tol, first_output, leaves, make_arrays, torch


def to_numpy(t):
    if isinstance(t, npgrad.Tensor):
        return t.detach().numpy()
    return t.detach().numpy(force=True)  # torch may hand back a lazy ZeroTensor


def second_order(lib, case, arrays, seed=3):
    ts = leaves(lib, case, arrays)
    diff = [t for t in ts if t.requires_grad]
    out = first_output(case.fn(lib, *ts))
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
    # A second-order gradient that is absent is zero (the first gradient did not depend on that input).
    s = [np.zeros(tuple(x.shape), dtype) if g is None else to_numpy(g) for g, x in zip(seconds, wrt)]
    return f, s


def check_double_backward(case, dtype=np.float64, tol=None):
    """First and second-order gradients (create_graph=True) equal PyTorch's, within ``tol`` (by default the
    case's ``grad_tol``, else the dtype's)."""
    assert HAS_TORCH
    arrays = make_arrays(case, dtype)
    f_n, s_n = second_order(npgrad, case, arrays)
    f_t, s_t = second_order(torch, case, arrays)
    tol = tol or case.grad_tol or scaled_tol(dtype, *(a.shape for a in arrays))
    for i, (a, b) in enumerate(zip(f_n, f_t)):
        assert (a is None) == (b is None), f"{case.name}: first-order grad {i} presence"
        if a is not None:
            assert_close(a, b, what=f"{case.name} create_graph grad {i}", **tol)
    for i, (a, b) in enumerate(zip(s_n, s_t)):
        assert_close(a, b, what=f"{case.name} second-order grad {i}", **tol)


def gradgradcheck_case(case, seed=0, **kw):
    arrays = make_arrays(case, np.float64, seed)
    ts = leaves(npgrad, case, arrays)
    return npgrad.autograd.gradgradcheck(lambda *xs: first_output(case.fn(npgrad, *xs)), ts, **kw)
