"""vmap's batched path: per-sample gradients of a small MLP and a small CNN (vmap(grad) with functional_call
and (params, buffers) dicts, the torch.func tutorial's pattern) equal the loop of single-example backward
passes and torch.func's; in_dims/out_dims forms, nested vmap, chunk_size, randomness and the fallback."""
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.func import _dispatch
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
RNG = np.random.default_rng(7)


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.Tanh(), lib.nn.Linear(8, 8), lib.nn.GELU(),
                             lib.nn.Linear(8, 4))


def _cnn(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3, padding=1), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
                             lib.nn.Conv2d(4, 3, 3, groups=1), lib.nn.Sigmoid(), lib.nn.Flatten(),
                             lib.nn.Linear(3, 4), lib.nn.LayerNorm(4))


CASES = {"mlp": (_mlp, (6,)), "cnn": (_cnn, (2, 6, 6))}
WEIGHTS = {}


def _model(lib, kind):
    make, _ = CASES[kind]
    model = make(lib)
    if kind not in WEIGHTS:
        WEIGHTS[kind] = {k: RNG.standard_normal(tuple(p.shape)).astype(np.float32) * 0.4
                         for k, p in make(npgrad).named_parameters()}
    with lib.no_grad():
        for k, p in model.named_parameters():
            p.copy_(lib.tensor(WEIGHTS[kind][k]))
    return model


def _data(lib, kind, n=5):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n,) + CASES[kind][1]).astype(np.float32)
    return lib.tensor(x), lib.tensor(rng.integers(0, 4, n))


