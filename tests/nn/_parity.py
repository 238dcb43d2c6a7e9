"""Helpers for nn parity tests: run the same module or function in npgrad and PyTorch (same weights, same
inputs, same upstream gradient) and compare outputs and every gradient."""
import numpy as np

import npgrad
from oracle import HAS_TORCH, assert_close, torch

TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}


def to_np(t):
    if HAS_TORCH and isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return t.detach().numpy() if isinstance(t, npgrad.Tensor) else np.asarray(t)


def lib_tensor(lib, a, grad=False):
    t = lib.tensor(np.array(a))
    if grad and np.asarray(a).dtype.kind == "f":
        t.requires_grad_(True)
    return t


def copy_state(src, dst):
    """Load a torch module's state_dict into an npgrad module (or the reverse)."""
    own = list(dst.state_dict().values())
    if not own:
        return
    lib = npgrad if isinstance(own[0], npgrad.Tensor) else torch
    dst.load_state_dict({k: lib.tensor(to_np(v).copy()) for k, v in src.state_dict().items()})


def _flat_outputs(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat_outputs(o))
        return res
    return [out] if out is not None else []


def run_module(mod, lib, arrays, grads, upstream_seed=1, train=True):
    """Forward ``mod`` on ``arrays`` (grads: which inputs need grad), backward a random upstream gradient."""
    mod.train(train)
    xs = [lib_tensor(lib, a, g) for a, g in zip(arrays, grads)]
    out = mod(*xs)
    outs = [o for o in _flat_outputs(out) if to_np(o).dtype.kind == "f"]
    diff = [o for o in outs if o.requires_grad]
    if diff:
        rng = np.random.default_rng(upstream_seed)
        ups = [lib.tensor(rng.standard_normal(tuple(o.shape)).astype(to_np(o).dtype)) for o in diff]
        lib.autograd.backward(diff, ups)
    in_grads = [None if x.grad is None else to_np(x.grad) for x in xs]
    p_grads = {k: (None if p.grad is None else to_np(p.grad)) for k, p in mod.named_parameters()}
    return [to_np(o) for o in _flat_outputs(out)], in_grads, p_grads


def check_module(make, arrays, grads=None, dtype=np.float64, train=True, tol=None, same_state=True, what=""):
    """Build the module with ``make(lib)`` in both libraries, copy torch's weights, compare everything."""
    tol = tol or TOL[dtype]
    arrays = [a.astype(dtype) if a.dtype.kind == "f" else a for a in arrays]
    grads = grads or [a.dtype.kind == "f" for a in arrays]
    tm = make(torch)
    nm = make(npgrad)
    if dtype == np.float64:
        tm = tm.double()
        nm = nm.double()
    if same_state:
        copy_state(tm, nm)
    t_out, t_in, t_p = run_module(tm, torch, arrays, grads, train=train)
    n_out, n_in, n_p = run_module(nm, npgrad, arrays, grads, train=train)
    assert len(t_out) == len(n_out), f"{what}: {len(n_out)} outputs vs torch {len(t_out)}"
    for i, (a, b) in enumerate(zip(n_out, t_out)):
        assert a.dtype == b.dtype, f"{what}: output {i} dtype {a.dtype} vs torch {b.dtype}"
        assert_close(a, b, what=f"{what} output {i}", **tol)
    for i, (a, b) in enumerate(zip(n_in, t_in)):
        assert (a is None) == (b is None), f"{what}: input {i} grad presence"
        if a is not None:
            assert_close(a, b, what=f"{what} input grad {i}", **tol)
    assert list(n_p) == list(t_p), f"{what}: parameter names {list(n_p)} vs torch {list(t_p)}"
    for k in t_p:
        assert (n_p[k] is None) == (t_p[k] is None), f"{what}: grad presence of {k}"
        if t_p[k] is not None:
            assert_close(n_p[k], t_p[k], what=f"{what} grad of {k}", **tol)
    # Buffers (running statistics) must evolve the same way.
    t_b = {k: to_np(v) for k, v in tm.state_dict().items()}
    n_b = {k: to_np(v) for k, v in nm.state_dict().items()}
    assert list(n_b) == list(t_b), f"{what}: state_dict keys {list(n_b)} vs torch {list(t_b)}"
    for k in t_b:
        assert_close(n_b[k], t_b[k], what=f"{what} state {k}", **tol)
    return nm, tm


def check_function(fn, arrays, grads=None, dtype=np.float64, tol=None, what=""):
    """``fn(lib, *tensors)`` in both libraries: outputs and input gradients."""
    class _Wrap:
        def __init__(self, lib):
            self.lib = lib

        def train(self, mode):
            return self

        def __call__(self, *xs):
            return fn(self.lib, *xs)

        def named_parameters(self):
            return iter(())

        def state_dict(self):
            return {}
    tol = tol or TOL[dtype]
    arrays = [a.astype(dtype) if a.dtype.kind == "f" else a for a in arrays]
    grads = grads or [a.dtype.kind == "f" for a in arrays]
    t_out, t_in, _ = run_module(_Wrap(torch), torch, arrays, grads)
    n_out, n_in, _ = run_module(_Wrap(npgrad), npgrad, arrays, grads)
    assert len(t_out) == len(n_out), f"{what}: {len(n_out)} outputs vs torch {len(t_out)}"
    for i, (a, b) in enumerate(zip(n_out, t_out)):
        assert a.dtype == b.dtype, f"{what}: output {i} dtype {a.dtype} vs torch {b.dtype}"
        assert_close(a, b, what=f"{what} output {i}", **tol)
    for i, (a, b) in enumerate(zip(n_in, t_in)):
        assert (a is None) == (b is None), f"{what}: input {i} grad presence {a is None} vs {b is None}"
        if a is not None:
            assert a.dtype == b.dtype, f"{what}: input grad {i} dtype {a.dtype} vs torch {b.dtype}"
            assert_close(a, b, what=f"{what} input grad {i}", **tol)


def finite_difference_check(fn, arrays, grads=None, eps=1e-6, tol=1e-6, seed=1, what=""):
    """npgrad's gradients of sum(up * fn(*inputs)) against central differences, in float64 (no torch needed)."""
    arrays = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]
    grads = grads or [a.dtype.kind == "f" for a in arrays]

    def f(arrs):
        with npgrad.no_grad():
            out = fn(npgrad, *[npgrad.tensor(a) for a in arrs])
        return to_np(out[0] if isinstance(out, (tuple, list)) else out).astype(np.float64)

    xs = [lib_tensor(npgrad, a, g) for a, g in zip(arrays, grads)]
    out = fn(npgrad, *xs)
    out = out[0] if isinstance(out, (tuple, list)) else out
    up = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    out.backward(npgrad.tensor(up))
    for i, (a, g) in enumerate(zip(arrays, grads)):
        if not g:
            continue
        num = np.zeros_like(a)
        for j in range(a.size):
            p, m = [x.copy() for x in arrays], [x.copy() for x in arrays]
            p[i].flat[j] += eps
            m[i].flat[j] -= eps
            num.flat[j] = np.sum(up * (f(p) - f(m))) / (2 * eps)
        assert xs[i].grad is not None, f"{what}: no gradient for input {i}"
        assert_close(to_np(xs[i].grad), num, rtol=tol, atol=tol, what=f"{what} finite-difference grad {i}")
