"""spawn / start_processes: run ``fn(i, *args)`` in ``nprocs`` processes and report the first failure with the
child's traceback, with torch.multiprocessing's names, exceptions and messages.

A child that raises writes its formatted traceback to an error file whose name the parent chose (and left
absent): after a failure, the file's presence tells "raised" from "exited or was killed".
"""
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

log = logging.getLogger(__name__)

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "SpawnContext", "start_processes"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    # Arguments in order, for pickling (an exception crosses back to whoever joins).
    _fields = ("msg", "error_index", "error_pid")

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), tuple(getattr(self, f) for f in self._fields)


class ProcessRaisedException(ProcessException):
    """Exception raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Exception raised when a process failed due to signal or exited with a specific code."""

    __slots__ = ["exit_code"]
    _fields = ProcessException._fields + ("exit_code", "signal_name")

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name


def _die_with_parent(sig):
    # A child left running after its parent died would hold on to its resources forever; on Linux ask the kernel
    # to send it ``sig`` then (prctl PR_SET_PDEATHSIG = 1).
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig))
    except (OSError, AttributeError):
        pass


def _child(fn, i, args, error_file):
    _die_with_parent(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent interrupted us while stopping the others: not a failure to report
    except Exception:
        # The exception itself may not pickle; its formatted traceback always does.
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


def _failure(index, pid, exitcode, error_file):
    """The exception for a child that ended badly."""
    if os.access(error_file, os.R_OK):
        with open(error_file, "rb") as f:
            trace = pickle.load(f)
        return ProcessRaisedException(f"\n\n-- Process {index:d} terminated with the following error:\n{trace}",
                                      index, pid)
    if exitcode >= 0:
        return ProcessExitedException(f"process {index:d} terminated with exit code {exitcode:d}",
                                      error_index=index, error_pid=pid, exit_code=exitcode)
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"<Unknown signal {-exitcode}>"
    return ProcessExitedException(f"process {index:d} terminated with signal {name}", error_index=index,
                                  error_pid=pid, exit_code=exitcode, signal_name=name)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        # sentinel -> process index, for the processes not yet seen to end
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_all_within(self, seconds):
        deadline = time.monotonic() + seconds
        for p in self.processes:
            p.join(max(0, deadline - time.monotonic()))

    def _stop_the_rest(self, grace_period):
        if grace_period is not None:
            self._join_all_within(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all_within(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL", p.pid)
                p.kill()
            p.join()

    def join(self, timeout=None, grace_period=None):
        """Wait for the processes (up to ``timeout`` seconds); ``True`` once all have exited successfully.

        When one exits with a non-zero status, the others are terminated (after ``grace_period`` seconds, if
        given) and ``ProcessRaisedException`` (with the child's traceback) or ``ProcessExitedException`` (exit
        code or signal) is raised for the first failure."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_the_rest(grace_period)
        p = self.processes[failed]
        raise _failure(failed, p.pid, p.exitcode, self.error_files[failed])


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _fresh_path():
    # A name nothing exists under (created, then removed): the child creates it only if it raises.
    with tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle", delete=False) as f:
        path = f.name
    os.unlink(path)
    return path


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with the given start method; join them (and return
    None) or return their :class:`ProcessContext` with ``join=False``."""
    context = multiprocessing.get_context(start_method)

    def launch(i):
        path = _fresh_path()
        p = context.Process(target=_child, args=(fn, i, args, path), daemon=daemon)
        p.start()
        return p, path

    # PyTorch's opt-in: forkserver children may be started from threads at once.
    parallel = start_method == "forkserver" and os.environ.get(ENV_VAR_PARALLEL_START, "0") == "1"
    if parallel:
        log.info("Starting processes in parallel.")
        with ThreadPoolExecutor(max_workers=nprocs) as pool:
            started = list(pool.map(launch, range(nprocs)))
    else:
        started = [launch(i) for i in range(nprocs)]
    ctx = ProcessContext([p for p, _ in started], [path for _, path in started])
    if join:
        while not ctx.join():
            pass
        return None
    return ctx


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawn ``nprocs`` processes that run ``fn(i, *args)`` (``i`` the process index) with the "spawn" start
    method. If one fails, the others are terminated and the failure is raised here: ``ProcessRaisedException``
    carrying the child's traceback text, or ``ProcessExitedException``. ``fn`` must be importable (defined at
    module level). Returns None with ``join=True``, else the :class:`ProcessContext`."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                      FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
