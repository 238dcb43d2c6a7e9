"""The batching rules that fold the vmapped dim into one the operator maps over (func/_batch_rules_fold.py) and
index_select with a per-example index: each row runs under vmap without the per-example fallback (its warning is
an error here), equals the loop of single calls stacked (the oracle without torch; the norms also against their
NumPy formula), and equals torch.func.vmap where PyTorch computes it. Then batch norm's running statistics under
vmap: PyTorch's error for shared ones, per-example updates for batched ones; and nn.LSTM/GRU/RNN with shared
weights, folded into the RNN's batch."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

RNG = np.random.default_rng(11)
B = 3
X = RNG.standard_normal((B, 4, 5, 6))
W5 = RNG.standard_normal((B, 5))
IDX = np.array([[0, 2], [1, 1], [4, 0]])


def F(lib):
    return lib.nn.functional


def _f64(lib, n):
    return lib.ones(n, dtype=lib.float64)


ROWS = {
    "index_select batched index": (lambda lib, x, i: lib.index_select(x, 1, i), (X, IDX)),
    "index_select batched index, method, dim -1": (lambda lib, x, i: x.index_select(-1, i), (X, IDX)),
    "index_select unbatched input": (lambda lib, i: lib.index_select(lib.tensor(X[0]), 1, i), (IDX,)),
    "batch_norm training": (lambda lib, x: F(lib).batch_norm(x, None, None, training=True), (X,)),
    "batch_norm training, per-example weight": (
        lambda lib, x, w: F(lib).batch_norm(x, None, None, w, w * 2, training=True), (X, W5)),
    "batch_norm eval": (lambda lib, x: F(lib).batch_norm(x, _f64(lib, 5) * 0.5, _f64(lib, 5) * 2, _f64(lib, 5) * 3,
                                                         _f64(lib, 5), training=False), (X,)),
    "batch_norm eval, per-example stats": (
        lambda lib, x, m: F(lib).batch_norm(x, m, m.abs() + 1, training=False), (X, W5)),
    "instance_norm": (lambda lib, x: F(lib).instance_norm(x), (X,)),
    "instance_norm eval stats": (lambda lib, x: F(lib).instance_norm(x, _f64(lib, 5) * 0.5, _f64(lib, 5) * 2,
                                                                     use_input_stats=False), (X,)),
    "group_norm": (lambda lib, x: F(lib).group_norm(x, 5, _f64(lib, 5) * 2), (X,)),
    "group_norm per-example affine": (lambda lib, x, w: F(lib).group_norm(x, 5, w, w + 1), (X, W5)),
    "sdpa": (lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v), (X, X + 1, X * 2)),
    "sdpa causal, shared key": (lambda lib, q: F(lib).scaled_dot_product_attention(q, lib.tensor(X[0]),
                                                                                   lib.tensor(X[1]), is_causal=True),
                                (X,)),
    "sdpa batched bool mask": (lambda lib, q, m: F(lib).scaled_dot_product_attention(q, q, q, attn_mask=m),
                               (X, RNG.standard_normal((B, 5, 5)) > -0.5)),
    "max_pool2d_with_indices": (lambda lib, x: F(lib).max_pool2d_with_indices(x, 2, return_indices=True), (X,)),
    "max_pool1d_with_indices": (lambda lib, x: F(lib).max_pool1d_with_indices(x[0], 2, return_indices=True), (X,)),
    "adaptive_max_pool2d_with_indices": (
        lambda lib, x: F(lib).adaptive_max_pool2d_with_indices(x, 2, return_indices=True), (X,)),
}


def _tuple(out):
    return out if isinstance(out, tuple) else (out,)


def _np(t):
    return t.detach().numpy()


def _vmapped(lib, name):
    f, arrays = ROWS[name]
    return _tuple(lib.func.vmap(lambda *xs: f(lib, *xs))(*[lib.tensor(a) for a in arrays]))


@pytest.mark.parametrize("name", list(ROWS))
def test_rule_equals_the_loop_and_torch(name):
    f, arrays = ROWS[name]
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")  # the rule, not the fallback
        got = _vmapped(npgrad, name)
    loop = [_tuple(f(npgrad, *[npgrad.tensor(a[i]) for a in arrays])) for i in range(B)]
    for k, g in enumerate(got):
        want = np.stack([_np(r[k]) for r in loop])
        assert g.dtype == loop[0][k].dtype
        np.testing.assert_allclose(_np(g), want, rtol=1e-12, atol=1e-12)
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the PyTorch comparison is skipped")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _vmapped(torch, name)
    for g, t in zip(got, theirs):
        np.testing.assert_allclose(_np(g), _np(t), rtol=1e-10, atol=1e-12)


def test_norms_against_numpy():
    got = _vmapped(npgrad, "batch_norm training")[0].numpy()
    m, v = X.mean(axis=(1, 3), keepdims=True), X.var(axis=(1, 3), keepdims=True)
    np.testing.assert_allclose(got, (X - m) / np.sqrt(v + 1e-5), rtol=1e-10, atol=1e-12)
    got = _vmapped(npgrad, "instance_norm")[0].numpy()
    m, v = X.mean(axis=3, keepdims=True), X.var(axis=3, keepdims=True)
    np.testing.assert_allclose(got, (X - m) / np.sqrt(v + 1e-5), rtol=1e-10, atol=1e-12)


def test_per_sample_grads_through_group_norm_and_sdpa():
    # vmap(grad) through the rules equals one backward pass per example
    def loss(lib, w, x):
        h = F(lib).group_norm(x, 5, w)
        return F(lib).scaled_dot_product_attention(h, h, h).pow(2).sum()
    w = npgrad.tensor(RNG.standard_normal(5))
    got = npgrad.func.vmap(npgrad.func.grad(lambda w_, x: loss(npgrad, w_, x)), in_dims=(None, 0))(w, npgrad.tensor(X))
    for i in range(B):
        wi = w.detach().clone().requires_grad_()
        loss(npgrad, wi, npgrad.tensor(X[i])).backward()
        np.testing.assert_allclose(got[i].numpy(), wi.grad.numpy(), rtol=1e-10)


STATS_ERROR = "Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated in"


@pytest.mark.parametrize("fn", ["batch_norm", "instance_norm"])
def test_shared_running_stats_in_training_raise_pytorchs_error(fn):
    for lib in [npgrad] + ([torch] if HAS_TORCH else []):
        rm, rv = lib.zeros(5, dtype=lib.float64), lib.ones(5, dtype=lib.float64)
        call = (lambda x: F(lib).batch_norm(x, rm, rv, training=True)) if fn == "batch_norm" else \
            (lambda x: F(lib).instance_norm(x, rm, rv, use_input_stats=True))
        with pytest.raises(RuntimeError) as e:
            lib.func.vmap(call)(lib.tensor(X))
        assert str(e.value).startswith(STATS_ERROR), lib.__name__


def test_batched_running_stats_are_updated_per_example():
    rm, rv = npgrad.zeros(B, 5, dtype=npgrad.float64), npgrad.ones(B, 5, dtype=npgrad.float64)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        out = npgrad.func.vmap(lambda x, m, v: F(npgrad).batch_norm(x, m, v, training=True, momentum=0.3))(
            npgrad.tensor(X), rm, rv)
    n = X.shape[1] * X.shape[3]
    mean, var = X.mean(axis=(1, 3)), X.var(axis=(1, 3)) * n / (n - 1)
    np.testing.assert_allclose(rm.numpy(), 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.7 + 0.3 * var, rtol=1e-12)
    assert out.shape == X.shape
    if HAS_TORCH:
        trm, trv = torch.zeros(B, 5, dtype=torch.float64), torch.ones(B, 5, dtype=torch.float64)
        torch.func.vmap(lambda x, m, v: torch.nn.functional.batch_norm(x, m, v, training=True, momentum=0.3))(
            torch.tensor(X), trm, trv)
        np.testing.assert_allclose(rm.numpy(), trm.numpy(), rtol=1e-12)
        np.testing.assert_allclose(rv.numpy(), trv.numpy(), rtol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_layers_fold_into_the_rnn_batch(kind, batch_first):
    npgrad.manual_seed(0)
    m = getattr(npgrad.nn, kind)(6, 5, num_layers=2, bidirectional=True, batch_first=batch_first).double()
    seqs = RNG.standard_normal((B, 2, 4, 6) if batch_first else (B, 4, 2, 6))   # per example (N, T, I) / (T, N, I)
    h0 = RNG.standard_normal((B, 4, 2, 5))   # (layers * directions, N, H)

    def f(x, h):
        hx = (h, h * 0.5) if kind == "LSTM" else h
        out, hn = m(x, hx)
        return (out,) + (hn if kind == "LSTM" else (hn,))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        got = npgrad.func.vmap(f)(npgrad.tensor(seqs), npgrad.tensor(h0))
    for i in range(B):
        want = f(npgrad.tensor(seqs[i]), npgrad.tensor(h0[i]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(_np(g[i]), _np(w), rtol=1e-12, atol=1e-12)
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the PyTorch comparison is skipped")
    tm = getattr(torch.nn, kind)(6, 5, num_layers=2, bidirectional=True, batch_first=batch_first).double()
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})

    def tf(x, h):
        hx = (h, h * 0.5) if kind == "LSTM" else h
        out, hn = tm(x, hx)
        return (out,) + (hn if kind == "LSTM" else (hn,))
    # torch.func.vmap has no batching rule (nor fallback) for aten::rnn_tanh/lstm/gru: PyTorch's own loop is the oracle
    for i in range(B):
        theirs = tf(torch.tensor(seqs[i]), torch.tensor(h0[i]))
        for g, t in zip(got, theirs):
            np.testing.assert_allclose(_np(g[i]), _np(t), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("form", ["batched", "unbatched", "batch_first, key padding mask", "per-example mask"])
def test_multihead_attention_folds_into_its_batch(form):
    npgrad.manual_seed(0)
    m = npgrad.nn.MultiheadAttention(6, 2, batch_first=form.startswith("batch_first")).double()
    x = RNG.standard_normal((B, 4, 3, 6) if form != "unbatched" else (B, 4, 6))
    kpm = RNG.standard_normal((B, 4, 3)) > 0.3   # (N, S) per example
    kpm[..., 0] = True
    mask = RNG.standard_normal((B, 4, 4))

    def f(lib, mod, xi, extra):
        if form.startswith("batch_first"):
            return mod(xi, xi, xi, key_padding_mask=~extra)
        if form == "per-example mask":
            return mod(xi, xi, xi, attn_mask=extra)
        return mod(xi, xi * 2, xi)
    extra = kpm if form.startswith("batch_first") else mask
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        got = npgrad.func.vmap(lambda xi, e: f(npgrad, m, xi, e))(npgrad.tensor(x), npgrad.tensor(extra))
    tm = None
    if HAS_TORCH:
        tm = torch.nn.MultiheadAttention(6, 2, batch_first=form.startswith("batch_first")).double()
        tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    for i in range(B):
        want = f(npgrad, m, npgrad.tensor(x[i]), npgrad.tensor(extra[i]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(_np(g[i]), _np(w), rtol=1e-12, atol=1e-12)
        if tm is not None:
            theirs = f(torch, tm, torch.tensor(x[i]), torch.tensor(extra[i]))
            for g, t in zip(got, theirs):
                np.testing.assert_allclose(_np(g[i]), _np(t), rtol=1e-10, atol=1e-12)


def test_per_example_rnn_weights_take_the_loop():
    npgrad.manual_seed(0)
    m = npgrad.nn.RNN(6, 5).double()
    w = npgrad.randn(B, 5, 6, dtype=npgrad.float64)
    x = npgrad.tensor(RNG.standard_normal((B, 4, 1, 6)))

    def f(wi, xi):
        return npgrad.func.functional_call(m, {"weight_ih_l0": wi}, (xi,))[0]
    from npgrad.func import _dispatch
    _dispatch._warned.discard("torch.rnn_tanh")
    with pytest.warns(UserWarning, match="batching rule for torch.rnn_tanh"):
        got = npgrad.func.vmap(f)(w, x)
    for i in range(B):
        np.testing.assert_allclose(_np(got[i]), _np(f(w[i], x[i])), rtol=1e-12)


def test_batch_norm_module_under_vmap_as_functorch():
    # train mode with running stats: PyTorch's error; eval: the running stats; replace_all_batch_norm_modules_:
    # per-example batch statistics
    x = RNG.standard_normal((B, 5, 3))
    for lib in [npgrad] + ([torch] if HAS_TORCH else []):
        m = lib.nn.BatchNorm1d(3).double()
        with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input"):
            lib.func.vmap(m)(lib.tensor(x))
        m.eval()
        with torch.no_grad() if lib is torch else npgrad.no_grad():
            m.running_mean.fill_(0.5)
            m.running_var.fill_(4.0)
        np.testing.assert_allclose(_np(lib.func.vmap(m)(lib.tensor(x))), (x - 0.5) / np.sqrt(4.0 + 1e-5), rtol=1e-12)
        m.train()
        lib.func.replace_all_batch_norm_modules_(m)
        got = _np(lib.func.vmap(m)(lib.tensor(x)))
        np.testing.assert_allclose(got, (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5),
                                   rtol=1e-10)
