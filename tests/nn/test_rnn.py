"""nn.RNN / LSTM / GRU and their cells against PyTorch: the same weights (torch's state_dict copied through
NumPy) and inputs give the same outputs, h_n / c_n and gradients of the input, h0 / c0 and every parameter,
over modes x layers x directions x batch_first x input kind (padded, packed sorted / unsorted, unbatched),
in float32 and float64. Finite differences (float64) and double backward stand without torch."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch

TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")

MODES = ["RNN_TANH", "RNN_RELU", "LSTM", "LSTM_PROJ", "GRU"]
I, H, P, T, B = 3, 5, 2, 6, 3
LENGTHS = {"packed_sorted": [6, 4, 2], "packed_unsorted": [4, 6, 2]}


def make(lib, mode, **kw):
    nn = lib.nn
    if mode.startswith("RNN"):
        return nn.RNN(I, H, nonlinearity="relu" if mode == "RNN_RELU" else "tanh", **kw)
    if mode == "LSTM_PROJ":
        return nn.LSTM(I, H, proj_size=P, **kw)
    return getattr(nn, mode)(I, H, **kw)


def to_np(t):
    return t.detach().numpy()


def copy_weights(tm, nm):
    nm.load_state_dict({k: npgrad.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})


def hidden_shapes(mode, layers, bidir, batch):
    D = 2 if bidir else 1
    h = (layers * D,) + ((batch,) if batch else ()) + (P if mode == "LSTM_PROJ" else H,)
    if mode.startswith("LSTM"):
        return [h, (layers * D,) + ((batch,) if batch else ()) + (H,)]
    return [h]


def run(lib, m, mode, kind, batch_first, x, hs, seed=1):
    """Forward, then backward sum(up * every output); returns outputs and every gradient as arrays."""
    pack = lib.nn.utils.rnn
    xt = lib.tensor(x, requires_grad=True)
    hts = [lib.tensor(h, requires_grad=True) for h in hs] if hs is not None else None
    inp = xt
    if kind.startswith("packed"):
        inp = pack.pack_padded_sequence(xt, LENGTHS[kind], batch_first=batch_first,
                                        enforce_sorted=kind == "packed_sorted")
    hx = None if hts is None else (tuple(hts) if mode.startswith("LSTM") else hts[0])
    out, hid = m(inp) if hx is None else m(inp, hx)
    outs = [out.data if kind.startswith("packed") else out] + (list(hid) if mode.startswith("LSTM") else [hid])
    rng = np.random.default_rng(seed)
    loss = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)).astype(x.dtype))).sum() for o in outs)
    loss.backward()
    res = {"out%d" % k: to_np(o) for k, o in enumerate(outs)}
    res["grad_x"] = to_np(xt.grad)
    for k, h in enumerate(hts or []):
        res["grad_h%d" % k] = to_np(h.grad)
    for name, p in m.named_parameters():
        res["grad_" + name] = to_np(p.grad)
    if kind.startswith("packed"):
        res["batch_sizes"] = out.batch_sizes.numpy()
        res["sorted"] = None if out.sorted_indices is None else out.sorted_indices.numpy()
    return res


def _inputs(kind, batch_first, dtype, mode, layers, bidir, with_h0, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "unbatched":
        x = rng.standard_normal((T, I))
    else:
        x = rng.standard_normal((B, T, I) if batch_first else (T, B, I))
    hs = [rng.standard_normal(s) for s in hidden_shapes(mode, layers, bidir, None if kind == "unbatched" else B)]
    return x.astype(dtype), ([h.astype(dtype) for h in hs] if with_h0 else None)


GRID = [(mode, layers, bidir, bf, kind)
        for mode in MODES for layers in (1, 2) for bidir in (False, True) for bf in (False, True)
        for kind in ("padded", "packed_sorted", "packed_unsorted", "unbatched")]


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("mode,layers,bidir,batch_first,kind", GRID,
                         ids=["-".join(map(str, g)) for g in GRID])
def test_matches_torch(mode, layers, bidir, batch_first, kind, dtype):
    with_h0 = (layers == 2) != bidir  # half the grid passes h0 (requiring grad), half lets it default to zeros
    x, hs = _inputs(kind, batch_first, dtype, mode, layers, bidir, with_h0)
    kw = dict(num_layers=layers, bidirectional=bidir, batch_first=batch_first)
    tm, nm = make(torch, mode, **kw), make(npgrad, mode, **kw)
    if dtype == np.float64:
        tm, nm = tm.double(), nm.double()
    copy_weights(tm, nm)
    want = run(torch, tm, mode, kind, batch_first, x, hs)
    got = run(npgrad, nm, mode, kind, batch_first, x, hs)
    assert list(got) == list(want)
    for k in want:
        if want[k] is None:
            assert got[k] is None, k
            continue
        assert got[k].dtype == want[k].dtype, k
        assert got[k].shape == want[k].shape, k
        assert_close(got[k], want[k], what=k, **TOL[dtype])


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_state_dict_names_shapes_and_init(mode):
    kw = dict(num_layers=2, bidirectional=True)
    tm, nm = make(torch, mode, **kw), make(npgrad, mode, **kw)
    t_sd, n_sd = tm.state_dict(), nm.state_dict()
    assert list(n_sd) == list(t_sd)
    assert [tuple(v.shape) for v in n_sd.values()] == [tuple(v.shape) for v in t_sd.values()]
    assert nm._flat_weights_names == tm._flat_weights_names
    assert [[tuple(w.shape) for w in ws] for ws in nm.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in tm.all_weights]
    bound = 1 / np.sqrt(H)
    for v in n_sd.values():  # U(-1/sqrt(H), 1/sqrt(H)), as PyTorch initialises every weight
        assert v.dtype == npgrad.float32 and np.abs(v.numpy()).max() <= bound
    every = np.concatenate([v.numpy().ravel() for v in n_sd.values()])  # hundreds of draws: they fill the range
    assert every.min() < -0.9 * bound and every.max() > 0.9 * bound and abs(every.mean()) < 0.1 * bound
    assert repr(nm) == repr(tm)
    nm.flatten_parameters()  # a no-op on the CPU, as in PyTorch
    # torch loads npgrad's state_dict too
    tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in n_sd.items()})


def test_parameter_names_without_torch():
    m = npgrad.nn.LSTM(3, 5, num_layers=2, bias=False, bidirectional=True, proj_size=2)
    assert [n for n, _ in m.named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0", "weight_hr_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse",
        "weight_hr_l0_reverse", "weight_ih_l1", "weight_hh_l1", "weight_hr_l1", "weight_ih_l1_reverse",
        "weight_hh_l1_reverse", "weight_hr_l1_reverse"]
    assert tuple(m.weight_ih_l1.shape) == (20, 4) and tuple(m.weight_hh_l0.shape) == (20, 2)
    assert tuple(m.weight_hr_l0.shape) == (2, 5)
    g = npgrad.nn.GRU(3, 4)
    assert tuple(g.weight_ih_l0.shape) == (12, 3) and tuple(g.bias_hh_l0.shape) == (12,)


def _numpy_lstm(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """A direct NumPy LSTM (gate order i, f, g, o): the oracle that needs no torch."""
    sig = lambda a: 1 / (1 + np.exp(-a))  # noqa: E731
    ys = []
    Hh = h.shape[1]
    for t in range(x.shape[0]):
        g = x[t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, gg, o = sig(g[:, :Hh]), sig(g[:, Hh:2 * Hh]), np.tanh(g[:, 2 * Hh:3 * Hh]), sig(g[:, 3 * Hh:])
        c = f * c + i * gg
        h = o * np.tanh(c)
        ys.append(h)
    return np.stack(ys), h, c


def _numpy_gru(x, h, w_ih, w_hh, b_ih, b_hh):
    sig = lambda a: 1 / (1 + np.exp(-a))  # noqa: E731
    Hh = h.shape[1]
    ys = []
    for t in range(x.shape[0]):
        gi, gh = x[t] @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        r, z = sig(gi[:, :Hh] + gh[:, :Hh]), sig(gi[:, Hh:2 * Hh] + gh[:, Hh:2 * Hh])
        n = np.tanh(gi[:, 2 * Hh:] + r * gh[:, 2 * Hh:])
        h = (1 - z) * n + z * h
        ys.append(h)
    return np.stack(ys), h


def test_forward_matches_numpy_reference():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((T, B, I))
    m = npgrad.nn.LSTM(I, H).double()
    h0, c0 = rng.standard_normal((1, B, H)), rng.standard_normal((1, B, H))
    out, (hn, cn) = m(npgrad.tensor(x), (npgrad.tensor(h0), npgrad.tensor(c0)))
    w = [p.detach().numpy() for p in m.parameters()]
    ys, h, c = _numpy_lstm(x, h0[0], c0[0], *w)
    np.testing.assert_allclose(out.detach().numpy(), ys, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hn.detach().numpy()[0], h, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cn.detach().numpy()[0], c, rtol=1e-12, atol=1e-14)
    g = npgrad.nn.GRU(I, H).double()
    out, hn = g(npgrad.tensor(x), npgrad.tensor(h0))
    ys, h = _numpy_gru(x, h0[0], *[p.detach().numpy() for p in g.parameters()])
    np.testing.assert_allclose(out.detach().numpy(), ys, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hn.detach().numpy()[0], h, rtol=1e-12, atol=1e-14)


KERNELS = {"RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu", "LSTM": "lstm", "LSTM_PROJ": "lstm", "GRU": "gru"}


def _kernel_fn(mode, kind, layers):
    """The sequence kernel (torch.lstm, ...) on exactly the given tensors, so gradcheck sees every input."""
    kernel = getattr(npgrad, KERNELS[mode])

    def f(x, h0, *params):
        hx = (h0, npgrad.ones(h0.shape[0], h0.shape[1], H, dtype=h0.dtype) * 0.3) if mode.startswith("LSTM") else h0
        if kind == "packed":
            packed = npgrad.nn.utils.rnn.pack_padded_sequence(x, [x.shape[0], 2, 1][:x.shape[1]])
            return tuple(kernel(packed.data, packed.batch_sizes, hx, list(params), True, layers, 0.0, True, True))
        return tuple(kernel(x, hx, list(params), True, layers, 0.0, True, layers == 2, False))
    return f


@pytest.mark.parametrize("kind", ["padded", "packed"])
@pytest.mark.parametrize("mode", MODES)
def test_finite_differences(mode, kind):
    rng = np.random.default_rng(5)
    m = make(npgrad, mode, num_layers=2, bidirectional=True).double()
    params = [npgrad.tensor(p.detach().numpy().copy(), requires_grad=True) for p in m.parameters()]
    x = npgrad.tensor(rng.standard_normal((4, 3, I)), requires_grad=True)
    hsize = P if mode == "LSTM_PROJ" else H
    h0 = npgrad.tensor(rng.standard_normal((4, 3, hsize)) * 0.5, requires_grad=True)
    if mode == "RNN_RELU":  # keep pre-activations away from ReLU's kink
        x = npgrad.tensor(np.abs(x.detach().numpy()) + 0.2, requires_grad=True)
    assert npgrad.autograd.gradcheck(_kernel_fn(mode, kind, 2), (x, h0, *params), eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_double_backward_finite_differences(mode):
    """create_graph=True through the fused layer: gradgradcheck against finite differences."""
    rng = np.random.default_rng(6)
    m = make(npgrad, mode).double()
    params = [npgrad.tensor(p.detach().numpy().copy(), requires_grad=True) for p in m.parameters()]
    x = npgrad.tensor(rng.standard_normal((3, 2, I)), requires_grad=True)
    if mode == "RNN_RELU":
        x = npgrad.tensor(np.abs(x.detach().numpy()) + 0.2, requires_grad=True)
    hsize = P if mode == "LSTM_PROJ" else H
    h0 = npgrad.tensor(rng.standard_normal((1, 2, hsize)) * 0.5, requires_grad=True)
    f = _kernel_fn(mode, "padded", 1)
    assert npgrad.autograd.gradgradcheck(f, (x, h0, *params), eps=1e-6, atol=1e-5, rtol=1e-4)


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_double_backward_matches_torch(mode):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 3, I))
    kw = dict(num_layers=2, bidirectional=True)
    tm, nm = make(torch, mode, **kw).double(), make(npgrad, mode, **kw).double()
    copy_weights(tm, nm)

    def second(lib, m):
        pack = lib.nn.utils.rnn
        xt = lib.tensor(x, requires_grad=True)
        packed = pack.pack_padded_sequence(xt, [3, 4, 2], enforce_sorted=False)
        out, hid = m(packed)
        h = hid[0] if mode.startswith("LSTM") else hid
        y, _ = pack.pad_packed_sequence(out)
        loss = (y ** 2).sum() + (h ** 3).sum() + (hid[1].sum() if mode.startswith("LSTM") else 0)
        g = lib.autograd.grad(loss, [xt] + list(m.parameters()), create_graph=True)
        gg = lib.autograd.grad(sum((a ** 2).sum() for a in g), [xt] + list(m.parameters()))
        return [to_np(a) for a in g] + [to_np(a) for a in gg]
    for a, b in zip(second(npgrad, nm), second(torch, tm)):
        assert_close(a, b, what=mode, rtol=1e-9, atol=1e-11)


@needs_torch
@pytest.mark.parametrize("cell", ["RNNCell", "RNNCell_relu", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("with_hx", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_cells_match_torch(cell, batched, bias, with_hx, dtype):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((B, I) if batched else (I,)).astype(dtype)
    hs = [rng.standard_normal((B, H) if batched else (H,)).astype(dtype) for _ in range(2 if cell == "LSTMCell" else 1)]

    def go(lib):
        name = cell.split("_")[0]
        kw = {"nonlinearity": "relu"} if cell.endswith("relu") else {}
        m = getattr(lib.nn, name)(I, H, bias=bias, **kw)
        return m.double() if dtype == np.float64 else m
    tm, nm = go(torch), go(npgrad)
    copy_weights(tm, nm)
    res = []
    for lib, m in ((torch, tm), (npgrad, nm)):
        xt = lib.tensor(x, requires_grad=True)
        hts = [lib.tensor(h, requires_grad=True) for h in hs]
        hx = (tuple(hts) if cell == "LSTMCell" else hts[0]) if with_hx else None
        out = m(xt, hx)
        outs = list(out) if cell == "LSTMCell" else [out]
        sum(((o * (k + 1.5)) ** 2).sum() for k, o in enumerate(outs)).backward()
        r = [to_np(o) for o in outs] + [to_np(xt.grad)] + [to_np(p.grad) for p in m.parameters()]
        if with_hx:
            r += [to_np(h.grad) for h in hts]
        res.append(r)
    for a, b in zip(res[1], res[0]):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert_close(a, b, what=cell, **TOL[dtype])
    assert repr(nm) == repr(tm)


@needs_torch
@pytest.mark.parametrize("name", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_cell_kernels_match_torch(name):
    rng = np.random.default_rng(9)
    G = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    arrays = [rng.standard_normal((B, I)), rng.standard_normal((B, H)), rng.standard_normal((B, H)),
              rng.standard_normal((G * H, I)), rng.standard_normal((G * H, H)), rng.standard_normal(G * H),
              rng.standard_normal(G * H)]
    res = []
    for lib in (torch, npgrad):
        x, h, c, *w = [lib.tensor(a, requires_grad=True) for a in arrays]
        hx = (h, c) if name == "lstm_cell" else h
        out = getattr(lib, name)(x, hx, *w)
        outs = list(out) if name == "lstm_cell" else [out]
        sum((o * (k + 2.0)).sum() ** 2 for k, o in enumerate(outs)).backward()
        grads = [x.grad, h.grad] + ([c.grad] if name == "lstm_cell" else []) + [p.grad for p in w]
        res.append([to_np(o) for o in outs] + [to_np(g) for g in grads])
    for a, b in zip(res[1], res[0]):
        assert_close(a, b, what=name, **TOL[np.float64])


@needs_torch
@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("packed", [False, True])
def test_sequence_kernels_match_torch(name, packed):
    mode = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN_TANH", "rnn_relu": "RNN_RELU"}[name]
    kw = dict(num_layers=2, bidirectional=True, bias=False)
    tm, nm = make(torch, mode, **kw).double(), make(npgrad, mode, **kw).double()
    copy_weights(tm, nm)
    rng = np.random.default_rng(10)
    x = rng.standard_normal((B, T, I))
    hs = [rng.standard_normal((4, B, H)) for _ in range(2 if name == "lstm" else 1)]
    res = []
    for lib, m in ((torch, tm), (npgrad, nm)):
        xt = lib.tensor(x, requires_grad=True)
        hts = [lib.tensor(h, requires_grad=True) for h in hs]
        hx = tuple(hts) if name == "lstm" else hts[0]
        if packed:
            p = lib.nn.utils.rnn.pack_padded_sequence(xt, [6, 5, 2], batch_first=True)
            out = getattr(lib, name)(p.data, p.batch_sizes, hx, list(m.parameters()), False, 2, 0.0, True, True)
        else:
            out = getattr(lib, name)(xt, hx, list(m.parameters()), False, 2, 0.0, True, True, True)
        assert len(out) == (3 if name == "lstm" else 2)
        sum((o * (k + 1.0)).sum() ** 2 for k, o in enumerate(out)).backward()
        res.append([to_np(o) for o in out] + [to_np(xt.grad)] + [to_np(h.grad) for h in hts]
                   + [to_np(p.grad) for p in m.parameters()])
    for a, b in zip(res[1], res[0]):
        assert_close(a, b, what=name, **TOL[np.float64])


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_dropout_between_layers(mode):
    kw = dict(num_layers=2, dropout=0.5)
    tm, nm = make(torch, mode, **kw).double(), make(npgrad, mode, **kw).double()
    copy_weights(tm, nm)
    x = np.random.default_rng(11).standard_normal((T, B, I))
    tm.eval()
    nm.eval()  # no dropout in eval mode: PyTorch's result
    assert_close(to_np(nm(npgrad.tensor(x))[0]), to_np(tm(torch.tensor(x))[0]), what="eval", **TOL[np.float64])
    nm.train()
    npgrad.manual_seed(0)
    a = to_np(nm(npgrad.tensor(x))[0])
    npgrad.manual_seed(0)
    b = to_np(nm(npgrad.tensor(x))[0])
    np.testing.assert_array_equal(a, b)  # the generator drives the mask
    assert not np.allclose(a, to_np(nm.eval()(npgrad.tensor(x))[0]))  # dropout did act in training


def test_dropout_warning_and_no_dropout_after_last_layer():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        m = npgrad.nn.GRU(3, 4, dropout=0.5)
    x = npgrad.randn(5, 2, 3)
    np.testing.assert_array_equal(to_np(m.train()(x)[0]), to_np(m.eval()(x)[0]))


def _raises(exc, fn):
    with pytest.raises(exc) as info:
        fn()
    return str(info.value)


@needs_torch
@pytest.mark.parametrize("case", [
    ("input size", lambda l: l.nn.GRU(3, 4)(l.randn(5, 2, 4))),
    ("dtype", lambda l: l.nn.GRU(3, 4)(l.randn(5, 2, 3).double())),
    ("h0 shape", lambda l: l.nn.GRU(3, 4)(l.randn(5, 2, 3), l.randn(2, 2, 4))),
    ("h0 dims batched", lambda l: l.nn.RNN(3, 4)(l.randn(5, 2, 3), l.randn(2, 4))),
    ("h0 dims unbatched", lambda l: l.nn.GRU(3, 4)(l.randn(5, 3), l.randn(1, 1, 4))),
    ("lstm hx dims", lambda l: l.nn.LSTM(3, 4)(l.randn(5, 2, 3), (l.randn(1, 2, 4), l.randn(2, 4)))),
    ("lstm hx dims unbatched", lambda l: l.nn.LSTM(3, 4)(l.randn(5, 3), (l.randn(1, 2, 4), l.randn(1, 4)))),
    ("lstm h0", lambda l: l.nn.LSTM(3, 4)(l.randn(5, 2, 3), (l.randn(1, 3, 4), l.randn(1, 2, 4)))),
    ("lstm c0", lambda l: l.nn.LSTM(3, 4)(l.randn(5, 2, 3), (l.randn(1, 2, 4), l.randn(1, 2, 5)))),
    ("lstm proj h0", lambda l: l.nn.LSTM(3, 4, proj_size=2)(l.randn(5, 2, 3), (l.randn(1, 2, 4), l.randn(1, 2, 4)))),
    ("rnn 4d", lambda l: l.nn.RNN(3, 4)(l.randn(5, 2, 3, 1))),
    ("lstm 4d", lambda l: l.nn.LSTM(3, 4)(l.randn(5, 2, 3, 1))),
    ("gru 1d", lambda l: l.nn.GRU(3, 4)(l.randn(3))),
    ("packed h0", lambda l: l.nn.GRU(3, 4)(l.nn.utils.rnn.pack_sequence([l.randn(3, 3), l.randn(2, 3)]),
                                           l.randn(1, 3, 4))),
    ("nonlinearity", lambda l: l.nn.RNN(3, 4, nonlinearity="gelu")),
    ("proj on gru", lambda l: l.nn.GRU(3, 4, proj_size=2)),
    ("proj too big", lambda l: l.nn.LSTM(3, 4, proj_size=4)),
    ("proj negative", lambda l: l.nn.LSTM(3, 4, proj_size=-1)),
    ("dropout range", lambda l: l.nn.LSTM(3, 4, dropout=1.5)),
    ("num_layers", lambda l: l.nn.LSTM(3, 4, num_layers=0)),
    ("hidden_size", lambda l: l.nn.LSTM(3, 0)),
    ("bias type", lambda l: l.nn.LSTM(3, 4, bias=1)),
    ("cell input dims", lambda l: l.nn.RNNCell(3, 4)(l.randn(2, 2, 3))),
    ("cell hidden dims", lambda l: l.nn.GRUCell(3, 4)(l.randn(2, 3), l.randn(1, 2, 4))),
    ("lstmcell hx dims", lambda l: l.nn.LSTMCell(3, 4)(l.randn(2, 3), (l.randn(1, 2, 4), l.randn(2, 4)))),
    ("cell input size", lambda l: l.nn.LSTMCell(3, 4)(l.randn(2, 5))),
    ("cell batch", lambda l: l.nn.GRUCell(3, 4)(l.randn(2, 3), l.randn(3, 4))),
    ("cell hidden size", lambda l: l.nn.RNNCell(3, 4)(l.randn(2, 3), l.randn(2, 5))),
], ids=lambda c: c[0])
def test_errors_match_torch(case):
    _, fn = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(torch)
        except Exception as e:  # noqa: BLE001 - whichever PyTorch raises, npgrad must raise the same
            want_type, want = type(e), str(e)
        else:
            pytest.fail("torch did not raise")
        got = _raises(want_type, lambda: fn(npgrad))
    assert got.replace("npgrad.", "torch.") == want  # (a dtype prints under its own library's name)


def test_unbatched_and_batch_first_shapes():
    m = npgrad.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True, proj_size=2)
    out, (h, c) = m(npgrad.randn(2, 7, 3))
    assert tuple(out.shape) == (2, 7, 4) and tuple(h.shape) == (4, 2, 2) and tuple(c.shape) == (4, 2, 4)
    out, (h, c) = m(npgrad.randn(7, 3))
    assert tuple(out.shape) == (7, 4) and tuple(h.shape) == (4, 2) and tuple(c.shape) == (4, 4)


def test_packed_h_n_is_each_sequences_true_last_step():
    """Without torch: h_n of a packed batch equals running each sequence alone, unpadded."""
    rng = np.random.default_rng(12)
    m = npgrad.nn.GRU(3, 4, bidirectional=True).double()
    seqs = [rng.standard_normal((n, 3)) for n in (2, 5, 3)]
    packed = npgrad.nn.utils.rnn.pack_sequence([npgrad.tensor(s) for s in seqs], enforce_sorted=False)
    out, h = m(packed)
    outs = npgrad.nn.utils.rnn.unpack_sequence(out)
    for k, s in enumerate(seqs):
        o1, h1 = m(npgrad.tensor(s))
        np.testing.assert_allclose(h.detach().numpy()[:, k], h1.detach().numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(outs[k].detach().numpy(), o1.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_no_grad_forward_and_inference():
    m = npgrad.nn.LSTM(3, 4)
    with npgrad.no_grad():
        out, (h, c) = m(npgrad.randn(5, 2, 3))
    assert out.grad_fn is None and not out.requires_grad
    out, _ = m(npgrad.randn(5, 2, 3))
    assert out.requires_grad


def test_second_backward_raises_after_release():
    m = npgrad.nn.GRU(3, 4)
    out, h = m(npgrad.randn(5, 2, 3))
    out.sum().backward(retain_graph=True)
    out.sum().backward()  # retained: works again
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.sum().backward()


@pytest.mark.parametrize("name", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_cell_kernels_finite_differences(name):
    """Without torch: the cells' first and second derivatives against finite differences (float64)."""
    rng = np.random.default_rng(13)
    G = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    shapes = [(2, I), (2, H)] + ([(2, H)] if name == "lstm_cell" else []) + [(G * H, I), (G * H, H), (G * H,),
                                                                             (G * H,)]
    xs = [npgrad.tensor(rng.standard_normal(s) * 0.7, requires_grad=True) for s in shapes]
    kernel = getattr(npgrad, name)
    if name == "lstm_cell":
        def f(x, h, c, *w):
            return tuple(kernel(x, (h, c), *w))
    else:
        def f(x, h, *w):
            return kernel(x, h, *w)
    assert npgrad.autograd.gradcheck(f, xs, eps=1e-6, atol=1e-6, rtol=1e-5)
    assert npgrad.autograd.gradgradcheck(f, xs, eps=1e-6, atol=1e-5, rtol=1e-4)


