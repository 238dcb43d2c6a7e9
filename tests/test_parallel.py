"""npgrad._parallel: elementwise work split over threads, bit-identical to one thread."""
import os
import threading

import numpy as np
import pytest

import npgrad
from npgrad import _parallel, _runtime
from npgrad.nn import functional as F

RNG = np.random.default_rng(0)


@pytest.fixture
def threads():
    """Run with a given thread count and a small piece size, so the split happens on small arrays."""
    saved = _runtime._state["threads"], _parallel.MIN_PIECE, _parallel.ONE_PASS_PIECE, _parallel.ENABLED

    def set_(n, piece=1000):
        _runtime._state["threads"] = n
        _parallel.MIN_PIECE = _parallel.ONE_PASS_PIECE = piece
        _parallel.ENABLED = True
    yield set_
    _runtime._state["threads"], _parallel.MIN_PIECE, _parallel.ONE_PASS_PIECE, _parallel.ENABLED = saved


def _by_thread_count(threads, settings, fn, inputs, up):
    """For each (thread count, piece size): ``fn`` on fresh leaf Tensors of ``inputs``, backward from ``up``;
    the output's and every input gradient's arrays, per setting."""
    results = []
    for n, piece in settings:
        threads(n, piece)
        leaves = [npgrad.tensor(a, requires_grad=True) for a in inputs]
        y = fn(*leaves)
        y.backward(npgrad.tensor(up))
        results.append([y.detach().numpy()] + [t.grad.numpy() for t in leaves])
    return results


def _assert_same_bits(results):
    """Every setting's arrays equal the first's bit for bit (NaN payloads and signed zeros included)."""
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_pieces_cover_the_range_once_on_several_threads(threads):
    threads(3)
    seen, names = [], set()

    def fn(a, b):
        seen.append((a, b))
        names.add(threading.get_ident())
    _parallel.split(fn, 10_000, grain=64)
    seen.sort()
    assert seen[0][0] == 0 and seen[-1][1] == 10_000
    assert all(b == c for (_, b), (c, _) in zip(seen, seen[1:]))  # contiguous, no overlap
    assert all(a % 64 == 0 for a, _ in seen)
    assert len(seen) == 3 and len(names) == 3  # the caller and two workers


def test_small_work_and_one_thread_stay_on_the_caller(threads):
    threads(2)
    calls = []
    _parallel.split(lambda a, b: calls.append((a, b, threading.current_thread())), 1500)
    assert calls == [(0, 1500, threading.current_thread())]  # under two pieces' worth
    threads(1)
    calls.clear()
    _parallel.split(lambda a, b: calls.append((a, b)), 10 ** 6)
    assert calls == [(0, 10 ** 6)]


def test_an_error_in_a_worker_reaches_the_caller_after_all_pieces_finish(threads):
    threads(2)
    done = []

    def fn(a, b):
        if a > 0:
            raise ValueError(f"piece {a}")
        done.append(a)
    with pytest.raises(ValueError, match="piece"):
        _parallel.split(fn, 10_000)
    assert done == [0]
    out = []
    _parallel.split(lambda a, b: out.append(b - a), 10_000)  # the pool still works afterwards
    assert sum(out) == 10_000


