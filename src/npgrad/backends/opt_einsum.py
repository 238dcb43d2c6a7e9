"""``torch.backends.opt_einsum``: whether ``einsum`` may ask the ``opt_einsum`` package for a contraction order.
npgrad's einsum orders contractions with NumPy's own path search, so it never uses the package; the settings
are kept as PyTorch keeps them (``enabled`` only when the package is installed)."""
import importlib.util

_AVAILABLE = importlib.util.find_spec("opt_einsum") is not None


def is_available():
    return _AVAILABLE


def get_opt_einsum():
    if not _AVAILABLE:
        return None
    import opt_einsum  # optional
    return opt_einsum


enabled = _AVAILABLE
strategy = "auto" if _AVAILABLE else None
