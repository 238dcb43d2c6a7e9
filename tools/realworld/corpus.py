"""What a corpus case is, and how a case reaches a third-party program's code.

A case names a public repository, the files of it that it reads, and a ``build`` function written
against PyTorch's API: ``build(torch, src, rng)`` gets the framework (real PyTorch, or npgrad standing in
for it), the directory the program's files were unpacked into, and a NumPy generator for synthetic data,
and returns a ``Job``. Every way the job departs from the original program (a smaller config, dropout
off, synthetic batches in place of a downloaded data set) is a line in ``deviations``: the harness prints
them beside the result.

The project stores none of the programs' code: the files are read from a local git snapshot of each
repository when the harness runs (``run.py --mirrors DIR``).
"""
import ast
import dataclasses
import os
import subprocess
import sys
import types
from typing import Callable, List, Optional, Sequence

CASES = {}


@dataclasses.dataclass
class Case:
    name: str
    repo: str                      # owner/name on GitHub
    files: Sequence[str]           # paths inside the repository the case reads
    build: Callable
    deviations: Sequence[str] = ()
    steps: int = 3                 # optimizer steps after the step-0 loss
    needs: Sequence[str] = ()      # importable packages besides torch/numpy (einops, ...)
    script: Optional[str] = None   # run this file whole (script mode) instead of ``build``
    after_loop: bool = True        # script mode: run what follows the training loop too
    setup: Optional[Callable] = None  # setup(torch): a declared replay installed before the program runs


@dataclasses.dataclass
class Job:
    """One training run: ``loss(batch)`` returns a scalar loss tensor for one batch of ``batches``
    (tuples of NumPy arrays, turned into tensors of the running framework before the call)."""
    model: object
    optimizer: object
    loss: Optional[Callable]
    batches: List[tuple]
    scheduler: Optional[object] = None
    extra_modules: Sequence[object] = ()   # further modules whose weights must start equal (GAN halves, ...)
    # A program whose step is more than one loss and one optimizer (a GAN's two updates): ``step(batch)``
    # does the whole update and returns a loss; ``evaluate(batch)`` gives the loss compared at the end.
    step: Optional[Callable] = None
    evaluate: Optional[Callable] = None


def case(name, repo, files, deviations=(), steps=3, needs=()):
    def register(build):
        if name in CASES:
            raise ValueError(f"two corpus cases are named {name!r}")
        CASES[name] = Case(name, repo, tuple(files), build, tuple(deviations), steps, tuple(needs))
        return build
    return register


SCRIPT_MODE = ("the whole script runs as written, its first training loop cut to {steps} iterations; the losses "
               "compared are the values every .backward() is called on")


AFTER_LOOP = "the code after its training loop (a demo that needs a trained model) does not run"


def script_case(name, repo, path, extra_files=(), deviations=(), steps=3, needs=(), after_loop=True, setup=None):
    """A program that needs nothing from outside (toy data built in the script): run it whole."""
    if name in CASES:
        raise ValueError(f"two corpus cases are named {name!r}")
    deviations = (SCRIPT_MODE.format(steps=steps), *deviations, *(() if after_loop else (AFTER_LOOP,)))
    CASES[name] = Case(name, repo, (path, *extra_files), None, deviations, steps, tuple(needs), script=path,
                       after_loop=after_loop, setup=setup)


def _main_block(tree):
    """The statements a script runs: its module level, with an ``if __name__ == '__main__':`` body inlined."""
    out = []
    for node in tree.body:
        test = getattr(node, "test", None)
        if (isinstance(node, ast.If) and isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                and test.left.id == "__name__"):
            out.extend(node.body)
        else:
            out.append(node)
    return out


def _cut_loop(loop, steps):
    """``for epoch in range(N)`` -> ``range(min(N, steps))`` (and likewise for any iterable: islice)."""
    loop.iter = ast.Call(ast.Attribute(ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant("itertools")], []),
                                       "islice", ast.Load()), [loop.iter, ast.Constant(steps)], [])
    ast.fix_missing_locations(loop)


