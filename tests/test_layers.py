"""npgrad's import layers are real: no module imports from a layer above its own.

DESIGN.md draws the package as floors, lowest first. This test parses every module under src/npgrad with
``ast`` and checks every import, at module level *and* inside functions (a lazy ``from ..nn import x`` inside
a function is still an upward dependency; it only hides it from import time). Relative imports are resolved;
``from pkg import name`` counts as an import of ``pkg.name`` when that is a module, else of ``pkg``.

Where a lower layer needs something from a higher one (the autograd engine builds Tensors), the higher layer
registers it at import time through ``npgrad.autograd._protocol`` instead of being imported.
"""
import ast
import os

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "npgrad")

# (prefix, layer): a module belongs to the layer of the longest prefix that names it or a package holding it.
LAYERS = [
    # 0: the ground floor. return_types (named tuples) and _process_tuning (gc/malloc settings) import nothing
    # of npgrad, so they sit here too.
    ("npgrad.dtypes", 0), ("npgrad.return_types", 0), ("npgrad._process_tuning", 0),
    # the device namespaces and process-wide settings (threads, matmul precision, compile) import nothing of
    # npgrad: a CPU-only library answers them without touching tensors.
    ("npgrad.cuda", 0), ("npgrad.mps", 0), ("npgrad.backends", 0), ("npgrad._runtime", 0),
    # elementwise work and products split over threads: plain NumPy arrays and the thread setting, nothing else;
    # and OpenBLAS's own thread count, read and set through ctypes.
    ("npgrad._parallel", 0), ("npgrad._blas_threads", 0),
    # NumPy's floating-point error state while npgrad's kernels run: NumPy alone.
    ("npgrad._fp_quiet", 0),
    # which extra installs each optional package (importlib alone).
    ("npgrad._optional", 0),
    # 1: the graph, the engine, grad mode. gradcheck and autograd.functional (jacobian, hessian, ...) build
    # Tensors through the protocol, not by importing tensor/ops/factories.
    ("npgrad.autograd", 1),
    # 2: class Tensor, its repr (which only needs dtypes), Python data to a Tensor (_convert), and the random
    # generators (whose get_state returns a uint8 Tensor; nothing below tensor draws random numbers).
    ("npgrad.tensor", 2), ("npgrad._tensor_str", 2), ("npgrad._convert", 2), ("npgrad.random", 2),
    # 2.5: the optional compiled kernels (numba), NumPy arrays in and out, on their own floor below the operators
    # that call them; test_kernels_import_only_the_ground_floor holds them to floor 0.
    ("npgrad.kernels", 2.5),
    # 3: the operator catalogue, plus the torch.linalg and torch.special namespaces that only re-export ops.
    ("npgrad.ops", 3), ("npgrad.linalg", 3), ("npgrad.special", 3),
    # torch.fft's array kernels (NumPy in, NumPy out) sit with the operators that will wrap them.
    ("npgrad._fft_kernels", 3),
    # torch.fft: the transforms (Ops over those kernels), the shifts (rolls) and the frequency factories.
    ("npgrad.fft", 3),
    # torch.sparse: sparse tensors (a Tensor subclass) and their operators, beside the dense ones.
    ("npgrad.sparse", 3),
    # torch.strided and the memory formats: plain objects of their own types, importing nothing of npgrad.
    ("npgrad._layout", 0),
    # torch.tensortype, the metaclass of the legacy FloatTensor-style types (CPU ones and torch.cuda's).
    ("npgrad._tensortype", 0),
    ("npgrad.factories", 4),
    # the signal windows (hann_window, ...): factories computed from operators.
    ("npgrad._windows", 4),
    # torch.distributed: collectives on Tensors' arrays (MPI through mpi4py); nn.parallel's DDP and
    # utils.data's DistributedSampler sit above it.
    ("npgrad.distributed", 4),
    ("npgrad.nn._functional", 5), ("npgrad.nn.functional", 5),
    ("npgrad.nn", 6),
    # torch.cuda.amp: the deprecated CUDA spellings of torch.amp, on torch.amp's floor.
    ("npgrad.optim", 7), ("npgrad.utils", 7), ("npgrad.amp", 7), ("npgrad.cuda.amp", 7),
    # torch.func: transforms over the autograd tape, and functional_call over nn.Module.
    ("npgrad.func", 7),
    # torch.jit: script/trace over eager code; its scripted modules are copies of nn.Modules.
    ("npgrad.jit", 7),
    # torch.distributions: built from operators, factories and nn.functional (softplus, BCE-with-logits).
    ("npgrad.distributions", 7),
    # torch.distributed.fsdp and torch.distributed.optim (ZeroRedundancyOptimizer): sharded data parallel
    # wraps nn.Modules and optimizers, so it sits above them (nn.parallel's DDP is in nn, floor 6).
    ("npgrad.distributed.fsdp", 7), ("npgrad.distributed.optim", 7),
    ("npgrad.datasets", 8), ("npgrad.serialization", 8), ("npgrad.viz", 8),
    # torchvision's API: a user of nn, utils.data and serialization like any model code (DESIGN.md, "Vision").
    ("npgrad.vision", 8),
    # torch.hub: the checkpoint cache directory and downloads into it (serialization reads the files).
    ("npgrad.hub", 8),
    # torch.distributed.checkpoint: sharded state dicts on disk (each object item is an npgrad.save archive) and
    # its state_dict helpers over nn modules and optimizers; it sits above serialization, nn and optim.
    ("npgrad.distributed.checkpoint", 8),
    # 9: the command line, and the package root, which re-exports everything (`import npgrad`).
    ("npgrad.cli", 9), ("npgrad.__main__", 9), ("npgrad", 9), ("npgrad._torch_alias", 9),
    # torch.distributed.run/launch (torchrun): launchers that start `npgrad run` on every MPI process, like the CLI.
    ("npgrad.distributed.run", 9), ("npgrad.distributed.launch", 9),
]
LAYER_NAMES = dict(enumerate(["dtypes", "autograd", "tensor/random", "ops", "factories", "nn.functional", "nn",
                              "optim/utils", "datasets/serialization/viz", "cli"]))
