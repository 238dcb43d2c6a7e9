"""The vector and matrix transforms (and the combinators over them): forward, inverse, log|det J| and
shapes against torch.distributions.transforms; round trips and log|det J| against a finite-difference
Jacobian, so the transforms are checked without torch too."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

T = npgrad.distributions.transforms
rng = np.random.default_rng(0)
VEC = rng.normal(size=(2, 3))
MAT = rng.normal(size=(2, 3, 3)) * 0.5

# name -> (builder taking the transforms module, input, whether inv(f(x)) returns x)
CASES = {
    "StickBreaking": (lambda t: t.StickBreakingTransform(), VEC, True),
    "Softmax": (lambda t: t.SoftmaxTransform(), VEC, False),
    "LowerCholesky": (lambda t: t.LowerCholeskyTransform(), np.tril(MAT), True),
    "PositiveDefinite": (lambda t: t.PositiveDefiniteTransform(), np.tril(MAT), True),
    "CorrCholesky": (lambda t: t.CorrCholeskyTransform(), VEC, True),
    "Reshape": (lambda t: t.ReshapeTransform((3,), (3, 1)), VEC, True),
    "Cat": (lambda t: t.CatTransform([t.ExpTransform(), t.AffineTransform(1.0, -2.0)], dim=-1, lengths=[1, 2]),
            VEC, True),
    "Stack": (lambda t: t.StackTransform([t.SigmoidTransform(), t.TanhTransform(), t.ExpTransform()], dim=-1),
              VEC, True),
    "ComposeEventDims": (lambda t: t.ComposeTransform([t.ExpTransform(), t.StickBreakingTransform()]), VEC, True),
    "Independent": (lambda t: t.IndependentTransform(t.SoftplusTransform(), 1), VEC, True),
    "InverseStickBreaking": (lambda t: t.StickBreakingTransform().inv,
                             np.array([[0.2, 0.3, 0.4, 0.1], [0.25, 0.25, 0.25, 0.25]]), True),
}
HAS_LADJ = {"StickBreaking", "CorrCholesky", "Reshape", "Cat", "Stack", "ComposeEventDims", "Independent",
            "InverseStickBreaking"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip_and_shapes(name):
    build, x, invertible = CASES[name]
    t = build(T)
    xt = npgrad.tensor(x)
    y = t(xt)
    assert tuple(y.shape) == tuple(t.forward_shape(xt.shape))
    assert tuple(t.inverse_shape(y.shape)) == tuple(xt.shape)
    assert bool(t.codomain.check(y).all())
    if invertible:
        np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-9, atol=1e-9)
    cached = t.with_cache(1)
    assert cached.inv(cached(xt)) is xt


@pytest.mark.parametrize("name", ["StickBreaking", "CorrCholesky", "Cat", "Stack", "Independent"])
def test_log_abs_det_jacobian_against_finite_differences(name):
    # the map restricted to independent coordinates: drop the simplex's last one, keep the strict lower triangle
    build, x, _ = CASES[name]
    t = build(T)
    x0 = x[0]

    def f(v):
        y = t(npgrad.tensor(v)).numpy()
        if name == "StickBreaking":
            return y[:-1]
        if name == "CorrCholesky":
            return y[np.tril_indices(3, -1)]
        return y

    h = 1e-6
    jac = np.stack([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(x0.size)], -1)
    ladj = t.log_abs_det_jacobian(npgrad.tensor(x0), t(npgrad.tensor(x0))).numpy()
    expected = np.log(np.abs(np.linalg.det(jac)))
    if name in ("Cat", "Stack"):  # elementwise pieces: a log-det per entry
        np.testing.assert_allclose(ladj, np.log(np.abs(np.diag(jac))), rtol=1e-6)
    else:
        np.testing.assert_allclose(ladj, expected, rtol=1e-6)


@pytest.mark.skipif(not HAS_TORCH, reason="torch is the oracle here")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    build, x, _ = CASES[name]
    ours, theirs = build(T), build(torch.distributions.transforms)
    xn, xt = npgrad.tensor(x), torch.tensor(x)
    yn, yt = ours(xn), theirs(xt)
    np.testing.assert_allclose(yn.numpy(), yt.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.inv(yn).numpy(), theirs.inv(yt).numpy(), rtol=1e-8, atol=1e-10)
    if name in HAS_LADJ:
        np.testing.assert_allclose(ours.log_abs_det_jacobian(xn, yn).numpy(),
                                   theirs.log_abs_det_jacobian(xt, yt).numpy(), rtol=1e-9, atol=1e-10)
    else:
        with pytest.raises(NotImplementedError):
            ours.log_abs_det_jacobian(xn, yn)
    assert ours.bijective == theirs.bijective
    assert repr(ours.domain) == repr(theirs.domain) and repr(ours.codomain) == repr(theirs.codomain)
    assert (ours.domain.event_dim, ours.codomain.event_dim) == (theirs.domain.event_dim, theirs.codomain.event_dim)
    assert ours == build(T) if type(ours).__eq__ is not T.Transform.__eq__ else ours != build(T)


@pytest.mark.skipif(not HAS_TORCH, reason="torch is the oracle here")
def test_signs_and_equality_match_torch():
    for lib, out in ((T, []), (torch.distributions.transforms, [])):
        a = lib.AffineTransform(0.0, -2.0)
        out += [lib.ComposeTransform([lib.ExpTransform(), a]).sign, a.sign, lib.TanhTransform().inv.sign,
                lib.AffineTransform(1.0, 2.0) == lib.AffineTransform(1.0, 2.0),
                lib.AffineTransform(1.0, 2.0) == lib.AffineTransform(1.0, 3.0),
                lib.ExpTransform().inv == lib.ExpTransform().inv, lib.ExpTransform() == lib.SigmoidTransform()]
        if lib is T:
            ours = out
        else:
            assert ours == out
