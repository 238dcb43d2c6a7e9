"""Special functions (erfinv, lgamma, digamma, polygamma, mvlgamma, logit, sinc, xlog1py, entr, ndtr, the
npgrad.special namespace) against PyTorch, float64 finite differences and reference values; special values
(poles, infinities, NaN) and in-place/Tensor-method forms."""
import math

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, check_against_torch, torch
from opinfo import (DOUBLE_BACKWARD, FD, FLOAT32_RESULT_SWEEP, PARITY, RAISES_LIKE_TORCH, grad_samples, samples,
                    special_values, swept)
from family_special import POS, TRIGAMMA_TOL
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test

if HAS_TORCH:
    from _second_order import check_double_backward


# The rows of the special family's operators live in the op table (tests/opinfo/family_special.py); the
# namespace rows below call operators of other families through npgrad.special (its aliases and wrappers;
# special.softmax/log_softmax: tests/opinfo/family_softmax.py).
NAMESPACE = [
    OpCase("expit", lambda L, x: L.special.expit(x), [In((3, 4))]),
    OpCase("exp2_expm1_log1p", lambda L, x: L.special.exp2(x) + L.special.expm1(x) + L.special.log1p(x.abs()),
           [In((3, 4))]),
    OpCase("special_logsumexp", lambda L, x: L.special.logsumexp(x, 1), [In((3, 4))]),
    OpCase("special_xlogy", lambda L, x, y: L.special.xlogy(x, y), [In((3, 4)), In((3, 4), 0.1, 3.0)]),
    OpCase("special_round", lambda L, x: L.special.round(x), [In((3, 4))], fd=False),
]
CASES = samples(PARITY, "special") + NAMESPACE


# Rows whose forward value is PyTorch's trigamma (accurate to ~5e-10 only).
_TRIGAMMA_FORWARD = {"polygamma1"}

if HAS_TORCH:
    @pytest.mark.parametrize("case", CASES, ids=str)
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test_matches_torch(case, dtype):
        if dtype == np.float32 and case.grad_tol is not None:  # the float64 allowance is tighter than float32's
            case = OpCase(case.name, case.fn, case.inputs)
        tol = TRIGAMMA_TOL if dtype == np.float64 and case.name in _TRIGAMMA_FORWARD else None
        check_against_torch(case, dtype, tol=tol)

    test_double_backward_matches_torch = double_backward_test(samples(DOUBLE_BACKWARD, "special"))

    @pytest.mark.parametrize("name", ["digamma", "polygamma1"])
    def test_double_backward_through_trigamma(name):
        # The second derivative of digamma is polygamma(2); PyTorch's is accurate, the first one (trigamma)
        # only to ~5e-10, hence the tolerance.
        fn = (lambda L, x: L.digamma(x)) if name == "digamma" else (lambda L, x: L.polygamma(1, x))
        check_double_backward(OpCase(name, fn, [POS], grad_tol=TRIGAMMA_TOL))


test_finite_differences = finite_difference_test(grad_samples(samples(FD, "special")) +
                                                 [c for c in NAMESPACE if c.fd])


# -- accuracy against reference values (no torch needed) --------------------------------------------------------------

def test_lgamma_matches_math_lgamma():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-30, 60, 400), rng.uniform(1e-6, 1e-2, 20), 10 ** rng.uniform(-3, 8, 50)])
    x = x[np.abs(x - np.round(x)) > 1e-3]
    ref = np.array([math.lgamma(v) for v in x])
    got = npgrad.lgamma(npgrad.tensor(x)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-13)


def test_digamma_is_the_derivative_of_lgamma_and_known_values():
    euler = 0.57721566490153286061
    got = npgrad.digamma(npgrad.tensor([1.0, 0.5, 2.0, 10.0], dtype=npgrad.float64)).numpy()
    np.testing.assert_allclose(got, [-euler, -euler - 2 * math.log(2), 1 - euler,
                                     sum(1 / k for k in range(1, 10)) - euler], rtol=1e-14)
    x = np.array([0.3, 1.7, -2.5, 7.2])
    h = 1e-6
    fd = np.array([(math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h) for v in x])
    np.testing.assert_allclose(npgrad.digamma(npgrad.tensor(x)).numpy(), fd, rtol=1e-8)


def test_polygamma_known_values():
    # trigamma(1) = pi^2 / 6, polygamma(2, 1) = -2 zeta(3), trigamma(1/2) = pi^2 / 2
    np.testing.assert_allclose(npgrad.polygamma(1, npgrad.tensor([1.0, 0.5], dtype=npgrad.float64)).numpy(),
                               [math.pi ** 2 / 6, math.pi ** 2 / 2], rtol=1e-14)
    np.testing.assert_allclose(npgrad.polygamma(2, npgrad.tensor([1.0], dtype=npgrad.float64)).numpy(),
                               [-2 * 1.2020569031595942854], rtol=1e-14)


