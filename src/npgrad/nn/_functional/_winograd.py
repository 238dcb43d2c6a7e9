"""Winograd F(2x2, 3x3): a 3x3, stride-1, undilated, ungrouped convolution as 16 batched GEMMs.

Each 2x2 block of outputs is computed from the 4x4 input tile around it: the tile is transformed (``V = Bt d B``),
the kernel is transformed once (``U = G w Gt``), and for each of the 16 transformed positions one GEMM
(O x C) @ (C x tiles) replaces the 9 taps' products: 16 multiplies per 4 outputs instead of 36 (2.25x fewer). The
transforms of the input and the output are additions and subtractions only (Bt and At hold 0 and +-1), done here
on strided views of the whole batch at once, one plane at a time, so there is no per-tile Python work.

The backward is the exact adjoint of the same linear map, sharing one transform of the output gradient:
``dM = A g At`` per 2x2 block, then ``dU = dM @ V^T`` (the weight gradient, carried back by ``Gt dU G``) and
``dV = U^T @ dM`` (the input gradient, carried back by the adjoint of the input transform: an overlap-add of the
4x4 tiles). Against the im2col result the rounding differs (the transforms add several terms before the GEMM and
G's halves scale the kernel): tests/nn/test_winograd.py states and checks the bound.

Layout: channels last. The padded input is laid out (H, W, N, C) by the one copy that pads it, so every
transformed plane is (tile rows, tile cols, N, C): each NumPy operation of the transforms runs over contiguous
runs of N * C elements (not over 2-element strided tile rows), and the GEMM operands reshape to (16, P, C) and
(16, P, O), P = tiles * N, without a copy. One transpose at the end puts the output back in (N, O, H, W).
"""
import os

import numpy as np

from ... import _parallel

# The A/B switch: conv2d takes this path only while ``enabled`` is true (``NPGRAD_WINOGRAD=0`` turns it off at
# startup). It is also taken only for shapes where it measured faster than the im2col paths (see ``fits``).
enabled = os.environ.get("NPGRAD_WINOGRAD", "1").strip().lower() not in ("0", "false", "off", "no")

# Channels from which it pays (1 BLAS thread, CPU-time medians on a noisy 2-core machine, forward+backward of a
# 32-image batch, im2col's fastest path -> this one): 16->16 on 32x32 15 -> 23-25 ms (slower: with few channels
# the transforms' passes over 4x the input outweigh the GEMM saved), 64->64 on 16x16 32-39 -> 32-35 ms, 128->128
# on 8x8 32-34 -> 25-26 ms.
MIN_CHANNELS = 64
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def fits(x, w, geo):
    """Whether conv2d with this input, weight and geometry should take the Winograd path."""
    return (enabled and geo.k == (3, 3) and geo.s == (1, 1) and geo.d == (1, 1) and geo.G == 1
            and x.dtype in _FLOATS and w.dtype == x.dtype and geo.C >= MIN_CHANNELS and w.shape[0] >= MIN_CHANNELS)


# G (4x3) maps a 3-tap kernel row to the 4 transformed positions; Bt and At are applied by hand below.
_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])


def _tiles(size, lo, hi):
    """Tiles per dim and the padded extent they read (2 * tiles + 2, which may pass the padded input by one)."""
    out = size + lo + hi - 2
    t = (out + 1) // 2
    return out, t, 2 * t + 2


def weight_transform(w):
    """(O, C, 3, 3) -> U (16, C, O): G w Gt for every (output, input) channel pair, laid out for V @ U."""
    g = _G.astype(w.dtype)
    u = _parallel.matmul(_parallel.matmul(g, w), g.T)  # (O, C, 4, 4)
    return np.ascontiguousarray(u.transpose(2, 3, 1, 0)).reshape(16, w.shape[1], w.shape[0])


def input_transform(x, pad):
    """x (N, C, H, W), pad ((top, bottom), (left, right)) -> V (16, P, C) and the tile grid (th, tw, Ho, Wo)."""
    N, C, H, W = x.shape
    (pt, pb), (pl, pr) = pad
    Ho, th, Hp = _tiles(H, pt, pb)
    Wo, tw, Wp = _tiles(W, pl, pr)
    xp = np.zeros((Hp, Wp, N, C), x.dtype)
    xp[pt:pt + H, pl:pl + W] = x.transpose(2, 3, 0, 1)  # Hp >= H + pt + pb: the tile grid covers the input
    r = [xp[i:i + 2 * th:2] for i in range(4)]
    rows = (r[0] - r[2], r[1] + r[2], r[2] - r[1], r[1] - r[3])  # Bt along the rows: (th, Wp, N, C) each
    v = np.empty((4, 4, th, tw, N, C), x.dtype)
    for k, t in enumerate(rows):
        c = [t[:, j:j + 2 * tw:2] for j in range(4)]
        np.subtract(c[0], c[2], out=v[k, 0])
        np.add(c[1], c[2], out=v[k, 1])
        np.subtract(c[2], c[1], out=v[k, 2])
        np.subtract(c[1], c[3], out=v[k, 3])
    return v.reshape(16, th * tw * N, C), (th, tw, Ho, Wo)


