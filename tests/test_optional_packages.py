"""A feature whose optional package is missing says which extra of npgrad installs it.

Each package is hidden (``sys.modules[name] = None``, as if it were not installed) and the feature that
needs it is used: the error must name the package and ``pip install "npgrad[<extra>]"``, and that extra
must exist in pyproject.toml and bring the package.
"""
import os
import re
import sys

import pytest

import npgrad
from npgrad import _optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def hide(monkeypatch, *names):
    for mod in list(sys.modules):
        if any(mod == n or mod.startswith(n + ".") for n in names):
            monkeypatch.setitem(sys.modules, mod, None)
    for n in names:
        monkeypatch.setitem(sys.modules, n, None)


def _onnx(tmp_path):
    npgrad.onnx.export(npgrad.nn.Linear(2, 1), (npgrad.zeros(1, 2),), str(tmp_path / "m.onnx"))


def _tensorboard(tmp_path):
    import npgrad.utils.tensorboard  # noqa: F401


def _mpi(tmp_path):
    npgrad.distributed.init_process_group("mpi")


def _tqdm(tmp_path):
    from npgrad.utils._progress import progress_bar
    progress_bar(3, "x", kind="tqdm")


def _matplotlib(tmp_path):
    from npgrad.utils.plot import save_curves
    save_curves(str(tmp_path / "c.png"), [{"title": "t", "series": [{"label": "a", "x": [0, 1], "y": [1, 2]}]}],
                backend="matplotlib")


CASES = [  # (hidden package, also hidden, use, error type, start of the message)
    ("onnx", ("npgrad.onnx._export",), _onnx, ModuleNotFoundError, "npgrad.onnx.export needs"),
    ("tensorboard", ("npgrad.utils.tensorboard",), _tensorboard, ModuleNotFoundError,
     "TensorBoard logging requires TensorBoard version 1.15 or above: npgrad.utils.tensorboard needs"),
    ("mpi4py", (), _mpi, RuntimeError, "Distributed package doesn't have MPI built in: npgrad.distributed needs"),
    ("tqdm", (), _tqdm, ModuleNotFoundError, "a tqdm progress bar needs"),
    ("matplotlib", (), _matplotlib, ModuleNotFoundError, "curves.png needs"),
]


@pytest.mark.parametrize("package, also, use, error, start", CASES, ids=[c[0] for c in CASES])
def test_a_missing_package_names_the_extra_that_installs_it(package, also, use, error, start, tmp_path, monkeypatch):
    if package == "onnx":
        monkeypatch.delitem(sys.modules, "npgrad.onnx._export", raising=False)
        also = ()
    if package == "tensorboard":  # imported afresh, as a first `import npgrad.utils.tensorboard` is
        for mod in [m for m in sys.modules if m.startswith("npgrad.utils.tensorboard")]:
            monkeypatch.delitem(sys.modules, mod)
        monkeypatch.delattr(npgrad.utils, "tensorboard", raising=False)
        also = ()
    hide(monkeypatch, package, *also)
    with pytest.raises(error) as info:
        use(tmp_path)
    msg = str(info.value)
    extra = _optional.EXTRAS[package]
    assert msg.startswith(start), msg
    assert f"optional package '{package}'" in msg and f'pip install "npgrad[{extra}]"' in msg, msg
    if error is ModuleNotFoundError:
        assert info.value.name == package  # so `except ImportError` / e.name checks keep working


def test_every_extra_named_exists_and_brings_its_package():
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    extras = dict(re.findall(r"^(\w+) = \[(.*?)\]", text.split("[project.optional-dependencies]")[1], flags=re.M))
    for package, extra in _optional.EXTRAS.items():
        assert extra in extras, extra
        assert re.search(rf'"{package}\b', extras[extra]), (package, extra, extras[extra])


def test_a_module_missing_inside_an_installed_package_is_its_own_error():
    # only the optional package itself being absent gets the hint: anything else is re-raised as it is
    with pytest.raises(ModuleNotFoundError, match="No module named 'json.npgrad_no_such'") as info:
        _optional.require("json.npgrad_no_such", "x")
    assert "pip install" not in str(info.value)
