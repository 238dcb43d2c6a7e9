"""The thread count of the OpenBLAS library NumPy loaded, read and set through its own C entry points.

While npgrad splits work over its own threads (``_parallel.split``: large elementwise work, large batched
products, a convolution's images, a recurrent layer's batch rows), each piece's BLAS calls must run on one
thread: left at OpenBLAS's count, every piece would start OpenBLAS's workers too, whose threads meet at spinning
barriers and contend with the other pieces for the cores. So a split sets the count to 1 for its duration and
then puts it back (two calls of ~0.3 us; measured: a 128x784 @ 784x512 float32 product right after the count
went 1 -> 2 took what it takes without the change). Outside npgrad's splits OpenBLAS keeps its own threads,
whose spinning hand-off is what mid-sized products (an MLP's layers, batch-1 inference) want: npgrad's own
hand-off, a lock each way and the GIL, costs 40-75 us on the 2-core VM.

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


def single():
    """Make BLAS calls single-threaded; returns the count to give back to ``restore`` (0: nothing changed)."""
    fns = _functions()
    if not fns:
        return 0
    n = fns[1]()
    if n > 1:
        fns[0](1)
        return n
    return 0


def restore(n):
    if n:
        _functions()[0](n)


def count():
    """The BLAS library's thread count now (1 where it cannot be read)."""
    fns = _functions()
    return fns[1]() if fns else 1


def set_count(n):
    fns = _functions()
    if fns:
        fns[0](int(n))