LAYER_NAMES[2.5] = "kernels"


def _module_files():
    out = {}
    for root, _dirs, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(root, f)
            parts = os.path.relpath(path, os.path.dirname(SRC))[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def layer_of(module):
    best = None
    for prefix, layer in LAYERS:
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, layer)
    return best[1]


def import_edges():
    """Yield (importer, imported module, line) for every npgrad-internal import, wherever it sits."""
    modules = _module_files()
    for name, path in sorted(modules.items()):
        is_pkg = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module
                targets = []
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    targets.append(sub if sub in modules else base)
            else:
                continue
            for t in targets:
                while t not in modules and "." in t:  # `import npgrad.x.y` of a name that is not a module
                    t = t.rsplit(".", 1)[0]
                if t in modules and t != name:
                    yield name, t, node.lineno


def largest_cycle():
    """The largest strongly connected component of the import graph (Tarjan, iterative)."""
    graph = {}
    for a, b, _ in import_edges():
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(sorted(comp))
    return max(comps, key=len)


# Upward imports not fixed yet, each named so the list can only shrink (a listed import that disappears fails
# the test too). All three build a Tensor from Python data with factories.tensor: its conversion core
# (_infer_array/_finish) belongs below ops.
KNOWN_UPWARD = set()


def upward_imports(known=frozenset(KNOWN_UPWARD)):
    bad = []
    for a, b, line in import_edges():
        la, lb = layer_of(a), layer_of(b)
        if lb > la and (a, b) not in known:
            bad.append(f"{a}:{line} ({LAYER_NAMES[la]}) imports {b} ({LAYER_NAMES[lb]})")
    return bad


def test_every_module_has_a_layer():
    for name in _module_files():
        assert layer_of(name) is not None, name


def test_no_module_imports_from_a_higher_layer():
    bad = upward_imports()
    assert not bad, "upward imports:\n  " + "\n  ".join(bad)


def test_known_upward_imports_still_exist():
    edges = {(a, b) for a, b, _ in import_edges()}
    gone = KNOWN_UPWARD - edges
    assert not gone, f"fixed, take them off KNOWN_UPWARD: {sorted(gone)}"


def test_kernels_import_only_the_ground_floor():
    # npgrad.kernels takes and returns NumPy arrays: it needs nothing of autograd or Tensor.
    bad = [f"{a}:{line} imports {b}" for a, b, line in import_edges()
           if layer_of(a) == 2.5 and layer_of(b) not in (0, 2.5)]
    assert not bad, bad


def test_resolver_sees_function_level_and_relative_imports():
    edges = {(a, b) for a, b, _ in import_edges()}
    # module level, relative: `from ..ops import _poly as P` style imports resolve to the submodule
    assert ("npgrad.ops.arith", "npgrad.ops._poly") in edges
    # inside a function: nn/functional's users are found even when the import is lazy
    assert any(a == "npgrad.cli" and b.startswith("npgrad.nn") for a, b in edges)


def test_largest_import_cycle_is_the_operator_catalogue():
    # 31 modules before the layers were enforced (tensor, ops, factories, nn.functional, autograd.engine,
    # random). What is left is ops' families calling each other's operators (a gradient of one family's op
    # is written with another's); no module outside ops is in a cycle.
    cycle = largest_cycle()
    assert all(m.startswith("npgrad.ops.") for m in cycle), cycle
    assert len(cycle) <= 9, cycle


if __name__ == "__main__":  # python tests/test_layers.py: print the report
    print("\n".join(upward_imports(known=frozenset())))
    c = largest_cycle()
    print(len(c), "modules in the largest cycle:", " ".join(c))
    pytest.main([__file__, "-q"])