def output_transform(m, N, grid):
    """M (16, P, O) -> y (N, O, Ho, Wo): At M A per tile, each 2x2 block written into place."""
    th, tw, Ho, Wo = grid
    O = m.shape[2]
    m = m.reshape(4, 4, th, tw, N, O)
    s0 = m[0] + m[1] + m[2]  # (4, th, tw, N, O): the tiles' two output rows, still transformed along columns
    s1 = m[1] - m[2] - m[3]
    y = np.empty((2 * th, 2 * tw, N, O), m.dtype)
    for a, s in enumerate((s0, s1)):
        np.add(s[0] + s[1], s[2], out=y[a::2, 0::2])
        np.subtract(s[1] - s[2], s[3], out=y[a::2, 1::2])
    return np.ascontiguousarray(y[:Ho, :Wo].transpose(2, 3, 0, 1))


def conv3x3(x, w, pad):
    """The forward: (y, V, grid) for x (N, C, H, W), w (O, C, 3, 3); V is kept for the weight gradient."""
    v, grid = input_transform(x, pad)
    m = _parallel.matmul(v, weight_transform(w))
    return output_transform(m, x.shape[0], grid), v, grid


def grad_transform(g, grid):
    """g (N, O, Ho, Wo) -> dM (16, P, O): A g At per 2x2 block (the adjoint of output_transform)."""
    th, tw, Ho, Wo = grid
    N, O = g.shape[:2]
    gt = np.zeros((2 * th, 2 * tw, N, O), g.dtype)
    gt[:Ho, :Wo] = g.transpose(2, 3, 0, 1)
    g0, g1 = gt[0::2], gt[1::2]
    rows = (g0, g0 + g1, g0 - g1, np.negative(g1))
    dm = np.empty((4, 4, th, tw, N, O), g.dtype)
    for k, e in enumerate(rows):
        c0, c1 = e[:, 0::2], e[:, 1::2]
        dm[k, 0] = c0
        np.add(c0, c1, out=dm[k, 1])
        np.subtract(c0, c1, out=dm[k, 2])
        np.negative(c1, out=dm[k, 3])
    return dm.reshape(16, th * tw * N, O)


def input_grad(dv, x_shape, pad, grid):
    """dV (16, P, C) -> dL/dx (N, C, H, W): the adjoint of input_transform (tiles overlap-added)."""
    N, C, H, W = x_shape
    th, tw = grid[:2]
    (pt, _), (pl, _) = pad
    Hp, Wp = 2 * th + 2, 2 * tw + 2
    dv = dv.reshape(4, 4, th, tw, N, C)
    row_parts = []
    for k in range(4):  # the adjoint of Bt along the columns, each row plane overlap-added
        dt = np.zeros((th, Wp, N, C), dv.dtype)
        d = dv[k]
        dt[:, 0:2 * tw:2] += d[0]
        dt[:, 1:1 + 2 * tw:2] += d[1] - d[2] + d[3]
        dt[:, 2:2 + 2 * tw:2] += d[1] + d[2] - d[0]
        dt[:, 3:3 + 2 * tw:2] -= d[3]
        row_parts.append(dt)
    t0, t1, t2, t3 = row_parts
    dxp = np.zeros((Hp, Wp, N, C), dv.dtype)
    dxp[0:2 * th:2] += t0
    dxp[1:1 + 2 * th:2] += t1 - t2 + t3
    dxp[2:2 + 2 * th:2] += t1 + t2 - t0
    dxp[3:3 + 2 * th:2] -= t3
    return np.ascontiguousarray(dxp[pt:pt + H, pl:pl + W].transpose(2, 3, 0, 1))


def backward(g, w, v, x_shape, pad, grid, need_x, need_w):
    """(dL/dx or None, dL/dW or None) from the output gradient g and the forward's V."""
    dm = grad_transform(g, grid)
    gx = gw = None
    if need_x:
        gx = input_grad(_parallel.matmul(dm, weight_transform(w).transpose(0, 2, 1)), x_shape, pad, grid)
    if need_w:
        du = _parallel.matmul(v.transpose(0, 2, 1), dm)  # (16, C, O)
        du = du.reshape(4, 4, *du.shape[1:]).transpose(3, 2, 0, 1)  # (O, C, 4, 4)
        gm = _G.astype(g.dtype)
        gw = _parallel.matmul(_parallel.matmul(gm.T, du), gm)
    return gx, gw
