"""``python -m benchmarks.profile WORKLOAD --ops``: the per-operator table of where a step's time goes, from the
framework's own profiler (npgrad's, and PyTorch's where it is installed)."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("framework", ["npgrad", "torch"])
def test_ops_table_lists_the_step_operators(framework):
    if framework == "torch" and importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed")
    proc = subprocess.run([sys.executable, "-m", "benchmarks.profile", "mlp", "--ops", "--steps", "2", "--top", "4",
                           "--framework", framework], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert re.match(rf"{framework} `mlp`: [0-9.]+ ms/step of operator self time over 2 steps", lines[0])
    rows = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("| operator")]
    assert len(rows) == 4
    names = [r.split(" | ")[0][2:] for r in rows]
    assert any("addmm" in n.lower() or "linear" in n.lower() for n in names)  # the MLP's products lead
    shares = [float(r.rstrip(" |").split(" | ")[-1].rstrip("%")) for r in rows]
    assert shares == sorted(shares, reverse=True) and 0 < sum(shares) <= 100.5
