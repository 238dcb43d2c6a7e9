"""``import torch`` resolving to npgrad (and ``import torchvision`` to npgrad.vision): what ``npgrad run script.py`` and ``npgrad.alias_torch()`` install.

A finder at the front of ``sys.meta_path`` answers every ``torch`` and ``torch.<sub>`` import with the
npgrad module of the same path (``torch.nn.functional`` is ``npgrad.nn.functional``), so an unmodified
PyTorch script gets npgrad even when PyTorch is installed. A ``torch.<sub>`` npgrad does not have raises
ModuleNotFoundError naming it, instead of silently falling through to the real PyTorch.

Processes started with the "spawn" or "forkserver" method are fresh interpreters that re-import the main
script, so the alias travels to them too: see ``_AliasInChild``.
"""
import importlib
import importlib.abc
import importlib.util
import sys

_COMPAT = "see the 'PyTorch compatibility' section of npgrad's README for what npgrad has"


class _ModuleLoader(importlib.abc.Loader):
    """Hands the import system an npgrad module that is already imported."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


# torchvision is npgrad.vision: its models, transforms and datasets are written on npgrad, like the scripts.
_ALIASED = {"torch": "npgrad", "torchvision": "npgrad.vision"}


class TorchAlias(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in _ALIASED:
            return None
        target_name = _ALIASED[top] + fullname[len(top):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (e.name == target_name or target_name.startswith(e.name + ".")):
                raise ModuleNotFoundError(f"No module named '{fullname}': npgrad has no {target_name} ({_COMPAT})",
                                          name=fullname) from None
            raise
        return importlib.util.spec_from_loader(fullname, _ModuleLoader(module))


# multiprocessing ignores preparation-data keys it does not know, so an extra one is safe to add.
_PREPARATION_KEY = "npgrad_torch_alias"

# Run by exec, not by a function of npgrad's: unpickling happens before the child has the parent's
# sys.path, and a function reference would need npgrad importable to be found at all. The directory is
# put first only for this import, so that the child gets the parent's npgrad and nothing else moves.
_CHILD_CODE = """\
import sys
sys.path.insert(0, npgrad_dir)
try:
    from npgrad._torch_alias import alias_torch
finally:
    sys.path.remove(npgrad_dir)
alias_torch()
"""


class _AliasInChild:
    """Rides in the preparation data multiprocessing sends a spawned (or forkserver) child: unpickling it
    installs the alias, before ``multiprocessing.spawn.prepare`` re-imports the main script in the child
    and before the process object (whose target may live in a module that imports torch) is unpickled.
    The environment would not do: nothing in a fresh interpreter reads it before the script's imports."""

    def __reduce__(self):
        import os

        import npgrad
        npgrad_dir = os.path.dirname(os.path.dirname(os.path.abspath(npgrad.__file__)))
        return exec, (_CHILD_CODE, {"npgrad_dir": npgrad_dir})


def _send_alias_to_children():
    import multiprocessing.spawn as mp_spawn
    original = mp_spawn.get_preparation_data
    if getattr(original, "_npgrad_alias", False):
        return

    def get_preparation_data(name):
        data = original(name)
        data[_PREPARATION_KEY] = _AliasInChild()
        return data

    get_preparation_data._npgrad_alias = True
    get_preparation_data.__wrapped__ = original
    mp_spawn.get_preparation_data = get_preparation_data


def _torch_dtype_repr(self):
    return "torch." + self.name


def alias_torch():
    """Make ``import torch`` (and every ``torch.<sub>``) import npgrad from now on, in this process and in
    the processes it starts with the "spawn" or "forkserver" start method (``fork`` copies it anyway).

    Dtypes then print as ``torch.float32``, matching ``torch.Size``. For notebooks and scripts that cannot be
    launched with ``npgrad run``. PyTorch itself must not have
    been imported yet: modules that already hold the real ``torch`` would keep it, and mixing the two
    gives baffling errors, so that case raises instead."""
    import npgrad
    held = sys.modules.get("torch")
    if held is not None and held is not npgrad:
        raise RuntimeError("alias_torch(): the real PyTorch is already imported in this process; call "
                           "npgrad.alias_torch() before anything imports torch (or use `npgrad run script.py`)")
    if not any(isinstance(f, TorchAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAlias())
    sys.modules["torch"] = npgrad
    # Where the program calls it torch, dtypes print as torch's (torch.float32), as torch.Size already does:
    # `print(x.shape, x.dtype)` must not read "torch.Size([2]) npgrad.float32".
    npgrad.dtypes.dtype.__repr__ = _torch_dtype_repr
    _send_alias_to_children()
    return npgrad


def run_path(script, args=()):
    """Run ``script`` as ``python script.py args...`` would, with ``torch`` resolving to npgrad; returns the
    exit code. As with ``python``: a file that cannot be opened is one line and exit code 2, and an uncaught
    exception prints the script's traceback (no frame of npgrad's launcher in it) and gives exit code 1."""
    import os
    import runpy
    path = os.path.abspath(script)
    try:  # opened here so that a missing file is python's one line, not runpy's traceback
        with open(path, "rb"):
            pass
    except OSError as e:
        print(f"npgrad run: can't open file {path!r}: [Errno {e.errno}] {e.strerror}", file=sys.stderr)
        return 2
    alias_torch()
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    # the absolute path, as python names the script in tracebacks and __file__
    return _as_python_would(lambda: runpy.run_path(path, run_name="__main__"), path)


def run_module(name, args=()):
    """Run module ``name`` as ``python -m name args...`` would (sys.argv[0] its file, the working directory
    first on sys.path), with ``torch`` resolving to npgrad; returns the exit code."""
    import importlib.util
    import os
    import runpy
    sys.path.insert(0, os.getcwd())
    alias_torch()
    top = name.partition(".")[0]
    if top in _ALIASED:  # `-m torch.distributed.run` runs npgrad's module of that path (runpy needs its code)
        name = _ALIASED[top] + name[len(top):]
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as e:
        spec, why = None, f"{type(e).__name__}: {e}"
    else:
        why = f"No module named {name}"
    if spec is None or spec.origin is None:
        print(f"npgrad run: Error while finding module specification for {name!r} ({why})"
              if spec is None and "." in name else f"npgrad run: {why}", file=sys.stderr)
        return 1
    sys.argv = [spec.origin, *args]
    return _as_python_would(lambda: runpy.run_module(name, run_name="__main__", alter_sys=True), spec.origin)


def _as_python_would(run, filename):
    """Call ``run``; an uncaught exception is reported by ``sys.excepthook`` from the first frame of
    ``filename`` on (the frames above it are npgrad's launcher and runpy), and gives python's exit code."""
    try:
        run()
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - reported as the interpreter would, then the exit code
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != filename:
            tb = tb.tb_next
        # a SyntaxError in the script has no frame of it: the exception alone, as python prints it
        sys.excepthook(type(e), e.with_traceback(tb), tb)  # (the default hook prints e.__traceback__)
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    return 0
