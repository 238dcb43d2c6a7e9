"""Checks shared by the elementwise and tensor-API tests, next to the gradient oracle in ``oracle.py``.

* ``check_forward(fn, *arrays)``: ``fn(lib, *tensors)`` gives the same values and dtype in npgrad and
  PyTorch (exact for integer and bool results), for forward-only behaviour such as integer arithmetic.
* ``check_error(fn, exc, message)``: ``fn(npgrad)`` raises ``exc`` with PyTorch's message; with PyTorch
  installed the same call must raise the same message there too, so the expected text is PyTorch's own.
* ``check_no_upcast(case)``: in a float32 graph, no backward formula returns a float64 gradient for a
  float32 input (the engine would cast it back, hiding a silent and slow float64 computation).
"""
import re

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, TOL, assert_close, first_output, leaves, make_arrays, to_numpy, torch


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def _tensors(lib, arrays):
    return [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]


def check_forward(fn, *arrays, what=""):
    """Forward parity: same dtype, same values (NaN positions included)."""
    out_n = fn(npgrad, *_tensors(npgrad, arrays))
    out_t = fn(torch, *_tensors(torch, arrays))
    outs_n = out_n if isinstance(out_n, tuple) else (out_n,)
    outs_t = out_t if isinstance(out_t, tuple) else (out_t,)
    for a, b in zip(outs_n, outs_t):
        assert isinstance(a, npgrad.Tensor), f"{what}: npgrad returned {type(a).__name__}"
        assert dtype_name(a) == dtype_name(b), f"{what}: dtype {a.dtype} != torch {b.dtype}"
        an, bn = to_numpy(a), to_numpy(b)
        tol = TOL.get(an.dtype.type, dict(rtol=1e-3, atol=1e-3))
        assert_close(an, bn, what=what, **tol)


def check_error(fn, exc, message):
    """``fn(npgrad)`` raises ``exc`` whose message is ``message`` (PyTorch's, checked when torch is here)."""
    with pytest.raises(exc) as info:
        fn(npgrad)
    assert str(info.value) == message, f"npgrad said {str(info.value)!r}"
    if HAS_TORCH:
        with pytest.raises(Exception) as tinfo:
            fn(torch)
        assert isinstance(tinfo.value, exc), f"torch raised {type(tinfo.value).__name__}"
        assert str(tinfo.value) == message, f"the expected text is not PyTorch's: {str(tinfo.value)!r}"


def check_error_like_torch(fn):
    """``fn`` fails in npgrad with PyTorch's exception class and message (torch required)."""
    with pytest.raises(Exception) as tinfo:
        fn(torch)
    with pytest.raises(Exception) as ninfo:
        fn(npgrad)
    assert isinstance(ninfo.value, type(tinfo.value)), \
        f"npgrad raised {type(ninfo.value).__name__}, torch {type(tinfo.value).__name__}"
    # "torch.float32" reads "npgrad.float32" in npgrad; advice that quotes torch code may stay verbatim.
    got, raw = str(ninfo.value), str(tinfo.value)
    assert got in (raw, re.sub(r"\btorch\.", "npgrad.", raw)), f"npgrad: {got!r}\ntorch:  {raw!r}"


def _graph_nodes(root):
    seen, stack, nodes = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or "AccumulateGrad" in node.name():
            continue
        seen.add(id(node))
        nodes.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return nodes


def check_no_upcast(case, seed=0):
    """Every node's backward answers a float32 input with a float32 gradient (dtype casts excepted)."""
    arrays = make_arrays(case, np.float32, seed)
    out = first_output(case.fn(npgrad, *leaves(npgrad, case, arrays)))
    assert out.grad_fn is not None, f"{case.name}: no graph to check (a row with no input that needs grad?)"
    bad = []

    def watch(node):
        def hook(grad_inputs, grad_outputs):
            for g, meta in zip(grad_inputs, node._in_meta):
                if g is not None and meta is not None and meta[1] == np.float32:
                    dt = g._data.dtype if isinstance(g, npgrad.Tensor) else np.asarray(g).dtype
                    if dt != np.float32:
                        bad.append(f"{node.name()} returned a {dt} gradient for a float32 input")
        return hook

    for node in _graph_nodes(out.grad_fn):
        if node.name() != "ToCopyBackward0":
            node.register_hook(watch(node))
    out.backward(npgrad.ones_like(out))
    assert not bad, f"{case.name}: " + "; ".join(bad)


def check_like_torch(fn, *arrays, what=""):
    """Whatever PyTorch does with ``fn`` (a result or an error), npgrad does the same (torch required)."""
    try:
        fn(torch, *_tensors(torch, arrays))
    except Exception:
        check_error_like_torch(lambda lib: fn(lib, *_tensors(lib, arrays)))
        return
    check_forward(fn, *arrays, what=what)
