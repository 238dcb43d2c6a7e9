"""NumPy's floating-point error state while npgrad's own kernels run: every flag ignored.

PyTorch computes overflow to inf, 0/0 and log(0) silently (``torch.tensor([0.]).log()`` is ``-inf`` with no
warning), while NumPy, by default, warns ("RuntimeWarning: divide by zero encountered in log") from deep
inside the kernel; under ``-W error`` or pytest's ``filterwarnings = error`` that warning is an exception.
So an Op's forward and the backward pass run with NumPy's error state set to ignore, and the user's own
state is put back after each: the caller's NumPy code warns (or raises) as the caller set it.

``STATE.set(QUIET)`` returns a token for ``STATE.reset(token)`` and ``STATE.get()`` the state now, like a
``contextvars.ContextVar`` (which it is on NumPy 2, where the error state lives in one; ~0.1 us the set/reset
pair, against ~1.9 us for ``np.errstate``): code that calls back into the user's (an L-BFGS closure) puts the
caller's state back around it.
NumPy 1.26 keeps it per thread in an "error object" list, wrapped here in the same two calls.
"""
import functools

import numpy as np

try:
    from numpy._core.umath import _extobj_contextvar as STATE, _make_extobj
    QUIET = _make_extobj(all="ignore")
except ImportError:  # NumPy 1.x
    class _ErrorObject:
        """NumPy 1.x's per-thread error object behind ContextVar's set/reset."""

        @staticmethod
        def get():
            return np.geterrobj()[1]

        @staticmethod
        def set(value):
            old = np.geterrobj()
            np.seterrobj([old[0], value, old[2]])
            return old

        @staticmethod
        def reset(old):
            np.seterrobj(old)

    STATE = _ErrorObject()
    QUIET = 0  # the error mask: every category "ignore"


def call_with(state, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` under NumPy error state ``state`` (QUIET, or a caller's from ``STATE.get()``),
    the state before put back afterwards."""
    fp = STATE.set(state)
    try:
        return fn(*args, **kwargs)
    finally:
        STATE.reset(fp)


def quiet(fn):
    """``fn`` run with NumPy's floating-point flags ignored (npgrad's own array code outside an Op: a cast
    while a tensor is built or written, a norm, an optimizer update), the caller's state back afterwards."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        return call_with(QUIET, fn, *args, **kwargs)
    return run
