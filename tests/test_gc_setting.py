"""npgrad raises the collector's first threshold only where the interpreter's default is in place."""
import os
import subprocess
import sys


def _thresholds(prelude="", env=None):
    code = prelude + "import gc, npgrad; print(gc.get_threshold())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, **(env or {})))
    return eval(out.stdout)


def test_default_threshold_is_raised():
    assert _thresholds(env={"NPGRAD_GC_THRESHOLD": "10000"})[0] == 10000


def test_a_program_s_own_setting_is_kept():
    assert _thresholds("import gc; gc.set_threshold(1234, 5, 6)\n")[:3] == (1234, 5, 6)


def test_opt_out_leaves_the_interpreter_alone():
    assert _thresholds(env={"NPGRAD_GC_THRESHOLD": "0"})[0] == 700
