"""Work handles: what a collective called with ``async_op=True`` returns."""


class Work:
    """A collective in flight on MPI requests; ``wait()`` blocks until it is done and its results are
    in the given tensors (``finish`` copies/scales them into place once the requests complete)."""

    def __init__(self, requests, finish=None, result=()):
        self._requests = list(requests)
        self._finish = finish
        self._result = list(result)
        self._done = False

    def _complete(self):
        self._done = True
        self._requests = []
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()

    def wait(self, timeout=None):
        if not self._done:
            from mpi4py import MPI  # optional
            MPI.Request.Waitall(self._requests)
            self._complete()
        return True

    synchronize = wait

    def is_completed(self):
        if not self._done:
            from mpi4py import MPI  # optional
            if MPI.Request.Testall(self._requests):
                self._complete()
        return self._done

    def is_success(self):
        return self.is_completed()

    def exception(self):
        return None

    def result(self):
        self.wait()
        return self._result

    def __repr__(self):
        return f"<npgrad.distributed.Work {'completed' if self._done else 'pending'}>"
