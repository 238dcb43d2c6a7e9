"""Functions the multiprocessing tests run in child processes: spawned children import them by module name,
which a test module loaded by pytest's importlib mode does not have."""
import os
import sys
import time


def put_tensors(i, queue):
    import npgrad
    x = npgrad.arange(6, dtype=npgrad.float64).reshape(2, 3) * (i + 1)
    w = npgrad.tensor([1.5, -2.0], requires_grad=True)
    queue.put((i, os.getpid(), x, w, npgrad.tensor([1, 2], dtype=npgrad.int8), {"nested": [x[0]]}))


def raise_in_one(i, marker):
    if i == 1:
        raise ValueError(f"child {i} failed: {marker}")
    time.sleep(60)  # the parent must terminate this one once process 1 has failed


def exit_with(i, code):
    sys.exit(code if i == 0 else 0)


def echo_tensor(queue_in, queue_out):
    x = queue_in.get()
    queue_out.put(x * 2)


def kill_self(i, signum):
    if i == 0:
        os.kill(os.getpid(), signum)
    time.sleep(60)  # terminated by the parent once process 0 is gone
