"""torch's module constants (inf, pi, nan, e, newaxis, ...) and torch.__version__ as PyTorch's TorchVersion."""
import math
import operator
import pathlib
import pickle
import re

import numpy as np
import pytest

import npgrad
from npgrad.torch_version import NPGRAD_VERSION, PYTORCH_API_VERSION, TorchVersion

try:
    import torch
    from torch.torch_version import TorchVersion as TorchTorchVersion
    HAS_TORCH = True
except ImportError:  # pragma: no cover
    torch = None
    HAS_TORCH = False

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONSTANTS = ["inf", "nan", "pi", "e", "newaxis", "has_lapack", "has_spectral", "legacy_contiguous_format"]


def test_float_constants_are_math_s():
    assert (npgrad.inf, npgrad.pi, npgrad.e) == (math.inf, math.pi, math.e)
    assert math.isnan(npgrad.nan) and npgrad.newaxis is None
    assert npgrad.legacy_contiguous_format is npgrad.contiguous_format
    x = npgrad.zeros(2, 3)
    assert x[:, npgrad.newaxis].shape == (2, 1, 3)
    m = x.masked_fill(npgrad.tensor([[True, False, True]]), -npgrad.inf)
    assert np.isneginf(m.numpy()[:, [0, 2]]).all() and (m.numpy()[:, 1] == 0).all()
    assert set(CONSTANTS) <= set(npgrad.__all__)


@pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch")
def test_constants_match_torch():
    for name in CONSTANTS:
        a, b = getattr(npgrad, name), getattr(torch, name)
        if isinstance(b, float):
            assert a == b or (math.isnan(a) and math.isnan(b)), name
        elif isinstance(b, bool) or b is None:
            assert a == b, name
        else:
            assert repr(a) == repr(b), name
        assert name in npgrad.__all__ or name not in torch.__all__, name


def test_version_is_the_pytorch_api_with_npgrad_as_local_part():
    v = npgrad.__version__
    assert isinstance(v, TorchVersion) and isinstance(v, str)
    assert v == f"{PYTORCH_API_VERSION}+npgrad.{NPGRAD_VERSION}"
    assert v >= "2.0" and v >= (2, 1) and v > "2.13.0" and v < "2.13.1" and v < (2, 14) and not v < "2.1"
    assert v.split("+")[0] == PYTORCH_API_VERSION and hash(v) == hash(str(v))
    assert npgrad.version.__version__ == v and type(npgrad.version.__version__) is str
    assert npgrad.version.npgrad_version == NPGRAD_VERSION
    assert type(pickle.loads(pickle.dumps(v))) is TorchVersion
    # pyproject's version is npgrad's own release
    assert re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1] == NPGRAD_VERSION


def test_packaging_parses_it():
    version = pytest.importorskip("packaging.version")
    parsed = version.parse(npgrad.__version__)
    assert parsed.release[:2] == (2, 13) and parsed.local == f"npgrad.{NPGRAD_VERSION}"
    assert parsed >= version.Version("2.1")


@pytest.mark.parametrize("a, b, expected", [
    ("2.13", "2.13.0", True), ("1.0.dev0", "1.0a0", True), ("1.0a1", "1.0b0", True), ("1.0rc1", "1.0", True),
    ("1.0", "1.0.post1", True), ("1.0+a", "1.0+1", True), ("1.0", "1.0+x", True), ("1!0.1", "2.0", False),
    ("v2.1", "2.1.0.1", True), ("abc", "1", False), ("2.x", "10", False)])
def test_pep440_order_without_packaging(a, b, expected):
    assert (TorchVersion(a) <= b) is expected


VERSIONS = ["2.13.0+npgrad.0.1.0", "2.13", "2.13.0rc1", "2.13.0.post1.dev2", "1!0.1", "v2.13.0", "abc", ""]
OTHERS = VERSIONS + ["2.13.0+npgrad.0.1", "2.13.0-1", (2, 13), [2, 13, 0, 1], (2, "x"), 5, None, {}, b"2"]
OPS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


def _result(f):
    try:
        return f()
    except TypeError:
        return TypeError


@pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch")
@pytest.mark.parametrize("a", VERSIONS)
def test_comparisons_match_torch_version(a):
    for b in OTHERS:
        for op in OPS:
            assert _result(lambda: op(TorchVersion(a), b)) == _result(lambda: op(TorchTorchVersion(a), b)), \
                (a, op.__name__, b)


_SCRIPT = """
import torch
from packaging.version import parse
print(torch.__version__, type(torch.__version__).__name__, torch.__version__ >= "2.1", parse(torch.__version__) >= parse("2.0"),
      isinstance(torch.ones(1), torch.FloatTensor), -torch.inf < torch.pi)
"""


def test_under_npgrad_run(tmp_path):
    pytest.importorskip("packaging")
    import subprocess
    import sys
    script = tmp_path / "check_version.py"
    script.write_text(_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "npgrad", "run", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [npgrad.__version__, "TorchVersion", "True", "True", "True", "True"]
