"""``torch.cuda`` as it behaves in a PyTorch built without CUDA: npgrad computes on the CPU only.

Queries answer honestly (``is_available()`` is False, no devices, no memory in use), seeding and cache
calls do nothing (there is no CUDA generator or cache to touch), and anything that needs a device
raises PyTorch's own error, so a script written for "GPU if available, else CPU" takes its CPU path.
"""

from .. import _tensortype, dtypes as _dtypes

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _no_cuda(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def manual_seed(seed):
    """Seeds every CUDA generator: there are none, so nothing happens (the CPU generator is untouched)."""


def manual_seed_all(seed):
    """As ``manual_seed``: no CUDA generators to seed."""


def seed():
    """As ``manual_seed``: no CUDA generators to seed."""


def seed_all():
    """As ``manual_seed``: no CUDA generators to seed."""


def empty_cache():
    """Frees the CUDA caching allocator's unused memory: there is none."""


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def get_rng_state_all():
    return []


def set_rng_state(new_state, device="cuda"):
    """Sets a CUDA generator's state: with no CUDA generator, PyTorch ignores it too."""


init = synchronize = current_device = get_device_name = get_device_capability = _no_cuda
get_device_properties = get_rng_state = initial_seed = mem_get_info = current_stream = _no_cuda


def _legacy_type(name, dtype_name):
    """``torch.cuda.FloatTensor`` and its kin: names a script can test against or pick between ("cuda if
    available"); constructing one raises PyTorch's error for a build without CUDA, and no tensor is one."""
    def construct(*args, **kwargs):
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled.")

    return _tensortype.make(name, getattr(_dtypes, dtype_name), __name__, True, construct, lambda obj: False)


for _name, _dt_name in [("DoubleTensor", "float64"), ("FloatTensor", "float32"), ("HalfTensor", "float16"),
                        ("BFloat16Tensor", "bfloat16"), ("LongTensor", "int64"), ("IntTensor", "int32"),
                        ("ShortTensor", "int16"), ("CharTensor", "int8"), ("ByteTensor", "uint8"),
                        ("BoolTensor", "bool")]:
    if hasattr(_dtypes, _dt_name):
        globals()[_name] = _legacy_type(_name, _dt_name)
del _name, _dt_name


def __getattr__(name):
    # torch.cuda.amp is reachable as an attribute after `import torch`; it sits on torch.amp's floor, so it is
    # imported on first use rather than from here.
    if name == "amp":
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
