"""``torch.tensortype``: the type of the legacy typed-tensor classes (``torch.FloatTensor``, ``torch.cuda.LongTensor``).

Such a class is no Tensor subclass: calling it builds a plain Tensor of its dtype, and ``isinstance`` asks
whether a tensor has that dtype on that device. Those two answers come from the layer that defines the
classes (npgrad._legacy_types for the CPU ones, npgrad.cuda for the CUDA ones, which a CPU-only build
refuses to construct), as ``_construct(*args, **kwargs)`` and ``_holds(obj)`` in the class body; this
module only needs the dtypes and the layout.
"""
from ._layout import strided

__all__ = ["tensortype", "tp_name"]

# What a CPU-only PyTorch raises when a CUDA tensor type is used for a cast (Tensor.type(torch.cuda.X)).
CUDA_INIT_ERROR = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries: a "
    "CPU library and a CUDA library; this error has occurred because you are trying to use some CUDA "
    "functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA "
    "library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA library! One common "
    "culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this has occurred by "
    "using ldd on your binary to see if there is a dependency on *_cuda.so library.")


def tp_name(cls):
    """A type's name as PyTorch's messages print it (CPython's tp_name): ``numpy.float64`` for a type
    defined in C, ``Parameter`` for a class defined in Python."""
    module = getattr(cls, "__module__", "builtins")
    if cls.__flags__ & (1 << 9) or module == "builtins":  # Py_TPFLAGS_HEAPTYPE: a class statement
        return cls.__name__
    return f"{module}.{cls.__name__}"


class tensortype(type):
    """The metaclass of the legacy tensor types: ``FloatTensor.dtype`` is ``float32``, and
    ``FloatTensor.zero_`` is ``Tensor.zero_`` (PyTorch gives the type the Tensor methods)."""

    def __call__(cls, *args, **kwargs):
        return cls._construct(*args, **kwargs)

    def __instancecheck__(cls, obj):
        return cls._holds(obj)

    def __getattr__(cls, name):
        methods = type.__getattribute__(cls, "_methods")
        if methods is None or name.startswith("__"):
            raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")
        return getattr(methods, name)

    @property
    def dtype(cls):
        return cls._dtype

    @property
    def is_cuda(cls):
        return cls._is_cuda

    @property
    def is_sparse(cls):
        return False

    @property
    def is_sparse_csr(cls):
        return False

    @property
    def is_xpu(cls):
        return False

    @property
    def layout(cls):
        return strided

    @property
    def legacy_name(cls):
        """``"torch.FloatTensor"``, ``"torch.cuda.FloatTensor"``: the name Tensor.type() answers with."""
        return ("torch.cuda." if cls._is_cuda else "torch.") + cls.__name__


def make(name, dtype, module, is_cuda, construct, holds, methods=None):
    """A legacy tensor type: ``construct(*args, **kwargs)`` builds its tensors, ``holds(obj)`` answers
    ``isinstance``; ``methods``: the class whose attributes the type hands out (Tensor)."""
    cls = tensortype(name, (), {"__module__": module, "__qualname__": name, "_dtype": dtype, "_is_cuda": is_cuda,
                                "_construct": staticmethod(construct), "_holds": staticmethod(holds),
                                "_methods": methods, "__slots__": ()})
    return cls
