"""The test command keeps its closing "N passed" line in every form a user types it (pyproject's addopts must
not make `pytest -q` into -qq, which drops the line)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("flags", [[], ["-q"]], ids=["plain", "-q"])
def test_the_summary_line_is_printed(tmp_path, flags):
    (tmp_path / "test_tiny.py").write_text("def test_one():\n    assert 1 + 1 == 2\n\n\ndef test_two():\n    pass\n")
    out = subprocess.run([sys.executable, "-m", "pytest", *flags, "-c", os.path.join(ROOT, "pyproject.toml"),
                          "--rootdir", str(tmp_path), "-p", "no:cacheprovider", str(tmp_path / "test_tiny.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout.strip().splitlines()[-1], out.stdout
