"""``@record``: a worker's uncaught exception, written where the launcher asked for it, then re-raised.

Scripts written for torchrun decorate their entry point with it. The exception always propagates (under
``python -m mpi4py`` it then aborts the job, with its traceback on stderr); when
``TORCHELASTIC_ERROR_FILE`` names a file, the error is also written there as JSON, in the layout
torchrun's agent reads (``{"message": {"message": ..., "extraInfo": {"py_callstack", "timestamp"}}}``).
"""
import functools
import json
import os
import time
import traceback


def _write_error_file(exc):
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:
        return
    entry = {"message": {"message": f"{type(exc).__name__}: {exc}",
                         "extraInfo": {"py_callstack": traceback.format_exc(), "timestamp": str(int(time.time()))}}}
    try:
        with open(path, "w") as fh:
            json.dump(entry, fh)
    except OSError:  # the report is best effort: the exception itself still propagates
        pass


def record(fn, error_handler=None):
    """Decorate a script's entry point: an exception escaping ``fn`` is written to
    ``$TORCHELASTIC_ERROR_FILE`` (when set) and re-raised."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            _write_error_file(e)
            raise
    return wrapper


__all__ = ["record"]
