"""``torch.backends.openmp``: npgrad's own kernels use no OpenMP (its elementwise splitting is a Python thread
pool), so OpenMP is not available to it."""


def is_available():
    return False
