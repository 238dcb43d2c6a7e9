"""npgrad: PyTorch's API for tensors, autograd and neural networks, on NumPy alone.

``import npgrad as torch`` runs ordinary PyTorch CPU training code.
"""
from . import _process_tuning  # first: one of its settings must be made before NumPy loads its BLAS library

_BLAS_SPIN_SHORT = _process_tuning.tune_blas_spin()

from . import dtypes as _dtypes
from .dtypes import (dtype, float16, float32, float64, int8, int16, int32, int64, uint8, bool, half, float,  # noqa: A004
                     double, short, int, long, complex64, complex128, cfloat, cdouble, get_default_dtype, set_default_dtype, promote_types, result_type,
                     can_cast, bfloat16, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu,
                     is_autocast_enabled, get_autocast_dtype, set_autocast_enabled, set_autocast_dtype)
from .tensor import Tensor, Size, Device as device  # noqa: F401
from .autograd import no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode  # noqa: F401
from .autograd import is_inference_mode_enabled  # noqa: F401
from .autograd.anomaly import is_anomaly_enabled, is_anomaly_check_nan_enabled, set_anomaly_enabled  # noqa: F401
from . import autograd  # noqa: F401
from . import ops  # noqa: F401
from .ops import *  # noqa: F401,F403
from .factories import *  # noqa: F401,F403
from . import factories  # noqa: F401
from .random import Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state, default_generator  # noqa
from .random import thread_safe_generator  # noqa: E402,F401
from .tensor import set_default_device, get_default_device  # noqa: E402,F401
from ._tensor_str import set_printoptions, get_printoptions  # noqa: E402,F401
from ._torch_alias import alias_torch  # noqa: E402,F401
from . import _nn_spellings  # noqa: E402  (torch.conv2d ...: nn.functional's functions, loaded on first use)
from ._runtime import (set_num_threads, get_num_threads, set_float32_matmul_precision,  # noqa: E402,F401
                       get_float32_matmul_precision, use_deterministic_algorithms,
                       are_deterministic_algorithms_enabled, is_deterministic_algorithms_warn_only_enabled, compile,
                       get_num_interop_threads, set_num_interop_threads, set_warn_always, is_warn_always_enabled,
                       set_default_tensor_type,
                       set_deterministic_debug_mode, get_deterministic_debug_mode, init_num_threads)

from ._legacy_types import *  # noqa: E402,F401,F403  (FloatTensor, ...; set_default_tensor_type taking them)
from .torch_version import __version__  # noqa: E402  "2.13.0+npgrad.0.1.0": see npgrad.torch_version
from math import inf, nan, pi, e  # noqa: E402,F401  (torch.inf, ...: the same Python floats)
newaxis = None
has_lapack, has_spectral, has_mkl, has_openmp = True, True, False, False  # NumPy's LAPACK and FFT; no MKL/OpenMP



_process_tuning.tune_gc()
_process_tuning.tune_malloc()
from . import _parallel  # noqa: E402
_parallel.ENABLED = _BLAS_SPIN_SHORT and "openblas" in _process_tuning.blas_name()

from ._layout import (layout, memory_format, strided, contiguous_format, preserve_format, channels_last,  # noqa: E402
                      channels_last_3d, legacy_contiguous_format)
from ._layout import sparse_coo, sparse_csr  # noqa: E402


# Subpackages and the serialization functions load on first use (`npgrad.nn`, `from npgrad import optim`,
# `npgrad.save`), so `import npgrad` costs little more than importing NumPy.
_LAZY_MODULES = {"nn", "optim", "utils", "distributions", "datasets", "viz", "linalg", "special", "return_types",
                 "serialization", "cuda", "mps", "backends", "amp", "func", "distributed", "onnx", "fft", "version",
                 "accelerator", "testing", "multiprocessing", "profiler", "sparse", "jit", "cpu", "functional",
                 "futures", "signal", "types", "hub"}
_LAZY_ATTRS = {"windows": "signal", "save": "serialization", "load": "serialization", "autocast": "amp", "vmap": "func",
               "finfo": "_finfo", "iinfo": "_finfo",
               "sparse_coo_tensor": "sparse", "sparse_csr_tensor": "sparse", "spmm": "sparse"}
# torch.lstm, torch.gru_cell, ...: the recurrent kernels nn.LSTM and its kin call.
_LAZY_ATTRS.update({k: "nn._functional.rnn" for k in ("lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell",
                                                       "rnn_tanh_cell", "rnn_relu_cell")})


# `from npgrad import *`: the operators the registry declares (the lazily loaded families' too), the
# factories, dtypes, grad modes and random state, as torch.__all__ lists them; not the subpackages.
__all__ = sorted(set(ops._registry.OPS) | set(ops.LAZY_NAMES) | set(factories.__all__) | set(_LAZY_ATTRS) |
                 _nn_spellings.NAMES | {
    n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(_dtypes))})


def __getattr__(name):
    import importlib
    if name in ops.LAZY_NAMES:
        ops.load_lazy_families()
        value = ops._registry.OPS[name].public_fn
        globals()[name] = value
        return value
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_ATTRS:
        value = getattr(importlib.import_module(f".{_LAZY_ATTRS[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _nn_spellings.NAMES:
        value = globals()[name] = _nn_spellings.resolve(name)
        return value
    raise AttributeError(f"module 'npgrad' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_ATTRS) | set(ops.LAZY_NAMES) | _nn_spellings.NAMES)
