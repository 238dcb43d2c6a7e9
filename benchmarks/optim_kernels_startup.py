"""First-use compile and warm start of the optimizer kernels: `NUMBA_CACHE_DIR=$(mktemp -d) python -m benchmarks.optim_kernels_startup` (twice)."""
import sys, time
sys.path.insert(0, 'src')
import numpy as np
import npgrad; t0 = time.perf_counter(); import numba; print("import numba %.2f s" % (time.perf_counter() - t0)); t0 = time.perf_counter()
from npgrad.kernels import optim_updates as K
a = [np.zeros(1000, np.float32) for _ in range(4)]
K.adam_(*a, None, 1e-3, 0.9, 0.999, 1e-8, 0.1, True, False, 1.0, 1.0)
t1 = time.perf_counter()
K.sgd_(a[0], a[1], a[2], 0.1, 0.0, False, 0.9, 0.0, False, False)
t2 = time.perf_counter()
print("first adam_ (numba import + load/compile all) %.2f s, first sgd_ %.3f s" % (t1 - t0, t2 - t1))
