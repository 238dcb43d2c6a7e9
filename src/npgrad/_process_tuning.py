"""Process-wide settings npgrad adjusts at import, each documented in the README and each with an opt-out.

Both exist because npgrad's hot path is Python objects and NumPy temporaries where PyTorch's is C++ with
its own allocator; both only replace the interpreter's or C library's defaults, never a program's own
settings.
"""
import builtins
import gc
import os

_MiB = 1 << 20


def tune_gc():
    """npgrad's autograd graph is made of Python objects (PyTorch's lives in C++). With CPython's default
    collector settings (a young-generation pass every 700 allocations) every growing graph is walked
    again and again by full collections: building a 100k-op graph took superlinear time. A larger first
    threshold keeps the collector's work proportional to the graph. Only the interpreter's default is
    changed (a program that set its own thresholds keeps them); NPGRAD_GC_THRESHOLD sets the value, and
    NPGRAD_GC_THRESHOLD=0 leaves the interpreter's settings alone."""
    value = builtins.int(os.environ.get("NPGRAD_GC_THRESHOLD", "10000"))
    t0, t1, t2 = gc.get_threshold()
    if value > 0 and t0 == 700:
        gc.set_threshold(value, t1, t2)


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_USER_MALLOC_SETTINGS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_",
                         "GLIBC_TUNABLES")


def tune_malloc():
    """A training step allocates and frees tens of MiB of NumPy temporaries. glibc's defaults hand the free
    top of the heap back to the OS once it exceeds 2x the (dynamic, at most 32 MiB) mmap threshold, so the
    next step takes a page fault for every 4 KiB it touches again: 3,400 faults per LeNet step and 22,000
    per GPT step here, 40-60% of their time. Keeping up to 256 MiB of freed heap for reuse (arrays above
    32 MiB are still mmapped and returned on free, as glibc's own dynamic threshold does) removes them,
    without changing peak memory. Skipped where the C library is not glibc, where the environment already
    sets malloc's parameters, and with NPGRAD_MALLOC_TUNE=0. Returns whether the settings were applied."""
    if os.environ.get("NPGRAD_MALLOC_TUNE", "1") == "0" or any(k in os.environ for k in _USER_MALLOC_SETTINGS):
        return False
    try:
        import ctypes  # (already imported by NumPy)
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only: other C libraries' mallopt means something else or nothing
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    # Setting either parameter turns glibc's dynamic threshold off, so both are set.
    return builtins.bool(mallopt(_M_MMAP_THRESHOLD, 32 * _MiB)) and builtins.bool(mallopt(_M_TRIM_THRESHOLD, 256 * _MiB))
