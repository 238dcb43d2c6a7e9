"""``torch.backends.mkl``: whether Intel MKL is available. npgrad's matrix products go through NumPy's BLAS,
which is not MKL's here unless NumPy was built with it; ``verbose`` is kept for scripts that enter it."""
VERBOSE_OFF, VERBOSE_ON = 0, 1


def is_available():
    from .._process_tuning import blas_name
    return "mkl" in blas_name()


class verbose:
    """``with torch.backends.mkl.verbose(level):``: MKL's verbose log, which npgrad has none of to switch."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
