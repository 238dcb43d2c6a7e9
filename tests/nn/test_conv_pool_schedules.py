"""The array-only schedules of convolution and pooling kernels (chunked over the batch, reshaped windows) against
the general whole-batch kernels they re-schedule: the results must be identical bit for bit."""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.nn._functional import conv as C

RNG = np.random.default_rng(7)

CONVS = [  # (input shape, weight shape, stride, padding, dilation, groups)
    ((5, 4, 9, 8), (6, 4, 3, 3), 1, 1, 1, 1),
    ((5, 4, 9, 8), (6, 2, 3, 2), (2, 1), (0, 2), (1, 2), 2),
    ((3, 2, 11), (4, 2, 5), 2, 2, 1, 1),
    ((2, 2, 5, 6, 4), (3, 2, 2, 3, 2), 1, 1, (2, 1, 1), 1),
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
    xt = npgrad.tensor(x, requires_grad=True)
    conv(xt, npgrad.tensor(w), None, stride, padding, dilation, groups).backward(npgrad.tensor(up))
    # the whole-batch formula: one batched GEMM to window gradients, then col2im
    G, O = groups, ws[0]
    n = len(xs) - 2
    geo = C._conv_args(npgrad.tensor(x), npgrad.tensor(w), None, stride, padding, dilation, groups, n, "conv")[2]
    g4 = up.reshape(xs[0], G, O // G, -1)
    w3 = w.reshape(G, O // G, -1)
    expected = C.col2im(np.swapaxes(w3, 1, 2) @ g4, geo)
    assert xt.grad.dtype == (npgrad.float32 if dtype == np.float32 else npgrad.float64)
    assert np.array_equal(xt.grad.numpy(), expected)
    assert xt.grad.numpy().tobytes() == np.ascontiguousarray(expected).tobytes()
