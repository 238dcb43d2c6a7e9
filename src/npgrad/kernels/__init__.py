"""npgrad's optional compiled kernels (the ``[kernels]`` extra: numba), one module per kernel family.

Each family's entry points take and return NumPy arrays and answer ``None`` where they do not apply (numba
missing or switched off, a dtype other than float32/float64, a non-contiguous or empty array); the op that calls
them then runs its own NumPy code, which stays the reference the kernels are tested against (tests/kernels/).
The switch is ``npgrad.backends.kernels.enabled`` (environment: ``NPGRAD_KERNELS=0`` turns it off); loading,
caching and the choice of threads are described in ``_jit``.

This floor sits below ``ops``: it imports NumPy and npgrad's ground floor (backends, _parallel) only.
"""
import numpy as np

from ._jit import ready, status  # noqa: F401

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def fits(*arrays):
    """Whether these arrays suit the kernels: plain non-empty C-contiguous NumPy arrays of one float32/float64
    dtype, and the kernels on (numba is loaded here, at the first array that fits)."""
    a = arrays[0]
    dt = a.dtype
    if dt not in _FLOATS or a.size == 0:
        return False
    for b in arrays:
        if type(b) is not np.ndarray or b.dtype != dt or not b.flags.c_contiguous:
            return False
    return ready()
