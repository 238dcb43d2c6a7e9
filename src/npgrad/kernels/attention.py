"""The middle of scaled-dot-product attention as one kernel: scale, mask (causal, additive or boolean) and softmax.

Replaces (and is tested against) the composed NumPy path of ``nn.functional.scaled_dot_product_attention``:
``scores * scale``, ``+ mask`` (a boolean mask becomes a -inf/0 bias), then softmax over the last axis. The same
roundings in the same order (a product, a sum), so scores agree within float32 rounding; masked-out positions give
exactly 0 and a fully masked row NaN, as there. Causal rows skip the exp of their masked tail. The backward is
``softmax.softmax_grad`` with the scale folded in.
"""
import numpy as np

from .. import _parallel
from . import _vecmath
from ._jit import entry, kernel


@kernel(fastmath={"reassoc", "contract"})
def _masked_softmax_rows(s, scale, bias, mode, y, lo, hi, zero):
    """Rows lo:hi of (B, L, S) scores ``s``; mode 0 no mask, 1 causal (key j attends for j <= query i), 2 additive
    ``bias`` (Bb, L, S) with Bb 1 or B, 3 boolean ``bias`` (True attends)."""
    L, S = s.shape[1], s.shape[2]
    nb = bias.shape[0]
    neg = -np.inf
    for r in range(lo, hi):
        b, i = r // L, r % L
        sr, yr = s[b, i], y[b, i]
        br = bias[b if nb > 1 else 0, i if bias.shape[1] > 1 else 0]  # (read in modes 2 and 3 only)
        last = min(i + 1, S) if mode == 1 else S
        for j in range(last):
            v = sr[j] * scale
            if mode == 2:
                v = v + br[j]
            elif mode == 3:
                v = v if br[j] else neg
            yr[j] = v
        m = _vecmath.row_max(yr[:last])
        acc = zero
        for j in range(last):  # (a NaN score turns the row NaN here, as in softmax)
            e = _vecmath.exp(yr[j] - m)
            yr[j] = e
            acc += e
        inv = 1 / acc
        for j in range(last):
            yr[j] = yr[j] * inv
        for j in range(last, S):
            yr[j] = 0.0


@entry
def masked_softmax(s, scale, mask, mode):
    """softmax(s * scale + mask) over the last axis of contiguous (..., L, S) scores; ``mask`` an array (Bb, L, S)
    (additive, mode 2, or boolean, mode 3) or None (mode 0, or 1 for causal)."""
    L, S = s.shape[-2:]
    s3 = s.reshape(-1, L, S)
    y = np.empty_like(s3)
    z = s.dtype.type(0)
    scale = s.dtype.type(scale)
    if mask is None:
        mask = np.zeros((1, 1, 1), s.dtype)
    _parallel.split(lambda lo, hi: _masked_softmax_rows(s3, scale, mask, mode, y, lo, hi, z), s3.shape[0] * L, per=S)
    return y.reshape(s.shape)
