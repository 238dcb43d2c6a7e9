"""``torch.accelerator``: the device-agnostic questions about the current accelerator, answered as a CPU-only
PyTorch answers them: there is none. (Its device, stream and memory functions need one, and are absent.)"""
__all__ = ["is_available", "device_count", "current_accelerator"]


def is_available():
    return False


def device_count():
    return 0


def current_accelerator(check_available=False):
    return None