# -- forward-mode AD through the fused layers ------------------------------------------------------------------

FWD_CASES = {  # (mode, module kwargs, packed)
    "rnn_tanh": ("RNN_TANH", {}, False),
    "rnn_relu": ("RNN_RELU", {}, False),
    "gru": ("GRU", {}, False),
    "lstm": ("LSTM", {}, False),
    "lstm_proj_bidir_2layers_batch_first": ("LSTM_PROJ", dict(num_layers=2, bidirectional=True, batch_first=True),
                                            False),
    "gru_bidir_2layers": ("GRU", dict(num_layers=2, bidirectional=True), False),
    "gru_packed": ("GRU", {}, True),
    "lstm_proj_bidir_packed": ("LSTM_PROJ", dict(bidirectional=True), True),
}


def _fwd_inputs(mode, kw, packed, seed=11):
    rng = np.random.default_rng(seed)
    layers, bidir, bf = kw.get("num_layers", 1), kw.get("bidirectional", False), kw.get("batch_first", False)
    x = rng.standard_normal((B, T, I) if bf else (T, B, I))
    if mode == "RNN_RELU":  # pre-activations away from ReLU's kink, so finite differences see one branch
        x = np.abs(x) + 0.2
    hs = [rng.standard_normal(s) * 0.5 for s in hidden_shapes(mode, layers, bidir, B)]
    tx = rng.standard_normal(x.shape)
    ths = [rng.standard_normal(h.shape) for h in hs]
    if packed:  # time-major rows of sequences of lengths 6, 4, 2 (PyTorch's packed layout)
        bs = [sum(n > t for n in LENGTHS["packed_sorted"]) for t in range(T)]
        x = np.concatenate([x[t, :n] for t, n in enumerate(bs)])
        tx = np.concatenate([tx[t, :n] for t, n in enumerate(bs)])
    return x, hs, tx, ths


