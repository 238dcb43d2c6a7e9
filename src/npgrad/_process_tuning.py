"""Process-wide settings npgrad adjusts at import, each documented in the README and each with an opt-out.

They exist because npgrad's hot path is Python objects, NumPy temporaries and NumPy's BLAS where PyTorch's is
C++ with its own allocator and one thread pool; each only replaces the interpreter's, C library's or BLAS
library's defaults, never a program's own settings.
"""
import builtins
import gc
import os
import sys

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


def tune_blas_spin():
    """OpenBLAS's idle worker threads busy-wait for 2^28 cycles (~0.1 s) after every multi-threaded product
    before they sleep, so in a training step, where products and elementwise work alternate, the second core
    is always taken by a spinning BLAS thread, and elementwise work split over two threads (``_parallel``) ran
    no faster right after a product (GELU of 2048x512 float32: 15.5 ms on two threads against 14.1 on one).
    A 2^20-cycle spin (~0.4 ms) still bridges the gaps between back-to-back products (a shorter one, 2^4, made
    small products wait for sleeping threads: batch-1 MLP inference 0.14 -> 0.17 ms) and frees the core for
    longer elementwise stretches: the GPT benchmark step went 298 -> 250 ms with the splitting it allows.
    OpenBLAS reads the setting when NumPy loads it, so it is made only before the first ``import numpy``,
    only where the environment does not set it already, and not with NPGRAD_BLAS_TUNE=0. Returns whether
    NumPy's BLAS will run with a short spin (set here, or by the environment), which is when splitting pays."""
    if os.environ.get("NPGRAD_BLAS_TUNE", "1") == "0":
        return "OPENBLAS_THREAD_TIMEOUT" in os.environ and "numpy" not in sys.modules
    if "numpy" in sys.modules:  # too late: NumPy's BLAS has read its settings already
        return False
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "20")
    return True


def blas_name():
    """The BLAS library NumPy was built against, from its build configuration ("scipy-openblas", "accelerate",
    ...; "" if unknown)."""
    import numpy  # (loaded by now)
    try:
        return str(numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]).lower()
    except Exception:  # noqa: BLE001 - an unusual build's configuration: treat as unknown
        return ""
