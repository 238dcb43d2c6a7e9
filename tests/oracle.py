"""The test oracle: run one expression in npgrad and in PyTorch, and check gradients numerically.

An ``OpCase`` describes an operator once: how to build its inputs and a function ``fn(lib, *xs)``
written against PyTorch's API, so the same function runs with ``lib=npgrad`` and ``lib=torch``.
``check_case`` then derives every check from it:

* forward value and dtype equal PyTorch's (when torch is installed);
* each input's gradient equals PyTorch's, for a random upstream gradient;
* each input's gradient equals central finite differences in float64 (always, torch or not).
"""
import dataclasses
from typing import Callable, Optional, Sequence

import numpy as np

import npgrad

try:  # PyTorch is the oracle when installed; the finite-difference checks need nothing.
    import torch
    torch.set_num_threads(1)
    HAS_TORCH = True
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
    HAS_TORCH = False

TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


def reduction_length(*shapes):
    """An upper estimate of how many terms one result element sums: the largest dimension among the
    operands and results (a matmul's inner size), or the ratio of the largest to the smallest element
    count (a reduction over several dimensions)."""
    sizes = [int(np.prod(s)) for s in shapes] or [1]
    return max([1, max(sizes) // max(1, min(sizes))] + [d for s in shapes for d in s])


def scaled_tol(dtype, *shapes):
    """``TOL[dtype]`` with float32's absolute tolerance grown with the reduction length K: rounding
    errors of a K-term float32 sum grow like sqrt(K) (a random walk), and which summation order
    the BLAS kernel picks differs by machine, so a fixed atol would pass or fail by machine."""
    tol = dict(TOL.get(dtype, dict(rtol=1e-3, atol=1e-3)))
    if dtype is np.float32:
        tol["atol"] *= max(1.0, np.sqrt(reduction_length(*shapes)))
    return tol


@dataclasses.dataclass
class In:
    """One input: its shape, value range, dtype (None: the dtype under test) and whether it needs grad."""
    shape: tuple
    low: float = -2.0
    high: float = 2.0
    dtype: Optional[object] = None
    grad: bool = True
    values: Optional[Callable] = None  # rng -> array, for inputs that need a special structure
    nonzero: bool = False              # keep |x| >= 0.1 (divisors, log of |x| ...)


@dataclasses.dataclass
class OpCase:
    name: str
    fn: Callable                       # fn(lib, *inputs) -> tensor (or tuple: the first is checked)
    inputs: Sequence[In]
    dtypes: Sequence = (np.float32, np.float64)
    fd: bool = True                    # run the finite-difference check
    fd_eps: float = 1e-6
    fd_tol: float = 1e-6
    grad_tol: Optional[dict] = None    # override TOL for gradient comparisons

    def __str__(self):
        return self.name


def make_arrays(case, dtype, seed=0):
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in case.inputs:
        dt = dtype if spec.dtype is None else spec.dtype
        if spec.values is not None:
            a = np.asarray(spec.values(rng))
        elif np.dtype(dt).kind == "b":
            a = rng.random(spec.shape) < 0.5
        elif np.dtype(dt).kind in "iu":
            a = rng.integers(int(spec.low), int(spec.high), size=spec.shape)
        else:
            a = rng.uniform(spec.low, spec.high, size=spec.shape)
            if spec.nonzero:
                a = np.where(np.abs(a) < 0.1, np.copysign(0.1, a) + a, a)
        arrays.append(np.asarray(a).astype(dt) if spec.values is None or np.asarray(a).dtype.kind == "f" and
                      np.dtype(dt).kind == "f" else np.asarray(a))
    return arrays


def first_output(out):
    """The checked result of ``case.fn``: its first element when it returns a tuple."""
    return out[0] if isinstance(out, (tuple, list)) else out


def leaves(lib, case, arrays):
    """``lib`` tensors of ``arrays``; float inputs marked ``grad`` in the case require grad."""
    ts = []
    for spec, a in zip(case.inputs, arrays):
        t = lib.tensor(a)
        if spec.grad and a.dtype.kind == "f":
            t.requires_grad_(True)
        ts.append(t)
    return ts


def run(lib, case, arrays, upstream_seed=1, others=None):
    """Forward then backward with a fixed random upstream gradient; returns (out, [grads]). The outputs after
    the first (a tuple's: sort's indices, max's indices ...) are appended to ``others`` when given."""
    ts = leaves(lib, case, arrays)
    full = case.fn(lib, *ts)
    out = first_output(full)
    if others is not None and isinstance(full, (tuple, list)):
        others.extend(_flat(full[1:]))
    grads = [None] * len(ts)
    if out.requires_grad:
        up = np.random.default_rng(upstream_seed).standard_normal(tuple(out.shape)).astype(to_numpy(out).dtype)
        out.backward(lib.tensor(up))
        grads = [None if t.grad is None else to_numpy(t.grad) for t in ts]
    return out, grads


def _flat(outputs):
    for o in outputs:
        if isinstance(o, (tuple, list)) and not (HAS_TORCH and isinstance(o, torch.Size)) and \
                not isinstance(o, npgrad.Size):
            yield from _flat(o)
        else:
            yield o


def to_numpy(t):
    if HAS_TORCH and isinstance(t, torch.Tensor):
        return t.detach().numpy()
    if isinstance(t, npgrad.Tensor):
        return t.detach().numpy()
    return np.asarray(t)


def assert_close(actual, expected, rtol, atol, what=""):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "biu" or expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def check_against_torch(case, dtype, seed=0, tol=None):
    """Forward value and dtype, and each input's gradient, equal PyTorch's (within ``tol``, by default the
    dtype's; gradients within the case's ``grad_tol`` when it has one)."""
    arrays = make_arrays(case, dtype, seed)
    rest_n, rest_t = [], []
    out_n, grads_n = run(npgrad, case, arrays, others=rest_n)
    out_t, grads_t = run(torch, case, arrays, others=rest_t)
    tol = tol or scaled_tol(dtype, *(a.shape for a in arrays), tuple(out_n.shape))
    assert len(rest_n) == len(rest_t), f"{case.name}: {len(rest_n) + 1} outputs != torch {len(rest_t) + 1}"
    for k, (a, b) in enumerate([(out_n, out_t)] + list(zip(rest_n, rest_t))):
        what = f"{case.name} forward" + (f" output {k}" if k else "")
        if not isinstance(b, torch.Tensor):  # a plain value among the outputs (a count, a shape, None)
            same = tuple(a) == tuple(b) if isinstance(b, torch.Size) else a == b
            assert not isinstance(a, npgrad.Tensor) and same, f"{what}: {a!r} != torch {b!r}"
            continue
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{what}: dtype {a.dtype} != torch {b.dtype}"
        assert_close(to_numpy(a), to_numpy(b), what=what, **tol)
    gtol = case.grad_tol or tol
    for i, (gn, gt) in enumerate(zip(grads_n, grads_t)):
        assert (gn is None) == (gt is None), f"{case.name}: input {i} grad presence {gn is None} vs torch {gt is None}"
        if gn is not None:
            assert gn.dtype == gt.dtype, f"{case.name}: grad {i} dtype {gn.dtype} != {gt.dtype}"
            assert_close(gn, gt, what=f"{case.name} grad of input {i}", **gtol)


def numeric_grads(case, arrays, upstream_seed=1):
    """Central finite differences of sum(upstream * fn(inputs)) in float64."""
    def f(arrs):
        ts = [npgrad.tensor(a) for a in arrs]
        with npgrad.no_grad():
            return to_numpy(first_output(case.fn(npgrad, *ts))).astype(np.float64)

    out = f(arrays)
    up = np.random.default_rng(upstream_seed).standard_normal(out.shape)
    grads = []
    for i, (spec, a) in enumerate(zip(case.inputs, arrays)):
        if not spec.grad or a.dtype.kind != "f":
            grads.append(None)
            continue
        g = np.zeros_like(a, dtype=np.float64)
        for j in range(a.size):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i].flat[j] += case.fd_eps
            minus[i].flat[j] -= case.fd_eps
            g.flat[j] = np.sum(up * (f(plus) - f(minus))) / (2 * case.fd_eps)
        grads.append(g)
    return grads


def check_finite_differences(case, seed=0):
    arrays = make_arrays(case, np.float64, seed)
    _, grads = run(npgrad, case, arrays)
    expected = numeric_grads(case, arrays)
    for i, (g, e) in enumerate(zip(grads, expected)):
        if e is None:
            continue
        assert g is not None, f"{case.name}: no gradient for input {i}"
        assert g.dtype == np.float64, f"{case.name}: float64 input got a {g.dtype} gradient"
        assert_close(g, e, rtol=case.fd_tol, atol=case.fd_tol, what=f"{case.name} finite-difference grad {i}")
