"""``torch.functional``: the module PyTorch keeps its Python-level tensor functions in (``einsum``, ``stft``,
``norm``, ``meshgrid``, ...). Programs import them from here too (``from torch.functional import F``-style
imports of ``einsum``); each name is npgrad's top-level function of the same name."""
__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
           "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index"]


def __getattr__(name):
    if name in __all__:
        import npgrad
        return getattr(npgrad, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
