"""A stand-in for ``kernels._jit`` (kept in its own file so the merge can drop it): the same three names
(``kernel``, ``ready``, ``entry``) for ``optim_updates``, until that module is moved onto the shared loader.

numba is imported at the first ``ready()`` that finds the switch on, never at import; each registered function is
then replaced in its module by ``njit(cache=True, nogil=True, error_model="numpy")`` (no ``parallel=True``: the
callers split work over npgrad's own threads, see ``_parallel``). A missing or failing numba leaves ``ready()``
False for good, and the optimizers run their NumPy code.
"""
import os
import threading

try:  # the shared switch, where it exists
    from ..backends import kernels as _switch
except ImportError:  # pragma: no cover - the branch without npgrad.backends.kernels
    class _switch:  # noqa: N801 - a module stand-in
        enabled = os.environ.get("NPGRAD_KERNELS", "1").strip().lower() not in ("0", "false", "off", "no")

_registered = []
_state = {"numba": None, "errors": ()}
_lock = threading.Lock()


def kernel():
    def register(fn):
        _registered.append((fn.__globals__, fn.__name__, fn))
        return fn
    return register


def ready():
    if not _switch.enabled:
        return False
    nb = _state["numba"]
    if nb is None:
        return _load()
    return nb is not False


def _load():
    with _lock:
        if _state["numba"] is not None:
            return _state["numba"] is not False
        try:
            import numba
            from numba.core.errors import NumbaError
            for module_globals, name, fn in _registered:
                try:
                    compiled = numba.njit(cache=True, nogil=True, error_model="numpy")(fn)
                except RuntimeError:  # no writable cache directory
                    compiled = numba.njit(nogil=True, error_model="numpy")(fn)
                module_globals[name] = compiled
        except Exception:  # noqa: BLE001 - any failure means the NumPy path
            _state["numba"] = False
            return False
        _state["errors"] = (NumbaError,)
        _state["numba"] = numba
        return True


def entry(fn):
    """Answers None (the caller's NumPy path, kernels off for good) when numba fails to compile."""
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if isinstance(exc, _state["errors"]):
                _state["numba"] = False
                return None
            raise
    call.__name__, call.__doc__, call.__wrapped__ = fn.__name__, fn.__doc__, fn
    return call
