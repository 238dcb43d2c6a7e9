"""Loading the compiled kernels: numba is imported at the first covered call, never by ``import npgrad``.

A kernel is written as a plain Python function over NumPy arrays and scalars and registered with ``@kernel(...)``;
until numba loads it stays that Python function (correct, only slow, and never called by the ops). ``ready()``
imports numba once, then replaces every registered function, in its module's globals, by a numba dispatcher
(``njit(cache=True, nogil=True, error_model="numpy")``), so kernels calling kernels resolve to compiled code, and
the machine code is cached on disk beside the source (a second process loads it instead of compiling).

Threads: no kernel uses numba's ``parallel=True``, so numba never starts a threading layer. Each kernel is
single-threaded and releases the GIL (``nogil``); the callers split rows or columns over npgrad's own thread pool
(``npgrad._parallel``) in pieces that depend only on the array, never on the thread count. That choice, tested in
tests/kernels/test_kernel_processes.py, is what holds in every process model npgrad supports:

- fork (DataLoader workers): numba's OpenMP layer leaves a forked child that calls a parallel kernel dead; its
  TBB layer would add the ``tbb`` wheel (on PyPI) as a second dependency and a third pool of threads beside
  OpenBLAS's and npgrad's. ``_parallel`` already restarts its threads in a forked child.
- Python threads calling kernels at once (hogwild training): numba's workqueue layer aborts the process on
  concurrent use; nogil kernels are plain re-entrant functions, and ``_parallel`` runs a second concurrent split
  on its caller's thread.
- MPI ranks: nothing process-wide to set up; each rank runs its own pool at its own thread count.
- OpenBLAS beside it: no OpenMP runtime, so no spin-waiting threads of a second pool (GNU OpenMP's spin-wait
  gave 8-16 ms stalls on a 0.4 ms kernel under load); ``_parallel`` only splits where npgrad shortened
  OpenBLAS's own idle spin.
- Determinism: a row's (or column's) arithmetic is the same whichever piece holds it, so results are
  bit-identical for any thread count.

When numba is missing, fails to import, or fails to compile a kernel, ``ready()`` turns False for good and
``status()`` says why (shown by ``python -m npgrad info``); the ops run their NumPy code. Never an error.
"""
import importlib
import os
import sys
import threading

from ..backends import kernels as _switch

# Every kernel family module (one per family, beside this one).
FAMILIES = ("attention", "channel_norm", "conv3x3", "gelu", "linear", "norm", "optim_updates", "pooling", "recurrent",
            "relu", "softmax")
_registered = []  # (module globals, name, python function, njit options)
_state = {"numba": None, "reason": None, "errors": ()}  # numba: None untried, False unusable, else the module
_lock = threading.Lock()


def kernel(fastmath=False):
    """Register a numba-compilable function; ``fastmath`` is a set of LLVM flags (never nnan/ninf: the kernels
    keep NaN and inf semantics) or False. (A helper called once per row is an ``overload`` registered in
    ``_load`` instead, inlined: numba's calls between kernels are not inlined by LLVM, and each one costs the
    reference counts of its array arguments.)"""
    def register(fn):
        _registered.append((fn.__globals__, fn.__name__, fn, fastmath))
        return fn
    return register


def ready():
    """Whether the compiled kernels run now: the switch is on and numba is loaded (loading it on the first ask)."""
    if not _switch.enabled:
        return False
    nb = _state["numba"]
    if nb is None:
        return _load()
    return nb is not False


def _intrinsics(numba):
    """Bit casts between equally wide ints and floats (2**k from its exponent bits), vectorisable by LLVM; an
    integer address as a typed pointer (wrapped by ``carray`` into an array)."""
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def int_bits_as_float(typingctx, k):
        if k == types.int32:
            sig, out = types.float32(types.int32), ir.FloatType()
        elif k == types.int64:
            sig, out = types.float64(types.int64), ir.DoubleType()
        else:
            return None
        return sig, lambda context, builder, signature, args: builder.bitcast(args[0], out)

    @intrinsic
    def address_as_pointer(typingctx, address, like):
        # A pointer to ``like``'s element type at an integer address (kernels/optim_updates.py's parameter tables)
        if not (isinstance(address, types.Integer) and isinstance(like, types.Array)):
            return None
        ptr = types.CPointer(like.dtype)
        return ptr(address, like), lambda context, builder, signature, args: builder.inttoptr(
            args[0], context.get_value_type(ptr))

    return {"int_bits_as_float": int_bits_as_float, "address_as_pointer": address_as_pointer,
            "carray": numba.carray}


