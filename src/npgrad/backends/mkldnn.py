"""``torch.backends.mkldnn``: npgrad does not use oneDNN (its kernels are NumPy's), so it is not available;
``enabled`` is kept for scripts that set it."""
enabled = True


def is_available():
    return False
