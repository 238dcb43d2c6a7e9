"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal).

Parity: a torch module and an npgrad module start from the same weights, get the same parametrization,
then npgrad loads torch's state dict (the random u/v or base buffers included), and forward values and
gradients must agree. Oracles without torch: the mathematical property each parametrization promises.
"""
import copy
import pickle

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from npgrad.nn.utils import parametrizations as P
from npgrad.nn.utils import parametrize
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def _np(t):
    return t.detach().numpy()


def _to_npgrad(sd):
    return {k: npgrad.tensor(v.detach().numpy().copy()) for k, v in sd.items()}


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class Split(nn.Module):
    """Two originals: the weight is their sum; right_inverse splits it in halves."""

    def forward(self, a, b):
        return a + b

    def right_inverse(self, w):
        return w * 0.5, w * 0.5


class Double(nn.Module):
    def forward(self, X):
        return X * 2

    def right_inverse(self, X):
        return X / 2


def test_register_moves_weight_to_original_and_reads_parametrized():
    m = nn.Linear(3, 3)
    w0 = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert isinstance(m.parametrizations, nn.ModuleDict)
    assert "weight" not in m._parameters
    orig = m.parametrizations.weight.original
    assert isinstance(orig, nn.Parameter)
    np.testing.assert_allclose(_np(orig), np.triu(_np(w0)))  # right_inverse applied at registration
    w = _np(m.weight)
    np.testing.assert_allclose(w, w.T)
    assert sorted(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    # another Linear keeps its plain class
    assert type(nn.Linear(2, 2)) is nn.Linear and not hasattr(nn.Linear, "weight")


def test_gradient_flows_to_original():
    m = nn.Linear(3, 2, bias=False)
    parametrize.register_parametrization(m, "weight", Double())
    x = npgrad.randn(4, 3)
    m(x).sum().backward()
    expected = 2 * np.broadcast_to(_np(x).sum(0), (2, 3))
    np.testing.assert_allclose(_np(m.parametrizations.weight.original.grad), expected, rtol=1e-6)


def test_assignment_goes_through_right_inverse_and_keeps_the_object():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Double())
    orig = m.parametrizations.weight.original
    m.weight = npgrad.ones(3, 3) * 4
    assert m.parametrizations.weight.original is orig
    np.testing.assert_allclose(_np(orig), 2 * np.ones((3, 3)))
    np.testing.assert_allclose(_np(m.weight), 4 * np.ones((3, 3)))


def test_chained_parametrizations_apply_in_order():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    parametrize.register_parametrization(m, "weight", Double())
    assert len(m.parametrizations.weight) == 2
    o = _np(m.parametrizations.weight.original)
    np.testing.assert_allclose(_np(m.weight), 2 * (np.triu(o) + np.triu(o, 1).T), rtol=1e-6)


def test_several_originals():
    m = nn.Linear(2, 2)
    w0 = _np(m.weight).copy()
    parametrize.register_parametrization(m, "weight", Split())
    pl = m.parametrizations.weight
    assert not hasattr(pl, "original")
    assert sorted(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-6)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_restores_class_and_parameter(leave):
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Double())
    orig = m.parametrizations.weight.original
    o = _np(orig).copy()
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is orig  # the same Parameter object (an optimizer holding it still works)
    np.testing.assert_allclose(_np(m.weight), 2 * o if leave else o)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")


def test_unsafe_and_checks():
    class Shrink(nn.Module):
        def forward(self, X):
            return X[:1]

    m = nn.Linear(3, 3)
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(m, "weight", Shrink())
    assert type(m) is nn.Linear
    parametrize.register_parametrization(m, "weight", Shrink(), unsafe=True)
    assert m.weight.shape == (1, 3) and m.parametrizations.weight.unsafe
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(nn.Linear(2, 2), "nope", Double())


def test_buffers_can_be_parametrized():
    m = nn.BatchNorm1d(3)
    parametrize.register_parametrization(m, "running_var", Double())
    assert "parametrizations.running_var.original" in m.state_dict()
    assert "running_var" not in m._buffers
    np.testing.assert_allclose(_np(m.running_var), np.ones(3))


def test_cached_computes_once():
    calls = []

    class Count(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Count())
    calls.clear()
    with parametrize.cached():
        a, b = m.weight, m.weight
        with parametrize.cached():
            c = m.weight
    assert len(calls) == 1 and a is b is c
    m.weight
    assert len(calls) == 2


def test_pickle_refused_deepcopy_works():
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Double())
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)
    c = copy.deepcopy(m)
    np.testing.assert_allclose(_np(c.weight), _np(m.weight))
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original


def test_transfer_parametrizations_and_params():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    parametrize.register_parametrization(a, "weight", Symmetric())
    parametrize.transfer_parametrizations_and_params(a, b)
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_allclose(_np(b.weight), _np(a.weight))


# -- the three parametrizations: properties (no torch needed) ------------------------------------------------
def test_weight_norm_property_and_keys():
    m = nn.Conv2d(2, 4, 3)
    w0 = _np(m.weight).copy()
    P.weight_norm(m)
    g, v = m.parametrizations.weight.original0, m.parametrizations.weight.original1
    assert g.shape == (4, 1, 1, 1) and v.shape == (4, 2, 3, 3)
    np.testing.assert_allclose(_np(g).ravel(), np.sqrt((w0 ** 2).reshape(4, -1).sum(1)), rtol=1e-6)
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-5, atol=1e-7)
    with npgrad.no_grad():
        g.mul_(3)
    np.testing.assert_allclose(_np(m.weight), 3 * w0, rtol=1e-5, atol=1e-7)
    whole = nn.Linear(3, 2)
    P.weight_norm(whole, dim=None)
    assert whole.parametrizations.weight.original0.shape == ()


def test_weight_norm_loads_hook_keys():
    old = nn.Linear(3, 2)
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(old)
    new = P.weight_norm(nn.Linear(3, 2))
    new.load_state_dict(old.state_dict())
    np.testing.assert_allclose(_np(new.weight), _np(old.weight_v) * _np(old.weight_g)
                               / np.linalg.norm(_np(old.weight_v), axis=1, keepdims=True), rtol=1e-6)


def test_spectral_norm_property():
    npgrad.manual_seed(0)
    m = P.spectral_norm(nn.Linear(6, 5))
    original = _np(m.parametrizations.weight.original).astype(np.float64)
    assert np.linalg.svd(original, compute_uv=False)[0] != pytest.approx(1, abs=1e-2)  # a real rescaling
    m.weight  # one more power-iteration step (training mode)
    sigma = np.linalg.svd(_np(m.weight).astype(np.float64), compute_uv=False)[0]
    assert abs(sigma - 1) < 1e-3
    u = _np(m.parametrizations.weight[0]._u).copy()
    m.eval()
    m.weight
    np.testing.assert_array_equal(_np(m.parametrizations.weight[0]._u), u)  # eval: no update
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        P.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    assert P.spectral_norm(nn.ConvTranspose2d(2, 3, 2)).parametrizations.weight[0].dim == 1


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("omap", [None, "cayley", "householder"])
def test_orthogonal_property(shape, omap):
    if omap == "householder" and shape[0] == shape[1]:
        omap = None
    m = nn.Linear(shape[1], shape[0]).double()
    w0 = _np(m.weight).copy()
    P.orthogonal(m, orthogonal_map=omap)
    w = _np(m.weight)
    small = w if shape[0] >= shape[1] else w.T
    np.testing.assert_allclose(small.T @ small, np.eye(min(shape)), atol=1e-10)
    # the initial value is the Q of w0's QR with a positive R diagonal
    q, r = np.linalg.qr(w0 if shape[0] >= shape[1] else w0.T)
    q = q * np.sign(np.diag(r))
    np.testing.assert_allclose(small, q, atol=1e-10)
    # an optimizer step keeps it orthogonal
    opt = npgrad.optim.SGD(m.parameters(), lr=0.1)
    m(npgrad.randn(7, shape[1], dtype=npgrad.float64)).pow(2).sum().backward()
    opt.step()
    w = _np(m.weight)
    small = w if shape[0] >= shape[1] else w.T
    np.testing.assert_allclose(small.T @ small, np.eye(min(shape)), atol=1e-10)
    assert "parametrizations.weight.0.base" in m.state_dict()


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        P.orthogonal(nn.Linear(2, 2), name="bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of'):
        P.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    m = P.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential"):
        m.weight = npgrad.eye(3)


# -- parity with PyTorch --------------------------------------------------------------------------------------
def _pair(make, apply_t, apply_n, x_shape, train=True, dtype="float32", steps=2, **kw):
    torch.manual_seed(0)
    mt = make(torch).to(getattr(torch, dtype))
    mn = make(npgrad).to(getattr(npgrad, dtype))
    mn.load_state_dict(_to_npgrad(mt.state_dict()))
    apply_t(mt, **kw)
    apply_n(mn, **kw)
    assert sorted(mt.state_dict()) == sorted(mn.state_dict())
    mn.load_state_dict(_to_npgrad(mt.state_dict()))
    mt.train(train)
    mn.train(train)
    rng = np.random.default_rng(1)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-11)
    for _ in range(steps):
        x = rng.standard_normal(x_shape)
        yt = mt(torch.tensor(x, dtype=getattr(torch, dtype)))
        yn = mn(npgrad.tensor(x, dtype=getattr(npgrad, dtype)))
        assert str(yn.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(yn), yt.detach().numpy(), **tol)
        (yt ** 2).sum().backward()
        (yn ** 2).sum().backward()
        for (kt, pt), (kn, pn) in zip(mt.named_parameters(), mn.named_parameters()):
            assert kt == kn
            scale = max(1.0, float(np.abs(pt.grad.numpy()).max()))
            np.testing.assert_allclose(pn.grad.numpy() / scale, pt.grad.numpy() / scale, **tol)
        for k, v in mt.state_dict().items():  # power-iteration buffers advance identically
            np.testing.assert_allclose(mn.state_dict()[k].numpy(), v.numpy(), **tol)


@needs_torch
@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_weight_norm_matches_torch(dim, dtype):
    _pair(lambda lib: lib.nn.Conv2d(2, 3, 3), torch.nn.utils.parametrizations.weight_norm, P.weight_norm,
          (2, 2, 5, 5), dtype=dtype, dim=dim)


@needs_torch
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("make", [lambda lib: lib.nn.Linear(5, 4), lambda lib: lib.nn.Conv1d(3, 4, 2),
                                  lambda lib: lib.nn.ConvTranspose2d(3, 2, 2)])
def test_spectral_norm_matches_torch(train, make):
    shape = {"Linear": (3, 5), "Conv1d": (2, 3, 6), "ConvTranspose2d": (2, 3, 4, 4)}[type(make(npgrad)).__name__]
    _pair(make, torch.nn.utils.parametrizations.spectral_norm, P.spectral_norm, shape, train=train,
          dtype="float64", n_power_iterations=2)


@needs_torch
@pytest.mark.parametrize("out_in", [(4, 4), (4, 3), (3, 5)])
@pytest.mark.parametrize("kw", [{}, {"orthogonal_map": "cayley"}, {"orthogonal_map": "householder"},
                                {"orthogonal_map": "householder", "use_trivialization": False}])
def test_orthogonal_matches_torch(out_in, kw):
    if kw.get("orthogonal_map") == "householder" and out_in[0] == out_in[1]:
        kw = dict(kw, orthogonal_map="matrix_exp") if "use_trivialization" not in kw else kw
    _pair(lambda lib: lib.nn.Linear(out_in[1], out_in[0]), torch.nn.utils.parametrizations.orthogonal,
          P.orthogonal, (2, out_in[1]), dtype="float64", **kw)


@needs_torch
def test_custom_parametrization_matches_torch():
    class TSym(torch.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    _pair(lambda lib: lib.nn.Linear(3, 3), lambda m: torch.nn.utils.parametrize.register_parametrization(
        m, "weight", TSym()), lambda m: parametrize.register_parametrization(m, "weight", Symmetric()), (4, 3))


@needs_torch
@pytest.mark.parametrize("kw", [{}, {"orthogonal_map": "cayley"}])
def test_orthogonal_assignment_and_repr_match_torch(kw):
    torch.manual_seed(0)
    mt = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3), **kw).double()
    mn = P.orthogonal(nn.Linear(3, 3), **kw).double()
    assert repr(mn) == repr(mt)
    assert mn.weight.dtype == npgrad.float64 and mn.parametrizations.weight[0].base.dtype == npgrad.float64
    q = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    with torch.no_grad():
        mt.weight = torch.tensor(q)
    with npgrad.no_grad():
        mn.weight = npgrad.tensor(q)
    np.testing.assert_allclose(_np(mn.weight), mt.weight.detach().numpy(), atol=1e-12)
    for k in ("parametrizations.weight.original", "parametrizations.weight.0.base"):
        np.testing.assert_allclose(mn.state_dict()[k].numpy(), mt.state_dict()[k].numpy(), atol=1e-12)
