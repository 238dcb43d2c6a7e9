"""npgrad keeps freed heap memory for reuse (glibc), so a training step's temporaries don't page-fault anew
every step; the opt-out and a program's own malloc settings are respected."""
import os
import subprocess
import sys

import pytest

# Eight 12 MiB arrays alive at once, then all freed, five times over: glibc's defaults hand the freed top of
# the heap back to the OS each time (a page fault per 4 KiB on the next round); npgrad's settings keep it.
_CYCLES = """
import resource, numpy as np, npgrad
from npgrad import _process_tuning
def cycle():
    arrays = [np.ones(3 << 20, np.float32) for _ in range(8)]
    del arrays
cycle()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    cycle()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(**env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", _CYCLES], capture_output=True, text=True, check=True,
                         env=dict(full, **env))
    return int(out.stdout.strip())


def _is_glibc():
    import ctypes
    return hasattr(ctypes.CDLL(None), "gnu_get_libc_version")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page-fault counts and mallopt are Linux/glibc")
def test_freed_temporaries_are_reused_without_page_faults():
    if not _is_glibc():
        from npgrad import _process_tuning
        assert _process_tuning.tune_malloc() is False  # nothing to tune; nothing claimed
        return
    tuned = _faults()
    untouched = _faults(NPGRAD_MALLOC_TUNE="0")
    assert untouched > 5 * 8 * 3 * 256 // 2, f"the default allocator should fault on reuse: {untouched}"
    assert tuned < untouched / 20, f"tuned {tuned} faults vs {untouched} with the defaults"


def test_opt_out_and_a_program_s_own_settings_are_left_alone():
    code = "import npgrad._process_tuning as t; print(t.tune_malloc())"
    for env in ({"NPGRAD_MALLOC_TUNE": "0"}, {"MALLOC_TRIM_THRESHOLD_": "1000000"}):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ, **env))
        assert out.stdout.strip() == "False", env
