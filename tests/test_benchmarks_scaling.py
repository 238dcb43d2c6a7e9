"""``python -m benchmarks.scaling`` (npgrad/PyTorch step-time ratio against problem size), run at tiny
sizes: the CSV has its columns and a row per size, the picture is written when matplotlib is there,
and without PyTorch the script says so and exits cleanly."""
import csv
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # `benchmarks` is a top-level folder of the repository, not part of the package

from benchmarks import scaling  # noqa: E402


def test_quick_sweep_writes_csv_and_png(tmp_path):
    pytest.importorskip("torch", reason="the sweep compares npgrad with PyTorch")
    out_csv, out_png = tmp_path / "scaling.csv", tmp_path / "img" / "scaling.png"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.scaling", "--quick", "--width", "8,16",
                           "--batch", "2", "--channels", "2", "--min-time", "0", "--csv", str(out_csv),
                           "--png", str(out_png)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = out_csv.read_text(encoding="utf-8").splitlines()
    notes = [ln for ln in lines if ln.startswith("#")]
    assert any("BLAS thread" in n for n in notes) and any("load average" in n for n in notes)
    header, *rows = list(csv.reader(ln for ln in lines if not ln.startswith("#")))
    assert header == ["sweep", "size", "npgrad_s", "torch_s", "ratio", "loss0"]
    assert [(r[0], int(r[1])) for r in rows] == [("width", 8), ("width", 16), ("batch", 2), ("channels", 2)]
    for r in rows:
        npg, tor, ratio = float(r[2]), float(r[3]), float(r[4])
        assert npg > 0 and tor > 0 and ratio == pytest.approx(npg / tor, rel=1e-2)  # one round: the plain quotient
    if importlib.util.find_spec("matplotlib") is not None:
        assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "pip install matplotlib" in proc.stdout and not out_png.exists()


def test_without_torch_says_so_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails, as when it is not installed
    out_csv = tmp_path / "scaling.csv"
    assert scaling.main(["--quick", "--csv", str(out_csv), "--png", str(tmp_path / "s.png")]) == 0
    assert "PyTorch is not installed" in capsys.readouterr().out
    assert not out_csv.exists()


def test_workloads_agree_at_step_zero():
    torch = pytest.importorskip("torch", reason="the comparison needs PyTorch")
    import npgrad
    for sweep in scaling.SWEEPS:
        a = float(scaling.build(npgrad, sweep, 4)().item())
        b = float(scaling.build(torch, sweep, 4)().item())
        assert a == pytest.approx(b, rel=1e-4)


def test_without_matplotlib_only_the_csv(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    rows = [{"sweep": "width", "size": 8, "ratio": 0.9}, {"sweep": "width", "size": 16, "ratio": 1.2}]
    assert scaling.plot(rows, str(tmp_path / "s.png"), "t") is False
    assert "pip install matplotlib" in capsys.readouterr().out and not (tmp_path / "s.png").exists()
