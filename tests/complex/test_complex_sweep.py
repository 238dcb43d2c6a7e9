"""Every public operator of the registry on small complex tensors, against PyTorch: where PyTorch computes a
result npgrad must compute the same one (value, dtype, shape), and where PyTorch refuses npgrad must refuse with the
same exception class. A silent wrong answer on complex input (the imaginary part dropped by a cast to float, a
transpose where a conjugate transpose belongs) is the failure this catches."""
import importlib
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.ops import _registry
from npgrad.ops._lazy_index import LAZY_NAMES
from oracle import HAS_TORCH, torch

for _mod in sorted(set(LAZY_NAMES.values())):
    importlib.import_module("npgrad.ops." + _mod)

_RNG = np.random.default_rng(0)


def _draw(shape):
    return (_RNG.uniform(0.3, 1.5, shape) * np.exp(1j * _RNG.uniform(-2.5, 2.5, shape))).astype(np.complex64)


_Z, _W, _M = _draw((2, 3)), _draw((2, 3)), _draw((3, 3))
# Positional tensor arguments only: Python-number arguments mostly test argument parsing, not complex arithmetic.
ARGS = {"z": (_Z,), "z,w": (_Z, _W), "m": (_M,), "m,m": (_M, _M), "z,w,z": (_Z, _W, _Z)}
# A Cholesky factor has a real diagonal; LAPACK's inverse from a factor (potri) reads a complex one in its own way,
# so cholesky_inverse is compared on a true factor.
_FACTOR = np.linalg.cholesky(_M @ _M.conj().T + np.eye(3)).astype(np.complex64)
ARGS_FOR = {"cholesky_inverse": {"factor": (_FACTOR,), "z": (_Z,)}}
# Results that are random draws, or depend on one: nothing to compare value for value.
RANDOM = {"bernoulli", "multinomial", "normal", "poisson", "rand_like", "randn_like", "randint_like", "svd_lowrank",
          "pca_lowrank", "lobpcg", "binomial", "dropout", "alpha_dropout", "feature_alpha_dropout", "rrelu"}
# Complex decompositions npgrad does not have yet: they must refuse loudly (NotImplementedError), never compute a
# real answer from a complex input.
NOT_YET = {"geqrf", "lu", "triangular_solve"}
# Both libraries refuse these argument combinations, with another exception class (shape checks, not complex ones).
# (einsum: PyTorch reads a tensor in the equation's place as a sublist operand; npgrad asks for the string.)
OTHER_CLASS = {"addbmm": ("z,w,z",), "baddbmm": ("z,w,z",), "einsum": tuple(ARGS)}
NAMES = sorted(n for n in set(_registry.OPS) | set(LAZY_NAMES)
               if not n.startswith("_") and n not in RANDOM and hasattr(torch if HAS_TORCH else npgrad, n))


def _call(lib, name, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return True, getattr(lib, name)(*[lib.tensor(a) for a in arrays])
        except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
            return False, e


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [x for p in r for x in _flat(p)]
    return [r]


def _same(got, want, where):
    g, w = _flat(got), _flat(want)
    assert len(g) == len(w), where
    for a, b in zip(g, w):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, npgrad.Tensor), where
            an, bn = (x.detach().resolve_conj().resolve_neg().numpy() for x in (a, b))
            assert an.dtype == bn.dtype and an.shape == bn.shape, (where, an.dtype, bn.dtype, an.shape, bn.shape)
            if an.dtype.kind in "fc":
                np.testing.assert_allclose(an, bn, rtol=1e-4, atol=1e-5, equal_nan=True, err_msg=where)
            else:
                np.testing.assert_array_equal(an, bn, err_msg=where)
        else:
            assert a == b or (a != a and b != b), (where, a, b)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle for what each operator does with complex input")
@pytest.mark.parametrize("name", NAMES)
def test_complex_input_like_torch(name):
    for label, arrays in ARGS_FOR.get(name, ARGS).items():
        t_ok, t = _call(torch, name, arrays)
        if not t_ok and isinstance(t, TypeError):
            continue  # PyTorch's argument parser refused the signature: not about complex numbers
        n_ok, n = _call(npgrad, name, arrays)
        where = f"{name}({label})"
        if t_ok and name in NOT_YET:
            assert not n_ok and isinstance(n, NotImplementedError), (where, n)
        elif t_ok:
            assert n_ok, f"{where}: PyTorch computes it, npgrad raised {type(n).__name__}: {n}"
            _same(n, t, where)
        else:
            assert not n_ok, f"{where}: PyTorch raises {type(t).__name__}: {t}; npgrad returned a value"
            if label in OTHER_CLASS.get(name, ()):
                continue
            assert type(n).__name__ == type(t).__name__ or isinstance(n, type(t)), (where, repr(t), repr(n))
