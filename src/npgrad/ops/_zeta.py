"""The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s in NumPy (float64), with PyTorch's domain.

The first terms are summed directly until q + N >= max(20, s + 20); the rest is the Euler-Maclaurin formula
    sum_(k>=N) (q+k)^-s = y^(1-s) / (s - 1) + y^-s / 2 + sum_j B_2j / (2j)! s (s+1)...(s+2j-2) y^(-s-2j+1)
at y = q + N, with ten Bernoulli terms: the j-th term relative to the first is about
2 (s)_2j / (2 pi y)^2j, below 1e-16 for y >= max(20, s + 20).
"""
import numpy as np

# B_2j for j = 1..10
_B = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)
_SHIFT_TO = 20.0


def _regular(s, q):
    """zeta(s, q) for s > 1 finite and q finite, not a non-positive integer (a negative q needs an integer s)."""
    y = q.copy()
    acc = np.zeros_like(q)
    # Shift to y >= max(20, s + 20), where the Euler-Maclaurin terms fall fast, unless the direct terms
    # have already become negligible (large s), which then ends the sum with no tail at all.
    target = np.maximum(_SHIFT_TO, s + 20)
    done = np.zeros(q.shape, bool)
    with np.errstate(all="ignore"):
        while True:
            m = (y < target) & ~done
            if not m.any():
                break
            term = np.where(m, np.where(m, y, 1.0) ** -s, 0.0)
            acc += term
            y = y + m
            done |= m & (np.abs(term) <= 1e-18 * np.abs(acc)) & (y > 0)
        tail = y ** (1 - s) / (s - 1) + 0.5 * y ** -s
        term = s * y ** (-s - 1)          # j = 1: s y^-(s+1)
        fact = 2.0                        # (2j)!
        for j in range(1, len(_B) + 1):
            tail = tail + _B[j - 1] / fact * term
            term = term * (s + 2 * j - 1) * (s + 2 * j) / (y * y)
            fact *= (2 * j + 1) * (2 * j + 2)
    return acc + np.where(done, 0.0, tail)


def _negative_q(s, q):
    """zeta(s, q) for an integer s and a negative non-integer q, without summing its ~|q| negative terms one
    by one: with m = -q, N = ceil(m) and r = m - N + 1 in (0, 1) (both exact), the terms k < N are
    (-1)^s (zeta(s, r) - zeta(s, m + 1)) and the rest is zeta(s, q + N) = zeta(s, 1 - r)."""
    m = -q
    r = m - np.ceil(m) + 1
    a, b, c = _regular(s, r), _regular(s, 1 - r), _regular(s, m + 1)
    odd = (s % 2) == 1
    # (grouped so that r = 1/2, where the first two are equal, cancels exactly)
    return np.where(odd, (b - a) + c, (a + b) - c)


def zeta(s, q):
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    out = np.full(s.shape, np.nan)
    with np.errstate(invalid="ignore"):
        pole_q = (q <= 0) & (q == np.floor(q))
        ok = (s > 1) & np.isfinite(s) & np.isfinite(q) & ~pole_q & ((q > 0) | (s == np.floor(s)))
        pos = ok & (q > 0)
        if pos.any():
            out[pos] = _regular(s[pos], q[pos])
        neg = ok & (q < 0)
        if neg.any():
            out[neg] = _negative_q(s[neg], q[neg])
        # s = inf: q^-inf is inf below 1, 1 at 1; beyond, PyTorch's Euler-Maclaurin gives 0 * inf = NaN
        inf_s = (s == np.inf) & (q > 0)
        out = np.where(inf_s, np.where(q < 1, np.inf, np.where(q == 1, 1.0, np.nan)), out)
        out = np.where(pole_q & ~(s < 1), np.inf, out)
        out = np.where(s == 1, np.inf, out)
        out = np.where(s < 1, np.nan, out)
    return out