def run_script(torch, src, path, steps, share, after_loop=True):
    """Run ``path`` statement by statement as ``__main__``; after each statement, every nn.Module that
    newly appeared among its globals goes through ``share`` (so both runs start from PyTorch's initial
    weights); the first top-level ``for`` loop that calls backward is cut to ``steps`` iterations.
    Returns the value of every loss ``.backward()`` was called on."""
    full = os.path.join(src, path)
    with open(full, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=full)
    losses = []
    original = torch.Tensor.backward

    def recording_backward(self, *args, **kwargs):
        if self.numel() == 1:
            losses.append(float(self.detach()))
        return original(self, *args, **kwargs)

    torch.Tensor.backward = recording_backward
    namespace = {"__name__": "__main__", "__file__": full, "__builtins__": __builtins__}
    seen, cut = set(), False
    sys.path.insert(0, os.path.dirname(full))
    sys.argv = [full]
    try:
        for node in _main_block(tree):
            if cut and not after_loop:
                break
            if not cut and isinstance(node, (ast.For, ast.While)) and "backward" in ast.unparse(node):
                if isinstance(node, ast.While):
                    raise ValueError(f"{path}: the training loop is a while loop; give the case a build function")
                _cut_loop(node, steps)
                cut = True
            exec(compile(ast.Module([node], []), full, "exec"), namespace)
            fresh = [v for v in list(namespace.values()) if isinstance(v, torch.nn.Module) and id(v) not in seen]
            for module in fresh:
                seen.add(id(module))
                share(module)
    finally:
        torch.Tensor.backward = original
        sys.path.remove(os.path.dirname(full))
    return losses


def mirror_git_dir(mirrors, repo):
    """The git directory of ``repo``'s snapshot under ``mirrors`` (the layout the search tool's fetch
    writes: ``<mirrors>/<owner>+<name>/repo``)."""
    path = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    if os.path.isdir(os.path.join(path, ".git")):  # a snapshot that came with a work tree
        path = os.path.join(path, ".git")
    if not os.path.isdir(path):
        raise FileNotFoundError(f"no snapshot of {repo} at {path}")
    return path


def snapshot_commit(git_dir):
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def unpack(git_dir, files, dest):
    """Write ``files`` (files or folders) of the snapshot's HEAD under ``dest``, their repository paths kept."""
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "HEAD", "--", *files], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)


_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def definitions(src, path, namespace=None, keep_assignments=(), drop_imports=()):
    """Run only the definitions of a script (imports, classes, functions, and the module-level
    assignments named in ``keep_assignments``), not its body: most programs parse arguments and download
    data at module level. ``namespace`` pre-sets module globals the definitions read (a script's
    argparse results, say). ``drop_imports`` names top-level packages whose imports are left out (a
    torchvision import used only by the data loading the case replaces). Returns the module."""
    full = os.path.join(src, path)
    with open(full, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=full)

    def dropped(node):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        return any(n.split(".")[0] in drop_imports for n in names)

    def kept(node):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return not dropped(node)
        if isinstance(node, _DEFINITIONS):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and keep_assignments:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            return any(isinstance(t, ast.Name) and t.id in keep_assignments for t in targets)
        return False

    tree.body = [n for n in tree.body if kept(n)]
    module = types.ModuleType(os.path.splitext(os.path.basename(path))[0])
    module.__file__ = full
    module.__dict__.update(namespace or {})
    sys.path.insert(0, os.path.dirname(full))
    try:
        exec(compile(tree, full, "exec"), module.__dict__)
    finally:
        sys.path.remove(os.path.dirname(full))
    return module


def import_file(src, path, name=None):
    """Import a program's module as it is (for files whose module level only defines things)."""
    import importlib.util
    full = os.path.join(src, path)
    name = name or os.path.splitext(os.path.basename(path))[0]
    root = os.path.dirname(full)
    sys.path.insert(0, root)
    try:
        spec = importlib.util.spec_from_file_location(name, full)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(root)
    return module


def import_package_module(src, package_root, dotted):
    """``import dotted`` with ``src/package_root`` on the path (a repository's package, e.g. mingpt)."""
    import importlib
    root = os.path.join(src, package_root)
    sys.path.insert(0, root)
    try:
        return importlib.import_module(dotted)
    finally:
        sys.path.remove(root)


def import_without_package_init(src, package, dotted):
    """``import package.dotted`` without running ``package/__init__.py`` (an __init__ that imports every
    submodule and so packages the case does not use, e.g. torchvision for an augmentation pipeline)."""
    import importlib
    if package not in sys.modules:
        shell = types.ModuleType(package)
        shell.__path__ = [os.path.join(src, package)]
        sys.modules[package] = shell
    return importlib.import_module(f"{package}.{dotted}")