def test_a_split_inside_a_split_runs_serially(threads):
    threads(2)
    inner = []

    def outer(a, b):
        _parallel.split(lambda c, d: inner.append((a, c, d)), 5000)
    _parallel.split(outer, 10_000)
    assert sorted(inner) == [(0, 0, 5000), (5000, 0, 5000)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_starts_its_own_workers(threads):
    threads(2)
    _parallel.split(lambda a, b: None, 10_000)  # the parent has a worker thread now
    pid = os.fork()
    if pid == 0:  # the child: a split must not wait on the parent's thread, which does not exist here
        total = []
        _parallel.split(lambda a, b: total.append(b - a), 10_000)
        os._exit(0 if sum(total) == 10_000 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


def test_gelu_float32_split_is_bit_identical(threads):
    x = RNG.standard_normal((7, 40_000)).astype(np.float32) * 4
    x[0, :5] = [np.nan, np.inf, -np.inf, 0.0, -30.0]
    up = RNG.standard_normal(x.shape).astype(np.float32)
    _assert_same_bits(_by_thread_count(threads, [(1, 20_000), (2, 20_000), (3, 20_000)], F.gelu, [x], up))


@pytest.mark.parametrize("make", [lambda p: npgrad.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
                                  lambda p: npgrad.optim.Adam(p, lr=0.01, amsgrad=True),
                                  lambda p: npgrad.optim.AdamW(p, lr=0.01)],
                         ids=["sgd_nesterov", "adam_amsgrad", "adamw"])
def test_optimizer_split_is_bit_identical(threads, make):
    w0 = RNG.standard_normal((300, 4000)).astype(np.float32)
    grads = [RNG.standard_normal(w0.shape).astype(np.float32) for _ in range(3)]
    finals = []
    for n in (1, 2):
        threads(n, piece=50_000)
        w = npgrad.nn.Parameter(npgrad.tensor(w0.copy()))
        opt = make([w])
        for g in grads:
            w.grad = npgrad.tensor(g)
            opt.step()
        finals.append(w.detach().numpy().copy())
    np.testing.assert_array_equal(finals[0], finals[1])
    assert not np.array_equal(finals[0], w0)  # the steps did something


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "kernels"])
def test_softmax_rows_split_is_bit_identical(threads, compiled, monkeypatch):
    monkeypatch.setattr(npgrad.backends.kernels, "enabled", compiled)
    if compiled and not npgrad.kernels.ready():
        pytest.skip("the compiled kernels need numba (the [kernels] extra)")
    x = RNG.standard_normal((6, 5, 300)).astype(np.float32) * 6
    x[0, 0, :3] = [np.inf, -np.inf, np.nan]
    up = RNG.standard_normal(x.shape).astype(np.float32)
    results = _by_thread_count(threads, [(1, 500), (2, 500)], lambda t: F.softmax(t, dim=-1), [x], up)
    _assert_same_bits(results)
    with np.errstate(invalid="ignore"):  # the row with inf - inf: NaN, as PyTorch's
        e = np.exp(x - x.max(-1, keepdims=True))
        e /= np.einsum("...i->...", e)[..., None]  # (the row sums are einsum's, as in ops/softmax.py)
    if compiled:  # within float32 rounding of it (the kernels' own ulp bounds: tests/kernels)
        np.testing.assert_allclose(results[1][0], e, rtol=1e-6, atol=1e-12)
    else:
        np.testing.assert_array_equal(results[1][0], e)  # and the whole-array formula's bits


