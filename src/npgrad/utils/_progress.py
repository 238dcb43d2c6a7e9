"""Progress bars for the command line and downloads: tqdm when it is installed, else a plain text line.

``progress_bar`` returns an object with tqdm's small interface (``update``, ``set_postfix_str``,
``close``), so callers never ask which one they got.
"""
import sys
import time

from .._optional import require

__all__ = ["progress_bar"]


def progress_bar(total, desc, kind="auto", unit="it", file=None):
    """A bar counting to ``total`` (None when unknown) in ``unit`` ("B" counts bytes).

    ``kind``: ``"auto"`` (tqdm when installed, else the plain bar), ``"tqdm"`` (an ImportError without
    it), ``"plain"`` or ``"off"`` (a bar that writes nothing). ``file``: default stderr.
    """
    if kind not in ("auto", "tqdm", "plain", "off"):
        raise ValueError(f"progress_bar: kind must be 'auto', 'tqdm', 'plain' or 'off', got {kind!r}")
    if kind in ("auto", "tqdm"):
        try:
            tqdm = require("tqdm", "a tqdm progress bar").tqdm
        except ModuleNotFoundError:
            if kind == "tqdm":
                raise
        else:
            scale = {"unit_scale": True, "unit_divisor": 1024} if unit == "B" else {}
            return tqdm(total=total, desc=desc, unit=unit, file=file, dynamic_ncols=True, **scale)
    if kind == "off":
        return _NoBar()
    return _PlainBar(total, desc, unit, file)


class _NoBar:
    def update(self, n=1):
        pass

    def set_postfix_str(self, s="", refresh=True):
        pass

    def close(self):
        pass


class _PlainBar:
    """On a terminal, one line redrawn in place (at most 10 times a second); in a log file or a pipe,
    a line at each quarter of the total, so logs stay short."""

    def __init__(self, total, desc, unit="it", file=None):
        self.total, self.desc, self.unit, self.n = total, desc, unit, 0
        self.file = file if file is not None else sys.stderr
        self.tty = hasattr(self.file, "isatty") and self.file.isatty()
        self.postfix = ""
        self.start = self._last = time.time()
        self._next_quarter = 1

    def update(self, n=1):
        self.n += n
        if self.tty:
            now = time.time()
            if now - self._last >= 0.1 or (self.total and self.n >= self.total):
                self._last = now
                self._write("\r")
        elif self.total and self.n * 4 >= self._next_quarter * self.total:
            while self.n * 4 >= self._next_quarter * self.total:
                self._next_quarter += 1
            self._write("")

    def set_postfix_str(self, s="", refresh=True):
        self.postfix = s

    def _write(self, prefix):
        rate = self.n / max(time.time() - self.start, 1e-9)
        if self.total:
            width = 24
            done = min(width, int(width * self.n / self.total))
            count = f"[{'#' * done}{'.' * (width - done)}] {self.n:,}/{self.total:,}"
        else:
            count = f"{self.n:,}"
        postfix = f" {self.postfix}" if self.postfix else ""
        line = f"{self.desc} {count}{postfix}  {rate:,.1f} {self.unit}/s"
        self.file.write(prefix + line + ("" if self.tty else "\n"))
        self.file.flush()

    def close(self):
        if self.tty:
            self._write("\r")
            self.file.write("\n")
            self.file.flush()
        elif not self.total:  # no quarters to report along the way: say how much there was
            self._write("")
