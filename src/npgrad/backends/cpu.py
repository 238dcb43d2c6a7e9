"""``torch.backends.cpu``: the widest vector extension NumPy's kernels dispatch to on this CPU."""


def get_cpu_capability():
    """``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"``, as PyTorch names them (read from NumPy's CPU dispatch)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as features
    if features.get("AVX512F") and features.get("AVX512BW"):
        return "AVX512"
    if features.get("AVX2"):
        return "AVX2"
    return "DEFAULT"
