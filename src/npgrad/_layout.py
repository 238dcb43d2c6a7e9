"""``torch.layout`` and ``torch.memory_format``: the types of ``torch.strided`` and ``torch.contiguous_format``.

npgrad's tensors are dense NumPy arrays, so ``strided`` is the only layout there is; the memory formats are
accepted wherever PyTorch takes ``memory_format=`` and ask for nothing (NumPy picks the element order).
Like PyTorch's, neither type can be instantiated from Python: its values are the module constants.
"""

__all__ = ["layout", "memory_format", "strided", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d", "legacy_contiguous_format"]


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
contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
legacy_contiguous_format = contiguous_format  # one object under two names, as in PyTorch
