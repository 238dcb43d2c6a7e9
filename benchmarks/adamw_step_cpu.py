"""CPU time of the AdamW step alone on the gpt workload (benchmarks/models.py ``gpt``: 54 tensors, 818k elements),
best of 9 runs of 40 steps: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python -m benchmarks.adamw_step_cpu LIB MODE``
with LIB MODE one of ``npgrad on`` (kernels, default foreach=None), ``npgrad foreach`` (foreach=True),
``npgrad per-param`` (foreach=False: one kernel call per tensor), ``npgrad off`` (the NumPy path), ``torch loop``
(foreach=False) or ``torch foreach`` (foreach=True); PyTorch runs on one thread."""
import importlib
import sys
import time

sys.path[:0] = [".", "src"]
fw, mode = sys.argv[1], sys.argv[2]
lib = importlib.import_module(fw)
if fw == "torch":
    lib.set_num_threads(1)
    flags = {"loop": dict(foreach=False), "foreach": dict(foreach=True)}[mode]
else:
    lib.backends.kernels.enabled = mode != "off"
    flags = {"on": {}, "off": {}, "foreach": dict(foreach=True), "per-param": dict(foreach=False)}[mode]
from benchmarks import models  # noqa: E402

model, step = models.gpt(lib)
step()  # the gradients
opt = lib.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, **flags)
for _ in range(5):
    opt.step()
times = []
for _ in range(9):
    t0 = time.process_time()
    for _ in range(40):
        opt.step()
    times.append((time.process_time() - t0) / 40 * 1e3)
times.sort()
print(f"{fw} {mode}: AdamW step CPU time best {times[0]:.3f} ms, median {times[4]:.3f} ms")