def _load():
    with _lock:
        if _state["numba"] is not None:
            return _state["numba"] is not False
        # The kernel modules register their functions when imported; import them all before compiling any. (By
        # name: they import this module for ``kernel``, and this is their loader, not a user of their code.)
        for family in FAMILIES:
            importlib.import_module(f"{__package__}.{family}")
        try:
            first = "numba" not in sys.modules
            import numba
            if first:
                _prefer_full_width_vectors(numba)
            from numba.core.errors import NumbaError
            extra = _intrinsics(numba)
            caches = set()
            for module_globals, name, fn, fastmath in _registered:
                module_globals.update({k: v for k, v in extra.items() if k in fn.__code__.co_names})
                module_globals[name] = compiled = _compiled(numba, fn, fastmath)
                caches.add(getattr(getattr(compiled, "_cache", None), "_cache_path", None))
            # (numba compiles at a dispatcher's first call, so stale files go before any kernel runs)
            digest = sources_digest(os.path.dirname(os.path.abspath(__file__)))
            for cache in caches - {None}:
                drop_stale_cache(cache, digest)
            from numba.extending import overload
            from numba import types
            from . import _vecmath
            overload(_vecmath.exp)(lambda x: _vecmath._float_impl("exp", x, types))
            overload(_vecmath.tanh)(lambda x: _vecmath._float_impl("tanh", x, types))
            overload(_vecmath.row_max, inline="always")(lambda r: _vecmath._row_max_for(r, types))
        except Exception as exc:  # noqa: BLE001 - any failure means the NumPy path, with the reason kept
            _give_up(f"numba could not be loaded ({type(exc).__name__}: {exc})")
            return False
        _state["errors"] = (NumbaError,)
        _state["numba"] = numba
        return True


def _prefer_full_width_vectors(numba):
    """On a CPU with AVX-512, let LLVM use its 512-bit vectors. For Intel cores LLVM's default tuning is
    ``prefer-256-bit`` (against the clock drop of older parts), which halves the lanes of every loop here; on the
    Intel Xeon (AVX-512) development VM the 512-bit code measured, best of 6 alternating processes each: the 3x3
    convolution's inner pass 63 -> 84 GFLOPS a thread, exact GELU 16 -> 9 us for 8192 floats, layer norm 76 -> 62 us
    for 512x128, softmax ~10% and the convolution's weight gradient 10-20% faster. Set in numba's config before it
    compiles anything, and only when npgrad is the first to import numba and the user set no NUMBA_CPU_NAME or
    NUMBA_CPU_FEATURES: a process that chose its own numba target keeps it. (The cache is keyed by the features, so
    code compiled either way is never mixed up.)"""
    cfg = numba.core.config
    if cfg.CPU_NAME is not None or cfg.CPU_FEATURES is not None:
        return
    from llvmlite import binding as llvm
    features = llvm.get_host_cpu_features().flatten()
    if "+avx512f" in features.split(","):
        cfg.CPU_NAME = llvm.get_host_cpu_name()
        cfg.CPU_FEATURES = features + ",-prefer-256-bit"


def sources_digest(folder):
    """A digest of every kernel source file in ``folder`` (the kernels package)."""
    import hashlib  # (when numba loads: OpenSSL's load is ~4 ms of a bare ``import npgrad``)
    digest = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()


def drop_stale_cache(cache, digest):
    """Delete numba's cached machine code in the folder ``cache`` unless it was written from kernel sources with
    this ``digest``. numba checks only the compiled function's own file, but a kernel inlines helpers from other
    files (``_vecmath.exp32`` into softmax, GELU, attention): after an edit of one of those, or a ``git pull``
    that touches only it, the cached kernels would go on running the old helper. A folder that cannot be written
    (a read-only install: numba then caches elsewhere or not at all) is left as it is."""
    stamp = os.path.join(cache, "npgrad-kernels.sources")
    try:
        with open(stamp) as f:
            if f.read() == digest:
                return
    except OSError:
        pass
    try:
        os.makedirs(cache, exist_ok=True)
        for name in os.listdir(cache):
            if name.endswith((".nbi", ".nbc")):
                os.remove(os.path.join(cache, name))
        with open(stamp, "w") as f:
            f.write(digest)
    except OSError:
        pass


def _compiled(numba, fn, fastmath):
    options = dict(nogil=True, error_model="numpy", fastmath=fastmath)
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError:  # no writable cache directory (a read-only install, no home): compile in each process
        return numba.njit(**options)(fn)


def _give_up(reason):
    _state["numba"], _state["reason"] = False, reason


def failed(exc):
    """Called by a kernel's caller with the exception a compiled call raised: True (and the kernels off for good,
    the reason kept) when it was numba failing to compile, so the caller runs its NumPy code; False for an
    ordinary error, which the caller re-raises."""
    if isinstance(exc, _state["errors"]):
        _give_up(f"a kernel failed to compile ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})")
        return True
    return False


def entry(fn):
    """A kernel family's entry point: answers None (the caller's NumPy path) when numba fails to compile."""
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if failed(exc):
                return None
            raise
    call.__name__, call.__doc__, call.__wrapped__ = fn.__name__, fn.__doc__, fn
    return call


def status():
    """One line for ``python -m npgrad info``: whether the compiled kernels run, and if not, why."""
    if not _switch.enabled:
        return "off (npgrad.backends.kernels.enabled is False; NPGRAD_KERNELS=0 sets that at startup)"
    if not _switch.is_available():
        return 'not installed: the NumPy path runs (pip install "npgrad[kernels]" adds numba)'
    if _state["numba"] is None:
        return "on (numba loads at the first covered op)"
    if _state["numba"] is False:
        return f"unusable, the NumPy path runs: {_state['reason']}"
    return f"on (numba {_state['numba'].__version__})"