def test_ndtr_lower_tail_is_accurate():
    # Phi(-10) and Phi(-5): 1 + erf(x / sqrt 2) would cancel to 0 / lose digits; erfc keeps them.
    got = npgrad.special.ndtr(npgrad.tensor([-10.0, -5.0], dtype=npgrad.float64)).numpy()
    ref = [0.5 * math.erfc(10 / math.sqrt(2)), 0.5 * math.erfc(5 / math.sqrt(2))]
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    np.testing.assert_allclose(npgrad.special.ndtr(npgrad.tensor([-5.0])).numpy(), [ref[1]], rtol=1e-6)


def test_erfinv_inverts_erf():
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 201), 1 - 10.0 ** -np.arange(3, 16)])
    x = npgrad.erfinv(npgrad.tensor(y)).numpy()
    back = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(back, y, rtol=2e-16, atol=2e-16)
    assert npgrad.erfinv(npgrad.tensor(0.5)).dtype == npgrad.float32


def test_gradients_by_hand():
    x = npgrad.tensor([0.3, 2.0], dtype=npgrad.float64, requires_grad=True)
    npgrad.lgamma(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), npgrad.digamma(x.detach()).numpy(), rtol=1e-15)
    p = npgrad.tensor([0.25], dtype=npgrad.float64, requires_grad=True)
    npgrad.logit(p).backward()
    np.testing.assert_allclose(p.grad.numpy(), [1 / (0.25 * 0.75)])
    z = npgrad.tensor([0.0, 0.5], dtype=npgrad.float64, requires_grad=True)
    npgrad.sinc(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [0.0, (0.5 * math.pi * math.cos(0.5 * math.pi) - 1) /
                                                (math.pi * 0.25)], atol=1e-15)


# -- special values, dtypes, in-place forms ----------------------------------------------------------------------------

if HAS_TORCH:
    SPECIAL = {name: (fn, values) for name, fn, values in special_values("special")}

    @pytest.mark.parametrize("name", sorted(SPECIAL))
    @pytest.mark.parametrize("dtype", ["float32", "float64"])
    def test_special_values_match_torch(name, dtype):
        fn, values = SPECIAL[name]
        got = []
        for L in (npgrad, torch):
            x = L.tensor(values, dtype=getattr(L, dtype), requires_grad=True)
            out = fn(L, x)
            out.sum().backward()
            got.append((out.detach().numpy(), x.grad.numpy()))
        (on, gn), (ot, gt) = got
        rtol = 1e-5 if dtype == "float32" else 1e-8
        np.testing.assert_allclose(on, ot, rtol=rtol, atol=1e-30, equal_nan=True)
        np.testing.assert_allclose(gn, gt, rtol=rtol, atol=1e-30, equal_nan=True)

    @pytest.mark.parametrize("name", swept(FLOAT32_RESULT_SWEEP))
    def test_integer_inputs_give_float32(name):
        for L in (npgrad, torch):
            assert str(getattr(L, name)(L.tensor([0, 1])).dtype).endswith("float32")

    @pytest.mark.parametrize("name,args", [("lgamma_", ()), ("digamma_", ()), ("erfinv_", ()), ("logit_", ()),
                                           ("sinc_", ()), ("erf_", ()), ("erfc_", ()), ("polygamma_", (1,)),
                                           ("mvlgamma_", (2,))])
    def test_inplace_forms_match_torch(name, args):
        vals = np.array([0.7, 0.3, 0.9])
        res = []
        for L in (npgrad, torch):
            leaf = L.tensor(vals, requires_grad=True)
            y = leaf * 1.0
            r = getattr(y, name)(*args)
            assert r is y
            y.sum().backward()
            res.append((y.detach().numpy(), leaf.grad.numpy(), y.grad_fn is not None))
        np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
        np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5)

    ERRORS = {c.name: c.fn for c in samples(RAISES_LIKE_TORCH, "special")}

    test_errors_match_torch = errors_like_torch_test(ERRORS)

    def test_node_names_match_torch():
        for fn in (lambda L, x: L.lgamma(x), lambda L, x: L.digamma(x), lambda L, x: L.polygamma(2, x),
                   lambda L, x: L.erfinv(x * 0.5), lambda L, x: L.logit(x * 0.5), lambda L, x: L.sinc(x),
                   lambda L, x: L.special.xlog1py(x, x), lambda L, x: L.special.entr(x)):
            names = [fn(L, L.tensor([0.3, 0.6], requires_grad=True)).grad_fn.name() for L in (npgrad, torch)]
            assert names[0] == names[1]


def test_namespace_contents():
    for name in ["digamma", "psi", "gammaln", "polygamma", "multigammaln", "erf", "erfc", "erfinv", "logit", "expit",
                 "exp2", "expm1", "log1p", "round", "logsumexp", "xlogy", "xlog1py", "sinc", "entr", "ndtr",
                 "log_ndtr", "softmax", "log_softmax"]:
        assert callable(getattr(npgrad.special, name)), name
    x = npgrad.tensor([0.2, 0.8])
    for method in ("erf", "erfc", "erfinv", "lgamma", "digamma", "logit", "sinc"):
        assert getattr(x, method)().shape == (2,)
    assert x.polygamma(1).shape == (2,) and (x + 1).mvlgamma(2).shape == (2,)
