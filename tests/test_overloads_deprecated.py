"""Overloads and keyword names programs use: randint's two forms, split's keyword names, and the deprecated
add/sub/addcdiv/addcmul argument orders PyTorch 2.13 still accepts (with its one deprecation warning)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import npgrad

from oracle import HAS_TORCH, torch

LIBS = ["npgrad"] + (["torch"] if HAS_TORCH else [])


def _lib(name):
    return npgrad if name == "npgrad" else torch


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e), str(e)
    return None


# -- randint -------------------------------------------------------------------------------------------------------
RANDINT_OK = [
    ("high, size=", lambda lib, g: lib.randint(5, size=(3,), generator=g), 0, 5, (3,), "int64"),
    ("high, size", lambda lib, g: lib.randint(5, [2, 2], generator=g), 0, 5, (2, 2), "int64"),
    ("low, high, size", lambda lib, g: lib.randint(3, 7, (4,), generator=g), 3, 7, (4,), "int64"),
    ("keywords", lambda lib, g: lib.randint(low=3, high=7, size=(4,), generator=g), 3, 7, (4,), "int64"),
    ("high=, size=", lambda lib, g: lib.randint(size=(2,), high=2, generator=g), 0, 2, (2,), "int64"),
    ("low, high=", lambda lib, g: lib.randint(-2, high=2, size=(5,), generator=g), -2, 2, (5,), "int64"),
    ("0-d tensor high", lambda lib, g: lib.randint(lib.tensor(4), size=(), generator=g), 0, 4, (), "int64"),
    ("dtype", lambda lib, g: lib.randint(5, (3,), generator=g, dtype=lib.int32), 0, 5, (3,), "int32"),
    ("float dtype", lambda lib, g: lib.randint(5, (3,), generator=g, dtype=lib.float32), 0, 5, (3,), "float32"),
]


@pytest.mark.parametrize("case", RANDINT_OK, ids=[c[0] for c in RANDINT_OK])
@pytest.mark.parametrize("libname", LIBS)
def test_randint_forms(libname, case):
    lib = _lib(libname)
    _, call, low, high, shape, dtype = case
    a = call(lib, lib.Generator().manual_seed(0))
    assert tuple(a.shape) == shape and str(a.dtype).split(".")[-1] == dtype
    values = a.numpy()
    assert ((values >= low) & (values < high)).all() and np.array_equal(values, np.floor(values))
    assert np.array_equal(call(lib, lib.Generator().manual_seed(0)).numpy(), values)  # the generator is used


RANDINT_BAD = [lambda lib: lib.randint(5), lambda lib: lib.randint(5, 2), lambda lib: lib.randint(1, 5, 2),
               lambda lib: lib.randint(1, 5, size=2), lambda lib: lib.randint(5.0, size=(2,)),
               lambda lib: lib.randint(1.0, 5, (2,)), lambda lib: lib.randint(5, (2.0,)),
               lambda lib: lib.randint(True, (2,)), lambda lib: lib.randint(0, size=(2,)),
               lambda lib: lib.randint(5, size=(2,), requires_grad=True)]


@pytest.mark.parametrize("i", range(len(RANDINT_BAD)))
def test_randint_refusals(i):
    got = _raises(lambda: RANDINT_BAD[i](npgrad))
    assert got is not None and got[0] in (TypeError, RuntimeError)
    if HAS_TORCH:
        assert got == _raises(lambda: RANDINT_BAD[i](torch))


# -- split ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("libname", LIBS)
def test_split_keyword_names(libname):
    lib = _lib(libname)
    t = lib.arange(10.0)
    shapes = lambda parts: [tuple(p.shape) for p in parts]  # noqa: E731
    assert shapes(t.split(split_size=3)) == [(3,), (3,), (3,), (1,)]
    assert shapes(t.split(split_size=[3, 7], dim=0)) == [(3,), (7,)]
    assert shapes(lib.split(t, split_size_or_sections=4)) == [(4,), (4,), (2,)]
    assert shapes(lib.split(tensor=t, split_size_or_sections=[5, 5])) == [(5,), (5,)]
    assert lib.split(t, 5)[1].tolist() == [5.0, 6.0, 7.0, 8.0, 9.0]
    with pytest.raises(TypeError, match="split_size_or_sections"):
        t.split(split_size_or_sections=3)  # the method's keyword is split_size
    with pytest.raises(TypeError, match="split_size"):
        lib.split(t, split_size=3)


# -- the deprecated argument orders --------------------------------------------------------------------------------
def _t(lib):
    return lib.tensor([1.0, 2.0])


A, B = [3.0, 4.0], [5.0, 6.0]
# (id, deprecated call, the same in the current order)
DEPRECATED = [
    ("addcdiv_", lambda lib, a, b: _t(lib).addcdiv_(2, a, b), lambda lib, a, b: _t(lib).addcdiv_(a, b, value=2)),
    ("addcmul_", lambda lib, a, b: _t(lib).addcmul_(0.5, a, b), lambda lib, a, b: _t(lib).addcmul_(a, b, value=0.5)),
    ("addcdiv", lambda lib, a, b: _t(lib).addcdiv(2, a, b), lambda lib, a, b: _t(lib).addcdiv(a, b, value=2)),
    ("torch.addcmul", lambda lib, a, b: lib.addcmul(_t(lib), 2, a, b), lambda lib, a, b: lib.addcmul(_t(lib), a, b, value=2)),
    ("torch.addcdiv out", lambda lib, a, b: lib.addcdiv(_t(lib), 2, a, b, out=lib.empty(2)),
     lambda lib, a, b: lib.addcdiv(_t(lib), a, b, value=2)),
    ("add_", lambda lib, a, b: _t(lib).add_(2, a), lambda lib, a, b: _t(lib).add_(a, alpha=2)),
    ("add_ scalar", lambda lib, a, b: _t(lib).add_(2, 3), lambda lib, a, b: _t(lib).add_(3, alpha=2)),
    ("add", lambda lib, a, b: _t(lib).add(2, a), lambda lib, a, b: _t(lib).add(a, alpha=2)),
    ("torch.add", lambda lib, a, b: lib.add(_t(lib), 2, a), lambda lib, a, b: lib.add(_t(lib), a, alpha=2)),
    ("sub_", lambda lib, a, b: _t(lib).sub_(2, a), lambda lib, a, b: _t(lib).sub_(a, alpha=2)),
    ("torch.sub out", lambda lib, a, b: lib.sub(_t(lib), 2, a, out=lib.empty(2)), lambda lib, a, b: lib.sub(_t(lib), a, alpha=2)),
]


@pytest.mark.parametrize("case", DEPRECATED, ids=[c[0] for c in DEPRECATED])
@pytest.mark.parametrize("libname", LIBS)
def test_deprecated_orders_compute_the_current_ones(libname, case):
    lib = _lib(libname)
    a, b = lib.tensor(A), lib.tensor(B)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = case[1](lib, a, b)
    np.testing.assert_allclose(got.numpy(), case[2](lib, a, b).numpy(), rtol=1e-6)


def test_deprecated_order_gradients():
    x = npgrad.tensor([1.0, 2.0], requires_grad=True)
    t1 = npgrad.tensor(A, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        npgrad.addcdiv(x, 2, t1, npgrad.tensor(B)).sum().backward()
    np.testing.assert_allclose(t1.grad.numpy(), 2 / np.array(B), rtol=1e-6)
    assert x.grad.tolist() == [1.0, 1.0]


DEPRECATED_BAD = [lambda lib: _t(lib).add_(lib.tensor(A), 2), lambda lib: _t(lib).add(lib.tensor(A), 2),
                  lambda lib: lib.add(_t(lib), lib.tensor(A), 2), lambda lib: _t(lib).mul_(2, lib.tensor(A)),
                  lambda lib: _t(lib).addcdiv_(lib.tensor(A), lib.tensor(A), lib.tensor(A)),
                  lambda lib: _t(lib).addcdiv_(2, lib.tensor(A), 3),
                  lambda lib: _t(lib).add_(2, lib.tensor(A), alpha=3),
                  lambda lib: _t(lib).add_(True, lib.tensor(A)),
                  lambda lib: lib.tensor([1, 2]).add_(2.5, lib.tensor([1, 1]))]


@pytest.mark.parametrize("i", range(len(DEPRECATED_BAD)))
def test_deprecated_order_refusals(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = _raises(lambda: DEPRECATED_BAD[i](npgrad))
        assert got is not None and got[0] in (TypeError, RuntimeError)
        if HAS_TORCH:
            assert got == _raises(lambda: DEPRECATED_BAD[i](torch))


# One warning per process for all deprecated orders (PyTorch's TORCH_WARN_ONCE): checked in a fresh interpreter.
_WARN_SCRIPT = """
import sys, warnings
lib = __import__(sys.argv[1])
t, a, b = lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), lib.tensor([5.0, 6.0])
m, bm = lib.ones(2, 2), lib.ones(1, 2, 2)
calls = {"i": lambda: t.clone().addcdiv_(2, a, b), "m": lambda: t.addcmul(2, a, b), "f": lambda: lib.add(t, 2, a),
         "s": lambda: t.clone().sub_(2, a), "W": lambda: lib.set_warn_always(True),
         "a": lambda: m.addmm(2, 3, m, m), "b": lambda: lib.baddbmm(2, bm, 3, bm, bm), "r": lambda: m.clone().addr_(2, a, b),
         "v": lambda: lib.addmv(2, a, m, a)}
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for c in sys.argv[2]:
        calls[c]()
