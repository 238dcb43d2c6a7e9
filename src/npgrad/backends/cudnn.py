"""``torch.backends.cudnn``: not available; ``enabled``/``benchmark``/``deterministic``/``allow_tf32`` are
plain module attributes a script may set (PyTorch's defaults), with no effect on the CPU."""
enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
