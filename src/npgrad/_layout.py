"""``torch.layout`` and ``torch.memory_format``: the types of ``torch.strided`` and ``torch.contiguous_format``.

Dense tensors are ``strided``; ``npgrad.sparse``'s tensors are ``sparse_coo`` or ``sparse_csr``. The memory
formats are accepted wherever PyTorch takes ``memory_format=`` and ask for nothing (NumPy picks the element order).
Like PyTorch's, neither type can be instantiated from Python: its values are the module constants.
"""

__all__ = ["layout", "memory_format", "strided", "sparse_coo", "sparse_csr", "contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d", "legacy_contiguous_format"]


class _Constant:
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name):
        obj = object.__new__(cls)
        obj._name = name
        return obj

    def __repr__(self):
        return f"torch.{self._name}"


class layout(_Constant):
    __slots__ = ()

    def __reduce__(self):
        raise TypeError("cannot pickle 'layout' object")


class memory_format(_Constant):
    __slots__ = ()

    def __reduce__(self):
        # by name, as PyTorch pickles it: unpickling gives the module's constant back
        return self._name


layout.__module__ = memory_format.__module__ = "npgrad"
strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
legacy_contiguous_format = contiguous_format  # one object under two names, as in PyTorch


class SparseOperand(NotImplementedError):
    """Raised when dense code reads a sparse tensor's (absent) array. The few dense operators that also take
    a sparse operand (mm, matmul, sum) catch it and hand over to ``SPARSE_IMPL``, so the dense path pays
    nothing (no type check) for them; everywhere else it is the error the user sees."""


# name -> implementation for a sparse operand, filled by npgrad.sparse when it is imported (a sparse
# tensor exists only after that).
SPARSE_IMPL = {}
