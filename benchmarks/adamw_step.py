"""AdamW step alone on the gpt workload: `PYTHONPATH=src python -m benchmarks.adamw_step npgrad off|on` or `torch foreach|loop`."""
import sys, time, statistics, os
sys.path[:0] = ['.', 'src']
fw = sys.argv[1]
import importlib
lib = importlib.import_module(fw)
if fw == "torch": lib.set_num_threads(2)
from benchmarks import models
model, step = models.gpt(lib)
step()
params = [p for p in model.parameters()]
opt = lib.optim.AdamW(params, lr=3e-4, weight_decay=0.1, **({"foreach": False} if fw == "torch" and len(sys.argv) > 2 and sys.argv[2] == "loop" else {}))
opt.step()
if fw == "npgrad" and len(sys.argv) > 2:
    from npgrad.kernels import _jit
    _jit._switch.enabled = sys.argv[2] == "on"
for _ in range(3): opt.step()
ts = []
for _ in range(40):
    t = time.perf_counter(); opt.step(); ts.append(time.perf_counter() - t)
print(fw, sys.argv[2:], "AdamW step median %.3f ms min %.3f ms (%d params, %d elements)" % (statistics.median(ts)*1e3, min(ts)*1e3, len(params), sum(p.numel() for p in params)))