def test_splitting_is_off_unless_the_blas_spin_was_shortened():
    """npgrad imported before NumPy shortens OpenBLAS's idle spin and turns splitting on; with NumPy imported
    first it cannot, and everything stays on the caller's thread."""
    import subprocess
    import sys
    code = ("import {first}; import npgrad, os; from npgrad import _parallel; "
            "print(_parallel.ENABLED, os.environ.get('OPENBLAS_THREAD_TIMEOUT'), _parallel.num_threads())")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "NPGRAD_BLAS_TUNE")}
    late = subprocess.run([sys.executable, "-c", code.format(first="numpy")], capture_output=True, text=True,
                          env=env, check=True).stdout.split()
    assert late == ["False", "None", "1"]
    early = subprocess.run([sys.executable, "-c", code.format(first="sys")], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
    blas = npgrad._process_tuning.blas_name()
    assert early[:2] == (["True", "20"] if "openblas" in blas else ["False", "20"])
    off = subprocess.run([sys.executable, "-c", code.format(first="sys")], capture_output=True, text=True,
                         env=dict(env, NPGRAD_BLAS_TUNE="0"), check=True).stdout.split()
    assert off == ["False", "None", "1"]


def test_a_split_runs_blas_on_one_thread_and_gives_the_count_back(threads):
    from npgrad import _blas_threads
    if not _blas_threads.available():
        pytest.skip("NumPy's BLAS is not an OpenBLAS whose thread count npgrad can set")
    threads(2)
    before = _blas_threads.count()
    _blas_threads.set_count(2)
    try:
        seen = []
        _parallel.split(lambda lo, hi: seen.append(_blas_threads.count()), 10_000, pieces=2)
        assert seen == [1, 1]
        assert _blas_threads.count() == 2
        with pytest.raises(ZeroDivisionError):  # given back when a piece raises too
            _parallel.split(lambda lo, hi: 1 / 0, 10_000, pieces=2)
        assert _blas_threads.count() == 2
        _parallel.split(lambda lo, hi: seen.append(_blas_threads.count()), 10_000, pieces=1)  # no split: untouched
        assert seen[-1] == 2
    finally:
        _blas_threads.set_count(before)


# (2-D products, and batches of fewer entries than threads, are one call: they check that path gives the same)
_PRODUCTS = [((600, 70), (70, 50)), ((40, 70), (70, 900)), ((6, 50, 70), (6, 70, 40)),
             ((1, 50, 70), (1, 70, 800)), ((3, 200, 30), (30, 60)), ((200, 30), (3, 30, 60)),  # broadcasts
             ((4, 1, 90, 20), (3, 20, 70)), ((90, 20), (5, 20, 30)), ((1, 90, 20), (5, 20, 30)),
             ((5, 90, 20), (1, 20, 30))]


def _close_bits(got, want):
    """Within a few float rounding errors of one BLAS call: OpenBLAS picks its kernel (small-matrix or blocked) by
    the size of the product it is given, so a piece may round differently from the whole."""
    tol = 64 * np.finfo(want.real.dtype).eps * (1 + np.abs(want).max())
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


@pytest.mark.parametrize("shapes", _PRODUCTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_split_products_match_one_call_and_repeat_bit_for_bit(threads, shapes, dtype):
    a = RNG.standard_normal(shapes[0]).astype(dtype)
    b = RNG.standard_normal(shapes[1]).astype(dtype)
    if dtype == np.complex64:
        a = a + 1j * RNG.standard_normal(shapes[0]).astype(np.float32)
    whole = np.matmul(a, b)
    a_t = np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)  # the backward's transposed operands
    b_t = np.ascontiguousarray(b.swapaxes(-1, -2)).swapaxes(-1, -2)
    saved = _parallel.GEMM_MIN
    try:
        for n in (2, 3):
            threads(n)
            _parallel.GEMM_MIN = 64
            got = _parallel.matmul(a, b)
            assert got.shape == whole.shape and got.dtype == whole.dtype
            _close_bits(got, whole)
            assert _parallel.matmul(a, b).tobytes() == got.tobytes()  # deterministic for a thread count
            out = np.full(whole.shape, np.nan, dtype)
            assert _parallel.matmul(a, b, out=out) is out and out.tobytes() == got.tobytes()
            _close_bits(_parallel.matmul(a_t, b_t), whole)
    finally:
        _parallel.GEMM_MIN = saved


def test_only_products_with_a_batch_of_one_entry_per_thread_split(threads, monkeypatch):
    # A 2-D product (however large) stays one call on OpenBLAS's threads: splitting its rows lost in training steps.
    threads(2)
    monkeypatch.setattr(_parallel, "GEMM_MIN", 64)
    handed, workers = [], _parallel._workers
    monkeypatch.setattr(_parallel, "_workers", lambda k: handed.append(k) or workers(k))
    for sa, sb, splits in [((600, 70), (70, 50), False), ((1, 600, 70), (1, 70, 50), False),
                           ((2, 60, 70), (2, 70, 50), True), ((5, 60, 70), (70, 50), True)]:
        handed.clear()
        a, b = RNG.standard_normal(sa).astype(np.float32), RNG.standard_normal(sb).astype(np.float32)
        _close_bits(_parallel.matmul(a, b), np.matmul(a, b))
        assert bool(handed) == splits, (sa, sb)


def test_split_product_falls_back_for_what_blas_does_not_take(threads):
    threads(2)
    ints = np.arange(12).reshape(3, 4)
    assert _parallel.matmul(ints, ints.T).tolist() == (ints @ ints.T).tolist()
    f16 = RNG.standard_normal((300, 200)).astype(np.float16)
    assert _parallel.matmul(f16, f16.T).tobytes() == (f16 @ f16.T).tobytes()
    with pytest.raises(ValueError):
        _parallel.matmul(RNG.standard_normal((300, 20)), RNG.standard_normal((30, 200)))  # NumPy's own error
    t = npgrad.ones(2, 3)
    assert _parallel.matmul(t, npgrad.ones(3, 2)).tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_linear_and_conv_agree_across_thread_counts(threads):
    x = RNG.standard_normal((64, 40)).astype(np.float32)
    w = RNG.standard_normal((30, 40)).astype(np.float32)
    b = RNG.standard_normal(30).astype(np.float32)
    up = RNG.standard_normal((64, 30)).astype(np.float32)
    cases = [(F.linear, [x, w, b], up)]
    # every array path of the convolution: channel-major (more outputs than inputs), the wide grid (stride 1, no
    # more outputs than inputs), grouped (per-group long runs), strided (chunked col2im), short depth (im2col)
    for cin, cout, kw in [(8, 16, {"padding": 1}), (16, 8, {"padding": 1}), (16, 16, {"padding": 1, "groups": 2}),
                          (8, 16, {"stride": 2}), (2, 8, {"padding": 1})]:
        img = RNG.standard_normal((7, cin, 10, 10)).astype(np.float32)
        k = RNG.standard_normal((cout, cin // kw.get("groups", 1), 3, 3)).astype(np.float32)
        out_shape = F.conv2d(npgrad.tensor(img), npgrad.tensor(k), **kw).shape
        cases.append((lambda t, kk, kw=kw: F.conv2d(t, kk, **kw), [img, k],
                      RNG.standard_normal(tuple(out_shape)).astype(np.float32)))
    saved = _parallel.GEMM_MIN
    _parallel.GEMM_MIN = 64
    try:
        for fn, inputs, g in cases:
            settings = [(1, 1 << 40), (2, 1000), (3, 1000), (3, 1000)]
            results = _by_thread_count(threads, settings, fn, inputs, g)
            _assert_same_bits(results[2:])  # deterministic for a thread count
            for other in results[1:]:
                for got, want in zip(other, results[0]):
                    _close_bits(got, want)
    finally:
        _parallel.GEMM_MIN = saved


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_rows_split_is_bit_identical(threads, affine):
    x = RNG.standard_normal((40, 30, 200)).astype(np.float32) * 3 + 1
    x[0, 0] += 1e4  # a row far from zero next to its spread: the recentring path
    w = RNG.standard_normal(200).astype(np.float32)
    b = RNG.standard_normal(200).astype(np.float32)
    up = RNG.standard_normal(x.shape).astype(np.float32)
    results = _by_thread_count(threads, [(1, 1 << 40), (2, 1000), (3, 1000)],
                               lambda *t: F.layer_norm(t[0], (200,), *t[1:]), [x, w, b] if affine else [x], up)
    _assert_same_bits(results)
    if not affine:
        row = results[0][0][0, 0]
        assert abs(float(row.mean())) < 1e-2 and abs(float(row.std()) - 1) < 1e-2  # the recentred row normalizes


def test_batched_matmul_split_is_bit_identical(threads, monkeypatch):
    monkeypatch.setattr(_parallel, "GEMM_MIN", 64)  # (the products below split along the batch)
    batched_matmul = _parallel.matmul
    base = RNG.standard_normal((8, 40, 3 * 4 * 16)).astype(np.float32)
    q = base[:, :, :64].reshape(8, 40, 4, 16).transpose(0, 2, 1, 3)  # strided views, as attention's
    k = base[:, :, 64:128].reshape(8, 40, 4, 16).transpose(0, 2, 3, 1)
    up = RNG.standard_normal((8, 4, 40, 40)).astype(np.float32)
    results = _by_thread_count(threads, [(1, 100), (2, 100), (3, 100)], lambda a, b: a @ b, [q, k], up)
    _assert_same_bits(results)
    np.testing.assert_array_equal(results[0][0], np.matmul(q, k))
    assert batched_matmul(q[:1], k[:1]).shape == (1, 4, 40, 40)  # one batch entry: nothing to split
    np.testing.assert_array_equal(batched_matmul(q, k[:1]), np.matmul(q, k[:1]))  # broadcast batch: the same calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu_split_is_bit_identical(threads, dtype):
    x = RNG.standard_normal((30, 700)).astype(dtype)
    x[0, :5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    up = RNG.standard_normal(x.shape).astype(dtype)
    up[0, 5:8] = [np.nan, np.inf, -0.0]
    results = _by_thread_count(threads, [(1, 1000), (2, 1000), (3, 1000)], F.relu, [x], up)
    _assert_same_bits(results)
    with np.errstate(invalid="ignore"):
        want = np.where(~(np.maximum(x, 0) <= 0), up, 0)
    assert results[0][1].tobytes() == want.astype(dtype).tobytes()  # NaN outputs pass their gradient


@pytest.mark.parametrize("cin,cout,k,pad", [(1, 6, 5, 2), (4, 6, 5, 0)], ids=["shallow_per_image", "channel_major"])
def test_conv_window_copies_and_products_split_are_bit_identical(threads, cin, cout, k, pad):
    x = RNG.standard_normal((6, cin, 20, 20)).astype(np.float32)
    w = RNG.standard_normal((cout, cin, k, k)).astype(np.float32)
    out = 20 + 2 * pad - k + 1
    up = RNG.standard_normal((6, cout, out, out)).astype(np.float32)
    _assert_same_bits(_by_thread_count(threads, [(1, 500), (2, 500)], lambda a, b: F.conv2d(a, b, padding=pad),
                                       [x, w], up))


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN", "LSTM-proj"])
def test_recurrent_layers_split_by_batch_rows_agree_with_one_thread(threads, mode):
    """The fused recurrent layer takes each thread's batch rows through every step; packed sequences of unequal
    lengths (rows dropping out at different steps, on both sides of a piece boundary) and both directions."""
    from npgrad.nn.utils.rnn import pack_padded_sequence
    lengths = [9, 9, 8, 8, 7, 7, 6, 5, 5, 5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1]  # 20 rows
    x = RNG.standard_normal((9, 20, 6)).astype(np.float32)
    up = RNG.standard_normal((sum(lengths), 2 * (4 if mode == "LSTM-proj" else 10))).astype(np.float32)
    results = []
    saved = _parallel.GEMM_MIN
    try:
        for n in (1, 2, 3):
            threads(n)
            _parallel.GEMM_MIN = 1 if n > 1 else 1 << 40
            npgrad.manual_seed(0)
            cls = {"LSTM": npgrad.nn.LSTM, "GRU": npgrad.nn.GRU, "RNN": npgrad.nn.RNN, "LSTM-proj": npgrad.nn.LSTM}[mode]
            kw = {"proj_size": 4} if mode == "LSTM-proj" else {}
            net = cls(6, 10, num_layers=2, bidirectional=True, **kw)
            xt = npgrad.tensor(x, requires_grad=True)
            out, _ = net(pack_padded_sequence(xt, lengths))
            out.data.backward(npgrad.tensor(up))
            results.append([out.data.detach().numpy(), xt.grad.numpy()]
                           + [p.grad.numpy() for p in net.parameters()])
    finally:
        _parallel.GEMM_MIN = saved
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_split_by_samples_agrees_with_one_thread(threads, affine):
    x = RNG.standard_normal((9, 5, 7, 6)).astype(np.float32) * 2 + 3
    up = RNG.standard_normal(x.shape).astype(np.float32)
    w = RNG.standard_normal(5).astype(np.float32)
    b = RNG.standard_normal(5).astype(np.float32)
    inputs = [x, w, b] if affine else [x]
    fn = (lambda t, ww=None, bb=None: F.batch_norm(t, None, None, ww, bb, training=True))
    results = _by_thread_count(threads, [(1, 1 << 40), (2, 64), (3, 64), (3, 64)], fn, inputs, up)
    _assert_same_bits(results[2:])
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