print(repr([str(x.message).split(" (Triggered internally")[0] for x in w]))
"""


def _warnings(libname, sequence):
    out = subprocess.run([sys.executable, "-c", _WARN_SCRIPT, libname, sequence], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return eval(out)  # noqa: S307 - our own script's repr of a list of strings


@pytest.mark.parametrize("sequence", ["imf", "fsW", "mWii", "s", "aWbrv"])
def test_deprecation_warning_once_per_process(sequence):
    got = _warnings("npgrad", sequence)
    name = {"i": "addcdiv_", "m": "addcmul", "f": "add", "s": "sub_", "a": "addmm"}[sequence[0]]
    assert got and got[0].startswith(f"This overload of {name} is deprecated:\n\t")
    assert "\nConsider using one of the following signatures instead:\n\t" in got[0]
    assert len(got) == 1 + (len(sequence.split("W")[1]) if "W" in sequence else 0)  # each one after set_warn_always
    if HAS_TORCH:
        assert got == _warnings("torch", sequence)


# The beta-first orders of the products with a bias: (operand shapes, the forms), each against the current order.
PRODUCTS = {"addmm": ((2, 2), (2, 3), (3, 2)), "addbmm": ((2, 2), (2, 2, 3), (2, 3, 2)),
            "baddbmm": ((2, 2, 2), (2, 2, 3), (2, 3, 2)), "addmv": ((2,), (2, 3), (3,)), "addr": ((2, 3), (2,), (3,))}
FORMS = {
    "function beta, input, alpha": (lambda lib, n, i, x, y: getattr(lib, n)(2, i, 3, x, y), 2, 3),
    "function beta, input": (lambda lib, n, i, x, y: getattr(lib, n)(2, i, x, y), 2, 1),
    "method beta, alpha": (lambda lib, n, i, x, y: getattr(i, n)(2, 3, x, y), 2, 3),
    "method beta": (lambda lib, n, i, x, y: getattr(i, n)(0.5, x, y), 0.5, 1),
    "in place beta, alpha": (lambda lib, n, i, x, y: getattr(i.clone(), n + "_")(2, -1, x, y), 2, -1),
    "in place beta": (lambda lib, n, i, x, y: getattr(i.clone(), n + "_")(3, x, y), 3, 1),
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_beta_first_orders(name, form):
    call, beta, alpha = FORMS[form]
    rng = np.random.default_rng(0)
    i, x, y = [npgrad.tensor(rng.standard_normal(s)) for s in PRODUCTS[name]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = call(npgrad, name, i, x, y)
    want = getattr(npgrad, name)(i, x, y, beta=beta, alpha=alpha)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    if HAS_TORCH:
        ti, tx, ty = [torch.tensor(t.numpy()) for t in (i, x, y)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            np.testing.assert_allclose(got.numpy(), call(torch, name, ti, tx, ty).numpy(), rtol=1e-12)
