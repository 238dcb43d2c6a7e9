"""``out=`` on the torch.<name> functions PyTorch gives one (ops/_out.py): values written in place and ``out``
returned, dtype rules, resizing with PyTorch's warning, and PyTorch's refusals — each against PyTorch."""
import json
import pathlib
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.ops import _registry
from npgrad.ops._out_index import OUT_NAMES
from oracle import HAS_TORCH, torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
A = np.arange(1.0, 7.0).reshape(2, 3)


def _a(L):
    return L.tensor(A, dtype=L.float32)


# (id, call(L, out) -> result, make_out(L))
CASES = [
    ("exp", lambda L, o: L.exp(_a(L), out=o), lambda L: L.empty(2, 3)),
    ("exp_resize_empty", lambda L, o: L.exp(_a(L), out=o), lambda L: L.empty(0)),
    ("exp_into_float64", lambda L, o: L.exp(_a(L), out=o), lambda L: L.empty(2, 3, dtype=L.float64)),
    ("sqrt_into_itself", lambda L, o: L.sqrt(o, out=o), lambda L: _a(L).clone()),
    ("mul_broadcast", lambda L, o: L.mul(_a(L), L.tensor([1.0, 2.0, 3.0]), out=o), lambda L: L.empty(2, 3)),
    ("sum_dim", lambda L, o: L.sum(_a(L), 1, out=o), lambda L: L.empty(2)),
    ("mean_keepdim_axis", lambda L, o: L.mean(_a(L), axis=0, keepdims=True, out=o), lambda L: L.empty(1, 3)),
    ("matmul", lambda L, o: L.matmul(_a(L), _a(L).t(), out=o), lambda L: L.empty(2, 2)),
    ("eq_into_float", lambda L, o: L.eq(_a(L), 2.0, out=o), lambda L: L.empty(2, 3)),
    ("eq_into_bool", lambda L, o: L.eq(_a(L), 2.0, out=o), lambda L: L.empty(2, 3, dtype=L.bool)),
    ("where", lambda L, o: L.where(_a(L) > 2, _a(L), L.zeros(()), out=o), lambda L: L.empty(2, 3)),
    ("clamp", lambda L, o: L.clamp(_a(L), 2, 4, out=o), lambda L: L.empty(2, 3)),
    ("cumsum_int_into_float", lambda L, o: L.cumsum(L.arange(4), 0, out=o), lambda L: L.empty(4)),
    ("max_dim_tuple", lambda L, o: L.max(_a(L), 1, out=o), lambda L: (L.empty(0), L.empty(0, dtype=L.long))),
    ("sort_tuple", lambda L, o: L.sort(-_a(L), 1, out=o), lambda L: (L.empty(2, 3), L.empty(2, 3, dtype=L.long))),
    ("topk_tuple", lambda L, o: L.topk(_a(L), 2, out=o), lambda L: (L.empty(2, 2), L.empty(2, 2, dtype=L.long))),
]


def _values(r):
    return [t.numpy() for t in r] if isinstance(r, tuple) else [r.numpy()]


@pytest.mark.parametrize("call, make", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_out_is_written_and_returned(call, make):
    out = make(npgrad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # none of these resizes a non-empty out
        result = call(npgrad, out)
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    assert all(r is o for r, o in zip(results, outs))
    if HAS_TORCH:
        t_out = make(torch)
        want = call(torch, t_out)
        for got, exp in zip(_values(result), _values(want)):
            assert got.dtype == exp.dtype and got.shape == exp.shape
            np.testing.assert_allclose(got, exp, rtol=1e-6)


def test_out_matches_the_plain_call_without_torch():
    o = npgrad.empty(2, 3, dtype=npgrad.float64)
    npgrad.exp(_a(npgrad), out=o)
    np.testing.assert_allclose(o.numpy(), np.exp(A).astype(np.float32), rtol=1e-7)
    v, i = npgrad.empty(0), npgrad.empty(0, dtype=npgrad.long)
    npgrad.max(_a(npgrad), 1, out=(v, i))
    assert v.tolist() == [3.0, 6.0] and i.tolist() == [2, 2]


def test_resizing_a_non_empty_out_warns_as_pytorch():
    for L in [npgrad] + ([torch] if HAS_TORCH else []):
        o = L.empty(2)
        with pytest.warns(UserWarning, match=r"An output with one or more elements was resized since it had shape "
                                             r"\[2\], which does not match the required output shape \[2, 3\]"):
            L.exp(_a(L), out=o)
        assert tuple(o.shape) == (2, 3)


ERRORS = [  # (id, call, error class, message)
    ("float_into_long", lambda L: L.exp(_a(L), out=L.empty(2, 3, dtype=L.long)), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    ("float_into_bool", lambda L: L.add(_a(L), 1, out=L.empty(2, 3, dtype=L.bool)), RuntimeError,
     "result type Float can't be cast to the desired output type Bool"),
    ("input_requires_grad", lambda L: L.exp(L.ones(3, requires_grad=True), out=L.empty(3)), RuntimeError,
     "exp(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
     "requires grad."),
    ("out_requires_grad", lambda L: L.exp(L.ones(3), out=L.empty(3, requires_grad=True)), RuntimeError,
     "exp(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
     "requires grad."),
    ("out_not_a_tensor", lambda L: L.exp(L.ones(3), out=[1]), TypeError, "exp(): argument 'out' must be Tensor, not list"),
]


@pytest.mark.parametrize("call, cls, message", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_refusals_as_pytorch(call, cls, message):
    with pytest.raises(cls) as ours:
        call(npgrad)
    assert str(ours.value) == message
    if HAS_TORCH:
        with pytest.raises(cls) as theirs:
            call(torch)
        assert str(theirs.value).startswith(message)


def test_without_recording_out_may_take_a_requires_grad_input():
    with npgrad.no_grad():
        o = npgrad.empty(3)
        npgrad.exp(npgrad.zeros(3, requires_grad=True), out=o)
    assert o.tolist() == [1.0, 1.0, 1.0]


def test_out_index_is_the_snapshot_of_pytorchs_schemas():
    snapshot = json.loads((ROOT / "tools" / "pytorch_api.json").read_text())
    assert OUT_NAMES == frozenset(snapshot["out_functions"])


def test_every_registered_function_pytorch_gives_out_takes_it():
    import inspect
    npgrad.ops.load_lazy_families()
    missing = []
    for rec in _registry.RECORDS:
        if rec.public and OUT_NAMES.intersection(rec.names):
            if "out" not in inspect.signature(rec.public_fn).parameters:
                missing.append(rec.name)
            for n in rec.names:
                assert getattr(npgrad, n) is rec.public_fn, n
    assert not missing, missing


def test_methods_do_not_take_out():
    with pytest.raises(TypeError):
        _a(npgrad).exp(out=npgrad.empty(2, 3))