def _fwd_outputs(lib, fw, m, mode, packed, x, hs, tx, ths, frozen):
    """The module's outputs (output, h_n[, c_n]) and their tangents, tangents given on x and h0 (and c0)."""
    for p in m.parameters():
        p.requires_grad_(not frozen)
    with fw.dual_level():
        xd = fw.make_dual(lib.tensor(x), lib.tensor(tx))
        hd = [fw.make_dual(lib.tensor(h), lib.tensor(t)) for h, t in zip(hs, ths)]
        if packed:
            bs = lib.tensor([sum(n > t for n in LENGTHS["packed_sorted"]) for t in range(T)])
            xd = lib.nn.utils.rnn.PackedSequence(xd, bs)
        out, hid = m(xd, tuple(hd) if mode.startswith("LSTM") else hd[0])
        outs = [out.data if packed else out] + (list(hid) if mode.startswith("LSTM") else [hid])
        pairs = [fw.unpack_dual(o) for o in outs]
        return [to_np(p.primal) for p in pairs], [to_np(p.tangent) for p in pairs]


@pytest.mark.parametrize("frozen", [False, True], ids=["trainable", "frozen"])
@pytest.mark.parametrize("case", list(FWD_CASES))
def test_forward_ad_finite_differences(case, frozen):
    """Tangents on the input and initial state, against central differences of every output along them."""
    import npgrad.autograd.forward_ad as fwAD
    mode, kw, packed = FWD_CASES[case]
    m = make(npgrad, mode, **kw).double()
    x, hs, tx, ths = _fwd_inputs(mode, kw, packed)
    _, tangents = _fwd_outputs(npgrad, fwAD, m, mode, packed, x, hs, tx, ths, frozen)
    eps = 1e-6

    def at(s):
        with npgrad.no_grad():
            xs = npgrad.tensor(x + s * tx)
            if packed:
                bs = npgrad.tensor([sum(n > t for n in LENGTHS["packed_sorted"]) for t in range(T)])
                xs = npgrad.nn.utils.rnn.PackedSequence(xs, bs)
            h = [npgrad.tensor(a + s * b) for a, b in zip(hs, ths)]
            out, hid = m(xs, tuple(h) if mode.startswith("LSTM") else h[0])
            return [to_np(out.data if packed else out)] + [to_np(a) for a in (hid if mode.startswith("LSTM")
                                                                               else [hid])]
    for t, hi, lo in zip(tangents, at(eps), at(-eps)):
        assert_close(t, (hi - lo) / (2 * eps), rtol=1e-6, atol=1e-8, what=case)


