"""Strong-Wolfe line search along a direction, with safeguarded cubic interpolation between trial steps.

Scalars that PyTorch keeps as 0-d tensors (directional derivatives, steps derived from them) are NumPy
scalars in the parameters' dtype here; NumPy's rules for a Python float meeting a float32 scalar are
PyTorch's for a Python float meeting a 0-d tensor, so the same numbers come out in float32 too.
"""
import numpy as np


def _rdiv(a, b):
    # PyTorch computes ``number / tensor`` as ``tensor.reciprocal() * number``.
    if isinstance(b, np.generic) and not isinstance(a, np.generic):
        return np.reciprocal(b) * a
    return a / b


def cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser, clipped to ``bounds`` (default: between x1 and x2), of the cubic through two points
    with values f and slopes g; the bounds' midpoint when that cubic has no real stationary point."""
    if bounds is None:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    else:
        lo, hi = bounds
    d1 = g1 + g2 - _rdiv(3 * (f1 - f2), x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc >= 0:
        d2 = np.sqrt(disc)
        if x1 <= x2:
            x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(x, lo), hi)
    return (lo + hi) / 2.0


def strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Find a step ``t`` along ``d`` with sufficient decrease (``f(t) <= f + c1 t gtd``) and small slope
    (``|g(t).d| <= -c2 gtd``). ``evaluate(t)`` returns ``(loss, flat gradient)`` at ``x + t d``.

    Phase 1 grows the step (extrapolating with the cubic) until an interval is known to hold such a point;
    phase 2 shrinks that interval by cubic interpolation. Returns ``(f, g, t, evaluations)``.
    """
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, b_f, b_g, b_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, b_f, b_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, b_f, b_g, b_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # extrapolate: the cubic's minimiser, at least 1% beyond t and at most 10 t
        t_next = cubic_minimizer(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                 bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.copy(), gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, b_f, b_g = [0, t], [f, f_new], [g, g_new]

    low, high = (0, 1) if b_f[0] <= b_f[-1] else (1, 0)
    stalled = False
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_minimizer(bracket[0], b_f[0], b_gtd[0], bracket[1], b_f[1], b_gtd[1])
        # Keep the trial point away from the interval's ends: when the last shrink was small, or t sits
        # on or outside an end, move it to 10% of the width inside.
        top, bottom = max(bracket), min(bracket)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= b_f[low]:
            bracket[high], b_f[high], b_g[high], b_gtd[high] = t, f_new, g_new.copy(), gtd_new
            low, high = (0, 1) if b_f[0] <= b_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], b_f[high], b_g[high], b_gtd[high] = bracket[low], b_f[low], b_g[low], b_gtd[low]
            bracket[low], b_f[low], b_g[low], b_gtd[low] = t, f_new, g_new.copy(), gtd_new
    return b_f[low], b_g[low], bracket[low], evals
