"""The progress bar shared by ``npgrad train`` and the dataset downloads (npgrad.utils._progress)."""
import io
import sys

import pytest

from npgrad.utils._progress import progress_bar


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def no_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` now fails, as if it were not installed


def test_plain_bar_in_a_log_writes_a_line_per_quarter(no_tqdm):
    out = io.StringIO()
    bar = progress_bar(8, "epoch 1/2", file=out)  # auto: the plain bar without tqdm
    for i in range(8):
        bar.set_postfix_str(f"loss {1 / (i + 1):.2f}")
        bar.update(1)
    bar.close()
    lines = out.getvalue().splitlines()
    assert [line.split("] ")[1].split()[0] for line in lines] == ["2/8", "4/8", "6/8", "8/8"]
    assert lines[-1].startswith("epoch 1/2 [########################] 8/8 loss 0.12  ")
    assert lines[-1].endswith(" it/s") and lines[0].startswith("epoch 1/2 [######..................] 2/8 ")


def test_plain_bar_on_a_terminal_redraws_one_line(no_tqdm):
    out = _Terminal()
    bar = progress_bar(3, "dl", kind="plain", unit="B", file=out)
    bar.update(3)        # reaching the total always draws, however soon
    bar.close()
    text = out.getvalue()
    assert text.startswith("\rdl [########################] 3/3  ") and text.endswith(" B/s\n")
    assert text.count("\n") == 1 and text.count("\r") == 2


def test_plain_bar_of_unknown_total_reports_at_close(no_tqdm):
    out = io.StringIO()
    bar = progress_bar(None, "input.txt", unit="B", file=out)
    bar.update(10_000)
    bar.update(2_345)
    assert out.getvalue() == ""
    bar.close()
    assert out.getvalue().startswith("input.txt 12,345  ") and out.getvalue().endswith(" B/s\n")


def test_off_writes_nothing_and_kind_is_checked(no_tqdm, capsys):
    out = io.StringIO()
    bar = progress_bar(4, "x", kind="off", file=out)
    bar.set_postfix_str("loss 1")
    bar.update(4)
    bar.close()
    assert out.getvalue() == "" and capsys.readouterr() == ("", "")
    with pytest.raises(ImportError):
        progress_bar(4, "x", kind="tqdm")
    with pytest.raises(ValueError, match="'auto', 'tqdm', 'plain' or 'off'"):
        progress_bar(4, "x", kind="rich")


def test_auto_uses_tqdm_when_installed():
    tqdm = pytest.importorskip("tqdm", reason="the tqdm path needs tqdm (pip install tqdm)")
    out = io.StringIO()
    bar = progress_bar(2048, "data.bin", unit="B", file=out)
    assert isinstance(bar, tqdm.tqdm)
    bar.update(2048)
    bar.close()
    assert "data.bin" in out.getvalue() and "2.00k" in out.getvalue()  # bytes, scaled by 1024
