"""A background thread that keeps MPI's non-blocking collectives moving while Python computes.

MPICH (and Open MPI without its own progress thread) advances a non-blocking request only while the
process is inside an MPI call, so an allreduce started from a gradient hook sits idle through the NumPy
work of backward and runs at the final wait. While a caller holds the engine, a daemon thread enters
MPI every ``interval`` seconds with a non-destructive ``Iprobe`` on ``COMM_WORLD`` (it matches and
receives nothing, so it cannot disturb anyone's messages; MPI's progress engine is per process, so it
advances requests on every communicator). The thread is parked on a condition when nobody holds it, so
an idle process pays nothing. It needs MPI initialised with ``MPI_THREAD_MULTIPLE`` (mpi4py's default);
``engine()`` returns None otherwise and callers fall back to testing their requests themselves.

This changes when data moves, never what is computed: each collective's algorithm and reduction order
are MPI's, fixed by message size and communicator, whatever the timing.
"""
import atexit
import threading
import time

INTERVAL = 1e-3  # seconds between probes: at 1e-4 the GIL hand-offs cost ~30% of a 2-core, loaded step; 1e-3 costs none


class Progress:
    def __init__(self, probe, interval=INTERVAL):
        self._probe = probe
        self.interval = interval
        self._cond = threading.Condition()
        self._holds = 0
        self._closed = False
        self.probes = 0  # MPI entries made by the thread (read by tests and the benchmark)
        self._thread = threading.Thread(target=self._run, name="npgrad-mpi-progress", daemon=True)
        self._thread.start()

    def hold(self):
        with self._cond:
            self._holds += 1
            self._cond.notify()

    def release(self):
        with self._cond:
            self._holds = max(0, self._holds - 1)

    @property
    def active(self):
        return self._holds > 0 and not self._closed

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)

    def _run(self):
        sleep, probe = time.sleep, self._probe
        while True:
            with self._cond:
                while self._holds == 0 and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
            while self._holds and not self._closed:  # an int read under the GIL: no lock per probe
                probe()
                self.probes += 1
                sleep(self.interval)


_engine = None
_lock = threading.Lock()


def engine():
    """The process's progress engine (started at the first call), or None where MPI cannot take calls
    from a second thread."""
    global _engine
    if _engine is not None:
        return _engine
    from mpi4py import MPI  # optional
    if not MPI.Is_initialized() or MPI.Is_finalized() or MPI.Query_thread() < MPI.THREAD_MULTIPLE:
        return None
    with _lock:
        if _engine is None:
            world, any_source, any_tag = MPI.COMM_WORLD, MPI.ANY_SOURCE, MPI.ANY_TAG
            _engine = Progress(lambda: world.Iprobe(any_source, any_tag), INTERVAL)
            atexit.register(_engine.close)  # before mpi4py finalizes MPI: no probe after MPI_Finalize
    return _engine