@needs_torch
@pytest.mark.parametrize("frozen", [False, True], ids=["trainable", "frozen"])
@pytest.mark.parametrize("case", list(FWD_CASES))
def test_forward_ad_matches_torch(case, frozen):
    import npgrad.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD
    mode, kw, packed = FWD_CASES[case]
    tm, nm = make(torch, mode, **kw).double(), make(npgrad, mode, **kw).double()
    copy_weights(tm, nm)
    args = _fwd_inputs(mode, kw, packed)
    got = _fwd_outputs(npgrad, fwAD, nm, mode, packed, *args, frozen)
    want = _fwd_outputs(torch, tfwAD, tm, mode, packed, *args, frozen)
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        assert_close(a, b, rtol=1e-10, atol=1e-12, what=case)


def _lstm_loss(lib, m, params, x):
    out, (h, c) = lib.func.functional_call(m, params, (x,))
    return (out ** 2).sum() + (h ** 3).sum() + (c * c.tanh()).sum()


def _func_checks(lib, m, x, seed=12):
    """func.jvp (tangents on every parameter and the input), jacfwd in the input, and forward-over-reverse
    (jvp of grad: a Hessian-vector product) over an LSTM called through functional_call."""
    rng = np.random.default_rng(seed)
    params = {k: v.detach() for k, v in m.named_parameters()}
    tp = {k: lib.tensor(rng.standard_normal(tuple(v.shape))) for k, v in params.items()}
    tx = lib.tensor(rng.standard_normal(tuple(x.shape)))
    f = lib.func.functional_call
    out, jt = lib.func.jvp(lambda p, v: f(m, p, (v,))[0], (params, x), (tp, tx))
    jac = lib.func.jacfwd(lambda v: f(m, params, (v,))[1][0])(x)
    _, hvp = lib.func.jvp(lib.func.grad(lambda p: _lstm_loss(lib, m, p, x)), (params,), (tp,))
    return [to_np(out), to_np(jt), to_np(jac)] + [to_np(hvp[k]) for k in params]


