"""The process-wide settings PyTorch scripts call at ``torch.*``: BLAS threads, float32 matmul precision,
deterministic algorithms, and ``torch.compile``.

``set_num_threads`` really changes how many threads the BLAS library NumPy calls uses (through
threadpoolctl, an optional package: without it the call says how to get it). npgrad computes float32
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
    if controller is None:
        raise RuntimeError("npgrad.set_num_threads changes NumPy's BLAS threads through threadpoolctl, which is not "
                           "installed: `pip install threadpoolctl`, or set OPENBLAS_NUM_THREADS (or "
                           "OMP_NUM_THREADS / MKL_NUM_THREADS) before starting Python")
    controller.limit(limits=n, user_api="blas")
    _state["threads"] = n


def get_num_threads():
    """The number of threads NumPy's BLAS library uses."""
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


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,  # noqa: A001
            disable=False):
    """``torch.compile``: npgrad has no compiler, so the model or function is returned as it is (and runs as
    it would uncompiled). Usable as ``compile(model)``, ``@compile`` and ``@compile(mode=...)``."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model