def _per_sample(lib, funcs, kind):
    model = _model(lib, kind)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(p, b, xi, yi):
        out = funcs.functional_call(model, (p, b), (xi.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, yi.unsqueeze(0))
    x, y = _data(lib, kind)
    return funcs.vmap(funcs.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)


def _loop(kind):
    model = _model(npgrad, kind)
    x, y = _data(npgrad, kind)
    rows = []
    for i in range(len(x)):
        model.zero_grad()
        npgrad.nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        rows.append({k: p.grad.clone() for k, p in model.named_parameters()})
    return {k: np.stack([r[k].numpy() for r in rows]) for k in rows[0]}


@pytest.mark.parametrize("kind", list(CASES))
def test_per_sample_grads_equal_the_loop_of_backward_passes(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # every operator on the way has a batching rule
        got = _per_sample(npgrad, npgrad.func, kind)
    want = _loop(kind)
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == npgrad.float32 and tuple(got[k].shape) == want[k].shape
        np.testing.assert_allclose(got[k].numpy(), want[k], rtol=1e-5, atol=1e-6, err_msg=k)


@needs_torch
@pytest.mark.parametrize("kind", list(CASES))
def test_per_sample_grads_match_torch_func(kind):
    ours, theirs = _per_sample(npgrad, npgrad.func, kind), _per_sample(torch, torch.func, kind)
    for k in theirs:
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_per_example_gradient_is_not_the_batch_sum():
    w = npgrad.tensor([1.0, 2.0, 3.0])
    x = npgrad.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    g = npgrad.func.vmap(npgrad.func.grad(lambda w, xi: (w * xi).sum() ** 2), in_dims=(None, 0))(w, x)
    np.testing.assert_allclose(g.numpy(), [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0]])


def _forms(lib):
    F = lib.func
    a = lib.tensor(np.arange(24.0).reshape(2, 3, 4) / 7)
    b = lib.tensor(np.arange(12.0).reshape(3, 4) / 5)
    return {
        "in_dims 1, out_dims 1": lambda: F.vmap(lambda x: x.sum(-1) * 2, in_dims=1, out_dims=1)(a),
        "in_dims -1, out_dims -1": lambda: F.vmap(lambda x: x.softmax(0), in_dims=-1, out_dims=-1)(a),
        "in_dims (None, 0)": lambda: F.vmap(lambda x, y: x @ y, in_dims=(None, 0))(b, a.transpose(1, 2)),
        "dict in_dims": lambda: F.vmap(lambda d: d["x"].mean() + d["y"], in_dims=({"x": 0, "y": None},))(
            {"x": a, "y": b}),
        "tuple out, out_dims (0, None)": lambda: F.vmap(lambda x: (x.max(0).values, b), out_dims=(0, None))(a),
        "unbatched output expanded": lambda: F.vmap(lambda x: b * 2)(a),
        "nested": lambda: F.vmap(F.vmap(lambda x, y: (x * y).sum()), in_dims=(0, None))(a, b),
        "nested in_dims 1": lambda: F.vmap(F.vmap(lambda x: x.cumsum(0), in_dims=1), in_dims=2)(a),
        "nested grad": lambda: F.vmap(F.vmap(F.grad(lambda x, y: (x.sin() * y).sum()), (0, None)), (0, None))(a, b),
        "chunk_size": lambda: F.vmap(lambda x: x.T @ x, chunk_size=1)(a),
        "getitem": lambda: F.vmap(lambda x: x[1:, None, ::2].sum(1) + x[..., 0:1, None][0])(a),
        "advanced index": lambda: F.vmap(lambda x: x[:, lib.tensor([0, 2, 3])])(a),
        "cat/stack": lambda: F.vmap(lambda x, y: lib.stack([lib.cat([x, y], 1), lib.cat([y, x * y], 1)], 0), (0, None))(a, b),
        "reshape/permute/expand": lambda: F.vmap(lambda x: x.reshape(4, 3).permute(1, 0).unsqueeze(0).expand(2, 3, 4))(a),
        "einsum": lambda: F.vmap(lambda x, y: lib.einsum("ij,kj->ik", x, y), (0, None))(a, b),
        "0-dim example promotes as a 0-dim tensor": lambda: F.vmap(lambda x: x.sum() * b.float())(a),
        "0-dim example of a higher category": lambda: F.vmap(lambda x: x.sum() + lib.arange(3))(a),
        "jacrev in vmap": lambda: F.vmap(F.jacrev(lambda x: x.exp() * x.sum()))(a[:, 0]),
        "vjp in vmap": lambda: F.vmap(lambda x, y: F.vjp(lambda u: u.tanh() * y, x)[1](lib.ones_like(x))[0],
                                      (0, None))(a, b),
        "index_select, per-example index": lambda: F.vmap(lambda x, i: x.index_select(1, i))(
            a, lib.tensor([[0, 3], [2, 2]])),
        "batch_norm training (no running stats)": lambda: F.vmap(
            lambda x: lib.nn.functional.batch_norm(x, None, None, training=True))(a.unsqueeze(-1)),
        "group_norm": lambda: F.vmap(lambda x: lib.nn.functional.group_norm(x, 1))(a),
        "scaled_dot_product_attention": lambda: F.vmap(
            lambda q, k: lib.nn.functional.scaled_dot_product_attention(q, k, k), (0, None))(a, b),
        "max_pool1d_with_indices": lambda: F.vmap(
            lambda x: lib.nn.functional.max_pool1d_with_indices(x, 2, return_indices=True))(a),
    }


@needs_torch
@pytest.mark.parametrize("form", list(_forms(npgrad)))
def test_vmap_forms_match_torch_func(form):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _forms(npgrad)[form]()
    theirs = _forms(torch)[form]()
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        tol = 1e-10 if o.dtype == npgrad.float64 else 1e-6
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def test_nested_vmap_equals_the_double_loop():
    a = npgrad.tensor(RNG.standard_normal((3, 4, 5)))
    f = lambda r: (r.exp() * r.flip(0)).sum() / r.norm()   # noqa: E731
    got = npgrad.func.vmap(npgrad.func.vmap(f))(a)
    want = np.array([[f(a[i, j]).item() for j in range(4)] for i in range(3)])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_randomness_different_draws_the_physical_shape_once():
    npgrad.manual_seed(3)
    first = npgrad.rand(4, 3)
    npgrad.manual_seed(3)
    got = npgrad.func.vmap(lambda a: a + npgrad.rand(3), randomness="different")(npgrad.zeros(4, 3))
    np.testing.assert_array_equal(got.numpy(), first.numpy())
    npgrad.manual_seed(3)
    same = npgrad.func.vmap(lambda a: npgrad.nn.functional.dropout(a, 0.5), randomness="same")(npgrad.ones(4, 6))
    assert (same == same[0]).all() and not (same[0] == same[0][0]).all()


def test_an_operator_without_a_rule_loops_and_warns_once():
    _dispatch._warned.discard("torch.kthvalue_nope")
    x = npgrad.tensor(RNG.standard_normal((3, 5)))
    with pytest.warns(UserWarning, match="batching rule for torch.cdist"):
        _dispatch._warned.discard("torch.cdist")
        got = npgrad.func.vmap(lambda r: npgrad.cdist(r.view(5, 1), r.view(5, 1)))(x)
    want = np.stack([npgrad.cdist(r.view(5, 1), r.view(5, 1)).numpy() for r in x])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_data_dependent_python_control_flow_raises_as_functorch():
    with pytest.raises(RuntimeError, match="calling .item"):
        npgrad.func.vmap(lambda r: r.sum().item())(npgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        npgrad.func.vmap(lambda r: r if r.sum() > 0 else -r)(npgrad.ones(2, 3))


def test_no_public_function_stays_swapped():
    before = dict(vars(npgrad)), dict(vars(npgrad.nn.functional))
    with pytest.raises(ValueError):
        npgrad.func.vmap(lambda r: npgrad.add(r, 1), out_dims=None)(npgrad.ones(2, 3))
    assert npgrad.add is before[0]["add"] and npgrad.nn.functional.linear is before[1]["linear"]
    assert all(vars(npgrad).get(k) is v for k, v in before[0].items())


@pytest.mark.parametrize("layer", ["Softmax", "Hardswish", "LSTM", "TransformerEncoderLayer"])
def test_layers_calling_library_code_directly_equal_the_loop(layer):
    npgrad.manual_seed(0)
    m = {"Softmax": lambda: npgrad.nn.Softmax(-1), "Hardswish": lambda: npgrad.nn.Hardswish(),
         "LSTM": lambda: npgrad.nn.LSTM(8, 5, batch_first=True),
         "TransformerEncoderLayer": lambda: npgrad.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                                             batch_first=True)}[layer]()
    x = npgrad.tensor(RNG.standard_normal((3, 4, 8)).astype(np.float32))

    def f(xi):
        out = m(xi.unsqueeze(0))
        return out[0] if isinstance(out, tuple) else out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the LSTM's fused kernel reads its input's data: vmap loops
        got = npgrad.func.vmap(f)(x)
    want = np.stack([f(x[i]).detach().numpy() for i in range(3)])
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-5, atol=1e-6)