def test_func_jvp_jacfwd_over_lstm_finite_differences():
    m = npgrad.nn.LSTM(I, H, proj_size=P, num_layers=2).double()
    x = npgrad.tensor(np.random.default_rng(13).standard_normal((4, 2, I)))
    res = _func_checks(npgrad, m, x)
    rng = np.random.default_rng(12)
    params = {k: v.detach() for k, v in m.named_parameters()}
    tp = {k: rng.standard_normal(tuple(v.shape)) for k, v in params.items()}
    tx = rng.standard_normal(tuple(x.shape))
    eps = 1e-6

    def out(s):
        p = {k: npgrad.tensor(v.numpy() + s * tp[k]) for k, v in params.items()}
        return to_np(npgrad.func.functional_call(m, p, (npgrad.tensor(x.numpy() + s * tx),))[0])
    assert_close(res[1], (out(eps) - out(-eps)) / (2 * eps), rtol=1e-6, atol=1e-8, what="jvp")
    jrev = npgrad.func.jacrev(lambda v: npgrad.func.functional_call(m, params, (v,))[1][0])(x)
    assert_close(res[2], to_np(jrev), rtol=1e-10, atol=1e-12, what="jacfwd")

    def grads(s):
        p = {k: npgrad.tensor(v.numpy() + s * tp[k]) for k, v in params.items()}
        return npgrad.func.grad(lambda q: _lstm_loss(npgrad, m, q, x))(p)
    hi, lo = grads(eps), grads(-eps)
    for k, h in zip(params, res[3:]):
        assert_close(h, (to_np(hi[k]) - to_np(lo[k])) / (2 * eps), rtol=1e-5, atol=1e-7, what="hvp " + k)


