"""``torch.futures``: ``Future`` (the one ``torch.jit.fork`` returns: npgrad runs the forked call at once, so a
future is complete when it is handed out), ``collect_all`` and ``wait_all``."""
__all__ = ["Future", "collect_all", "wait_all"]


def __getattr__(name):
    if name == "Future":
        from .jit import Future
        return Future
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def collect_all(futures):
    """One future whose value is the list of ``futures``, complete when all of them are."""
    from .jit import Future
    out = Future()
    for f in futures:
        f.wait()
    out.set_result(list(futures))
    return out


def wait_all(futures):
    """The values of ``futures``, in order (the first failure raises)."""
    return [f.wait() for f in futures]
