"""The thread count of the OpenBLAS library NumPy loaded, read and set through its own C entry points.

npgrad runs a training step on one pool of threads, as PyTorch does: its own (``_parallel``), which splits large
matrix products (``_parallel.matmul``) as well as elementwise work, each piece a single-threaded BLAS call. So
at import npgrad sets OpenBLAS's own count to 1 (``_parallel.take_over``) and keeps the count it had as its own.
Left multi-threaded, OpenBLAS's workers busy-wait after every product and take the core the next elementwise
split needs, and its threads meet at spinning barriers, so one core taken by another process slowed a 512^3
float32 product from 1.5 to 23 ms (two threads of it), where npgrad's pieces, which wait on locks, take what a
single thread takes (5 ms). Setting the count each time around a split instead is no cheaper: OpenBLAS stops and
restarts its workers when the count moves.

Found by scanning the process's mapped libraries (Linux only) for the OpenBLAS NumPy loaded, without
threadpoolctl (whose query costs milliseconds); where there is none (another BLAS, another OS), ``available()``
is False and npgrad leaves products to the BLAS library.
"""
import ctypes

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
            "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads", "openblas_get_num_threads64_",
            "openblas_get_num_threads")

_fns = None  # (setter, getter) once looked up; () where none was found


def _openblas_paths():
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    paths = []
    for line in lines:
        path = line.split(None, 5)[-1] if line.count(" ") >= 5 else ""
        if "openblas" in path.lower() and ".so" in path and path not in paths:
            paths.append(path)
    return paths


def _lookup():
    import numpy  # noqa: F401 - its BLAS must be loaded before the scan
    for path in _openblas_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        setter = next((getattr(lib, n) for n in _SETTERS if hasattr(lib, n)), None)
        getter = next((getattr(lib, n) for n in _GETTERS if hasattr(lib, n)), None)
        if setter is not None and getter is not None:
            setter.argtypes, setter.restype = [ctypes.c_int], None
            getter.argtypes, getter.restype = [], ctypes.c_int
            return setter, getter
    return ()


def _functions():
    global _fns
    if _fns is None:
        _fns = _lookup()
    return _fns


def available():
    """Whether npgrad can set the BLAS library's thread count."""
    return bool(_functions())


def count():
    """The BLAS library's thread count now (1 where it cannot be read)."""
    fns = _functions()
    return fns[1]() if fns else 1


def set_count(n):
    fns = _functions()
    if fns:
        fns[0](int(n))
