"""``CheckpointException``: what save and load raise, on every rank, when any rank failed."""
import pickle
import traceback


class CheckpointException(BaseException):
    """One or more ranks failed a collective save or load; ``failures`` maps each such rank to its error.

    A ``BaseException``, as in PyTorch: the message carries every failed rank's traceback."""

    def __init__(self, msg, failures):
        super().__init__(msg, failures)
        self._failures = failures
        self._tracebacks = {}

    @property
    def failures(self):
        return self._failures

    def __str__(self):
        text = f"CheckpointException ranks:{self._failures.keys()}\n"
        for rank, exc in self._failures.items():
            tb = self._tracebacks.get(rank) or "".join(traceback.format_exception_only(type(exc), exc))
            text += f"Traceback (most recent call last): (RANK {rank})\n{tb}"
        return text


def captured(exc):
    """``exc`` and its formatted traceback, in a form that survives pickling to another rank."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[1:])
    try:
        pickle.dumps(exc)
    except Exception:  # noqa: BLE001 - an exception that cannot travel is described instead
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc.with_traceback(None), tb


def raise_failures(failures):
    """``failures``: {rank: (exception, traceback text)}; raises the CheckpointException naming them."""
    err = CheckpointException(f"CheckpointException ranks:{failures.keys()}", {r: e for r, (e, _) in failures.items()})
    err._tracebacks = {r: tb for r, (_, tb) in failures.items()}
    raise err
