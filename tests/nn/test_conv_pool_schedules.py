"""The array-only schedules of convolution and pooling kernels (chunked over the batch, long runs, bit writes) against
the general whole-batch kernels they re-schedule: the results must be identical bit for bit."""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.nn._functional import conv as C

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def numpy_schedules(monkeypatch):
    """These are the NumPy schedules' bits; the compiled kernels (the [kernels] extra) that take some of the same
    convolutions agree within rounding: tests/kernels/test_conv3x3.py."""
    monkeypatch.setattr(npgrad.backends.kernels, "enabled", False)

CONVS = [  # (input shape, weight shape, stride, padding, dilation, groups)
    ((5, 4, 9, 8), (6, 4, 3, 3), 1, 1, 1, 1),
    ((5, 4, 9, 8), (6, 2, 3, 2), (2, 1), (0, 2), (1, 2), 2),
    ((3, 2, 11), (4, 2, 5), 2, 2, 1, 1),
    ((2, 2, 5, 6, 4), (3, 2, 2, 3, 2), 1, 1, (2, 1, 1), 1),
    ((3, 4, 7, 9), (4, 2, 4, 3), 1, "same", (2, 1), 2),  # uneven padding before and after
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CONVS)))
@pytest.mark.parametrize("chunk", [1, 40, 1 << 18])
def test_chunked_input_grad_is_bit_identical(case, chunk, dtype, monkeypatch):
    xs, ws, stride, padding, dilation, groups = CONVS[case]
    conv = (F.conv1d, F.conv2d, F.conv3d)[len(xs) - 3]
    x, w = RNG.standard_normal(xs).astype(dtype), RNG.standard_normal(ws).astype(dtype)
    out = conv(npgrad.tensor(x), npgrad.tensor(w), None, stride, padding, dilation, groups)
    up = RNG.standard_normal(tuple(out.shape)).astype(dtype)
    monkeypatch.setattr(C, "_CHUNK_FLOATS", chunk)
    monkeypatch.setattr(C, "_RUN_COLS", chunk)  # _input_grad_channel_runs' chunks: 1 image, a few, the whole batch
    xt = npgrad.tensor(x, requires_grad=True)
    conv(xt, npgrad.tensor(w), None, stride, padding, dilation, groups).backward(npgrad.tensor(up))
    # the whole-batch formula: one batched GEMM to window gradients, then col2im
    G, O = groups, ws[0]
    n = len(xs) - 2
    geo = C._conv_args(npgrad.tensor(x), npgrad.tensor(w), None, stride, padding, dilation, groups, n, "conv")[2]
    g4 = up.reshape(xs[0], G, O // G, -1)
    w3 = w.reshape(G, O // G, -1)
    if G == 1 and all(st == 1 for st in geo.s) and n > 1:
        expected = _row_ordered_col2im(w3, up, geo)
    else:
        expected = C.col2im(np.swapaxes(w3, 1, 2) @ g4, geo)
    assert xt.grad.dtype == (npgrad.float32 if dtype == np.float32 else npgrad.float64)
    assert np.array_equal(xt.grad.numpy(), expected)
    assert xt.grad.numpy().tobytes() == np.ascontiguousarray(expected).tobytes()


def _row_ordered_col2im(w3, up, geo):
    """The whole-batch formula as _input_grad_channel_runs evaluates its GEMM: rows ordered (offset, channel) and
    g on the wide grid (each output row padded to the padded image's width). BLAS rounds an entry by its row's and
    column's places in its blocks, so this is the formula the schedule must equal bit for bit; the windows are then
    put back in (channel, offset) order for col2im."""
    N, O, C_ = up.shape[0], up.shape[1], geo.C
    K = int(np.prod(geo.k))
    gp = np.zeros((N, O) + geo.out[:1] + geo.psize[1:], up.dtype)
    gp[(Ellipsis,) + tuple([slice(0, o) for o in geo.out[1:]])] = up
    cols = C._plane_rows(w3, C_, K) @ gp.reshape(N, O, -1)
    cols = cols.reshape((N, K * C_) + geo.out[:1] + geo.psize[1:])[(Ellipsis,) + tuple([slice(0, o) for o in geo.out[1:]])]
    cols = cols.reshape(N, K, C_, -1).transpose(0, 2, 1, 3).reshape(N, 1, C_ * K, -1)
    return C.col2im(cols, geo)


POOLS = [  # (input shape, kernel, stride, padding, dilation): disjoint windows, then overlapping ones
    ((4, 3, 12, 12), (2, 2), (2, 2), (0, 0), (1, 1)),
    ((4, 3, 13, 11), (3, 2), (3, 2), (1, 1), (1, 1)),
    ((4, 3, 13, 11), (3, 3), (2, 2), (1, 1), (1, 1)),
    ((4, 3, 9, 9), (2, 2), (2, 2), (0, 0), (2, 2)),
]


def _windows(xp, geo):
    return [xp[sl] for _, sl in C.offset_slices(geo)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("case", range(len(POOLS)))
def test_max_pool_winners_and_scatter_match_their_definitions(case, dtype):
    from npgrad.nn._functional import pooling as PL
    shape, k, s, p, d = POOLS[case]
    x = RNG.integers(-2, 3, shape).astype(dtype)  # many ties: the first offset holding the max wins
    out = tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, ss, pp, dd in zip(shape[2:], k, s, p, d))
    geo = C.geometry(shape[0], shape[1], shape[2:], k, s, d, p, p, out, 1)
    values, arg = PL._max_pool_np(x, geo)
    low = np.iinfo(dtype).min if dtype == np.int32 else -np.inf
    stacked = np.stack(_windows(C._padded(x, geo, low), geo))
    assert np.array_equal(arg, np.argmax(stacked, axis=0))
    assert np.array_equal(values, stacked.max(0))
    if dtype == np.int32:
        return
    g = RNG.standard_normal(values.shape).astype(dtype)
    g.flat[:3] = [-0.0, np.nan, -np.inf]
    expected = np.zeros(tuple(shape[:2]) + geo.psize, dtype)
    for i, sl in enumerate(s_ for _, s_ in C.offset_slices(geo)):
        expected[sl] += np.where(arg == i, g, 0)
    got = PL._scatter_np(g, arg, geo)
    assert got.tobytes() == np.ascontiguousarray(C._cropped(expected, geo)).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cols", [1, 300, 1 << 20])
def test_channel_runs_input_grad_is_the_row_ordered_formula(cols, dtype, monkeypatch):
    # LeNet's second conv at batch 6: 400 GEMM rows, where the (offset, channel) row order rounds differently
    # from (channel, offset). The channel-run schedule must equal col2im over its own row order bit for bit (any
    # chunking), and the per-channel formula within rounding.
    x, w = RNG.standard_normal((6, 16, 14, 14)).astype(dtype), RNG.standard_normal((32, 16, 5, 5)).astype(dtype)
    up = RNG.standard_normal((6, 32, 10, 10)).astype(dtype)
    monkeypatch.setattr(C, "_RUN_COLS", cols)
    calls = []
    real = C._input_grad_channel_runs
    monkeypatch.setattr(C, "_input_grad_channel_runs", lambda *a: calls.append(1) or real(*a))
    xt = npgrad.tensor(x, requires_grad=True)
    F.conv2d(xt, npgrad.tensor(w)).backward(npgrad.tensor(up))
    assert calls, "the backward did not take the channel-run schedule"
    geo = C._conv_args(npgrad.tensor(x), npgrad.tensor(w), None, 1, 0, 1, 1, 2, "conv")[2]
    w3 = w.reshape(1, 32, -1)
    expected = _row_ordered_col2im(w3, up, geo)
    assert xt.grad.numpy().tobytes() == np.ascontiguousarray(expected).tobytes()
    plain = C.col2im(np.swapaxes(w3, 1, 2) @ up.reshape(6, 1, 32, -1), geo)
    np.testing.assert_allclose(xt.grad.numpy(), plain, rtol=0, atol=64 * np.finfo(dtype).eps * np.abs(plain).max())
