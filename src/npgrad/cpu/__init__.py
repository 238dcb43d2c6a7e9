"""``torch.cpu``: the CPU as a device module beside ``torch.cuda`` and ``torch.mps``, for device-agnostic code
(``getattr(torch, device.type).synchronize()``). The CPU is always there, runs every kernel synchronously, and
has one stream, so its streams and events are immediate, as in PyTorch."""
import contextlib

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count", "is_available",
           "is_initialized", "set_device", "stream", "synchronize"]


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """Kept for device-agnostic code: there is one CPU device, so nothing changes."""


def synchronize(device=None):
    """Every CPU kernel has finished when it returns, so there is nothing to wait for."""


class Stream:
    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        return Event() if event is None else event


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_current = Stream()


def current_stream(device=None):
    return _current


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *exc):
        return None


def stream(stream):
    return StreamContext(stream)


def __getattr__(name):
    # torch.cpu.amp, as torch.cuda.amp: the deprecated spellings, on torch.amp's floor, imported on first use
    if name == "amp":
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