@needs_torch
def test_func_jvp_jacfwd_over_lstm_match_torch():
    tm = torch.nn.LSTM(I, H, proj_size=P, num_layers=2).double()
    nm = npgrad.nn.LSTM(I, H, proj_size=P, num_layers=2).double()
    copy_weights(tm, nm)
    x = np.random.default_rng(13).standard_normal((4, 2, I))
    for a, b in zip(_func_checks(npgrad, nm, npgrad.tensor(x)), _func_checks(torch, tm, torch.tensor(x))):
        assert_close(a, b, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("mode", ["LSTM_PROJ", "GRU"])
def test_reverse_over_forward_matches_torch(mode):
    """The tangent, computed with grad on, differentiated by reverse mode in the parameters and the input."""
    import npgrad.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD
    kw = dict(num_layers=2, bidirectional=True)
    tm, nm = make(torch, mode, **kw).double(), make(npgrad, mode, **kw).double()
    copy_weights(tm, nm)
    rng = np.random.default_rng(14)
    x, tx = rng.standard_normal((T, B, I)), rng.standard_normal((T, B, I))

    def run_(lib, fw, m):
        xt = lib.tensor(x, requires_grad=True)
        with fw.dual_level():
            out = m(fw.make_dual(xt, lib.tensor(tx)))[0]
            jt = fw.unpack_dual(out).tangent
            g = lib.autograd.grad((jt ** 2).sum(), [xt] + list(m.parameters()))
        return [to_np(jt)] + [to_np(a) for a in g]
    for a, b in zip(run_(npgrad, fwAD, nm), run_(torch, tfwAD, tm)):
        assert_close(a, b, rtol=1e-10, atol=1e-12, what=mode)
