"""The process-wide settings PyTorch scripts call at ``torch.*``: BLAS threads, float32 matmul precision,
deterministic algorithms, and ``torch.compile``.

``set_num_threads`` really changes how many threads the BLAS library NumPy calls uses, through
threadpoolctl (the `[threads]` extra, also installed by `[test]`; where it is missing, the call records the number, warns
once that the BLAS threads stay as the environment set them, and never fails a program). npgrad computes float32
matmuls at full precision and is deterministic by construction, so those two settings are recorded
and reported back exactly as PyTorch does, and change no result. npgrad has no compiler: ``compile``
returns the model or function itself, so a compiled script runs, with identical results.
"""
import os
import warnings

_state = {"matmul_precision": "highest", "deterministic": False, "warn_only": False, "threads": None}


def _threadpool_controller():
    try:
        import threadpoolctl  # optional
    except ImportError:
        return None
    return threadpoolctl.ThreadpoolController()


def set_num_threads(int):  # noqa: A002 - PyTorch's parameter name
    """Use ``int`` threads in the BLAS library behind NumPy's matrix products."""
    n = int.__index__()
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    controller = _threadpool_controller()
    if controller is not None:
        controller.limit(limits=n, user_api="blas")
    elif n != get_num_threads():
        # A PyTorch program must not die on this call: elementwise work (npgrad._parallel) still follows n.
        warn_once("set_num_threads", "npgrad.set_num_threads could not change the BLAS library's threads: "
                  "threadpoolctl is not installed (`pip install \"npgrad[threads]\"`); matrix "
                  "products keep the count OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS set at startup")
    _state["threads"] = n


def get_num_threads():
    """The number of threads NumPy's BLAS library uses (without threadpoolctl: the last ``set_num_threads``
    value, else the environment's, else the CPU count)."""
    controller = _threadpool_controller()
    if controller is not None:
        counts = [info["num_threads"] for info in controller.info() if info.get("user_api") == "blas"]
        if counts:
            return max(counts)
    if _state["threads"] is not None:
        return _state["threads"]
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        if os.environ.get(var, "").isdigit() and int(os.environ[var]) > 0:
            return int(os.environ[var])
    return os.cpu_count() or 1


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """``use_deterministic_algorithms`` by number or name: 0/"default" off, 1/"warn" on with warn_only,
    2/"error" on."""
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2, as ``set_deterministic_debug_mode`` takes them."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def init_num_threads():
    """PyTorch's per-thread setup for a new thread. The BLAS thread count set by ``set_num_threads`` is
    process-wide in the libraries threadpoolctl controls, so a new thread already uses it: nothing to do."""
    return None


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,  # noqa: A001
            disable=False):
    """``torch.compile``: npgrad has no compiler, so the model or function is returned as it is (and runs as
    it would uncompiled), with a one-time notice saying so. Usable as ``compile(model)``, ``@compile`` and
    ``@compile(mode=...)``."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if not disable:  # said once: a script timing its compiled model should know nothing was compiled
        warn_once("compile", "torch.compile: npgrad has no compiler, so the model or function is returned "
                  "unchanged (it runs eagerly, with the same results)")
    return model


_warned = set()


def set_warn_always(b, /):
    """Make the warnings PyTorch gives once per process (set_default_tensor_type's, frombuffer's) warn on
    every call."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state["warn_always"] = b


def is_warn_always_enabled():
    return _state.get("warn_always", False)


def warn_once(key, message, stacklevel=3):
    """PyTorch's TORCH_WARN_ONCE: the first time in the process, or every time under set_warn_always(True)."""
    if key in _warned and not is_warn_always_enabled():
        return
    _warned.add(key)
    warnings.warn(message, UserWarning, stacklevel=stacklevel)


def get_num_interop_threads():
    """Threads PyTorch would use for inter-op parallelism; npgrad runs one operator at a time, so this is
    only the recorded setting (PyTorch's default: the number of CPUs)."""
    return _state.get("interop_threads") or os.cpu_count() or 1


def set_num_interop_threads(int, /):  # noqa: A002 - PyTorch's parameter name
    n = int.__index__()
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if "interop_threads" in _state:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["interop_threads"] = n


_FLOAT_TENSOR_TYPES = {"torch.FloatTensor": "float32", "torch.DoubleTensor": "float64", "torch.HalfTensor": "float16"}
_OTHER_TENSOR_TYPES = {"torch.LongTensor", "torch.IntTensor", "torch.ShortTensor", "torch.CharTensor",
                       "torch.ByteTensor", "torch.BoolTensor"}


def set_default_tensor_type(t, /):
    """Deprecated in PyTorch: ``set_default_dtype`` by the legacy type's name ("torch.DoubleTensor")."""
    from . import dtypes
    if isinstance(t, str):
        head, _, attr = t.rpartition(".")
        if t in _FLOAT_TENSOR_TYPES:
            warn_once("set_default_tensor_type", "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, "
                      "please use torch.set_default_dtype() and torch.set_default_device() as alternatives.")
            dtypes.set_default_dtype(getattr(dtypes, _FLOAT_TENSOR_TYPES[t]))
            return
        if t in _OTHER_TENSOR_TYPES:
            raise TypeError("only floating-point types are supported as the default type")
        if head == "torch.cuda":
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        if head == "torch":
            raise AttributeError(f"module 'torch' has no attribute '{attr}'")
        import importlib
        importlib.import_module(t.split(".")[0])  # PyTorch imports the named module first
    raise TypeError("invalid type object: only floating-point types are supported as the default type")
