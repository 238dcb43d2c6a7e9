"""`import npgrad` stays light: subpackages and the less common operator families load on first use,
and everything they define is still reachable as npgrad.<name> and as Tensor methods."""
import importlib
import subprocess
import sys

import npgrad
from npgrad import ops


def test_lazy_index_is_generated_from_the_registry():
    # ops/_lazy_index.py is derived, never edited: regenerate it in a fresh process and compare.
    code = "from npgrad import ops; print(ops.write_lazy_index(), end='')"
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    with open(importlib.import_module("npgrad.ops._lazy_index").__file__, encoding="utf-8") as f:
        assert f.read() == fresh, "ops/_lazy_index.py is stale: run `python -m npgrad.ops`"


def test_import_loads_only_the_core():
    code = ("import sys, npgrad; print(sorted(m for m in sys.modules if m.startswith('npgrad.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for lazy in ("npgrad.nn", "npgrad.optim", "npgrad.utils", "npgrad.serialization", "npgrad.datasets",
                 "npgrad.autograd.gradcheck", "npgrad.autograd.functional",
                 *(f"npgrad.ops.{f}" for f in ops.LAZY_FAMILIES)):
        assert f"'{lazy}'" not in loaded, lazy
    assert "'npgrad.ops.arith'" in loaded


def test_import_leaves_costly_modules_to_their_first_use():
    # numpy.random (~6 ms: the default generator's stream is made at its first draw), hashlib (OpenSSL: the
    # kernels' cache digest), traceback (anomaly mode's forward traces): each measured in a bare `import npgrad`.
    code = """
import sys, npgrad
print([m for m in ("numpy.random", "hashlib", "traceback") if m in sys.modules])
a = npgrad.rand(3)
npgrad.manual_seed(3)
b = npgrad.rand(3)
npgrad.manual_seed(3)
assert npgrad.rand(3).tolist() == b.tolist() and a.tolist() != b.tolist()
assert npgrad.initial_seed() == 3
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_lazy_names_resolve_as_functions_and_methods():
    code = """
import npgrad as t
x = t.tensor([3.0, 1.0, 2.0], requires_grad=True)
assert x.sort().values.tolist() == [1.0, 2.0, 3.0]          # a method, before anything was loaded
assert t.topk(x, 2).indices.tolist() == [0, 2]              # a function
z = t.tensor([0.2, 0.5]); z.erfinv_()                        # an in-place variant made after loading
assert abs(z[0].item() - 0.1791) < 1e-3
assert t.linalg.det(2 * t.eye(2)).item() == 4.0
assert callable(t.autograd.gradcheck) and hasattr(t.autograd.functional, 'jacobian')
assert not hasattr(x, 'no_such_method')
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_the_gradcheck_module_first_leaves_the_function_on_the_package():
    # The import system sets npgrad.autograd.gradcheck to the submodule when it is imported before anything read
    # the attribute; PyTorch's is the function whichever came first (a test module importing GradcheckError at
    # collection time broke every later gradcheck call).
    code = """
from npgrad.autograd.gradcheck import GradcheckError
import npgrad.autograd.gradcheck as g
import npgrad as t
assert callable(t.autograd.gradcheck) and type(t.autograd.gradcheck).__name__ == 'function', t.autograd.gradcheck
assert g is t.autograd.gradcheck and t.autograd.GradcheckError is GradcheckError
assert t.autograd.gradcheck(lambda a: a * a, (t.tensor([1.5], dtype=t.float64, requires_grad=True),))
assert t.autograd.gradgradcheck(lambda a: a ** 3, (t.tensor([0.5], dtype=t.float64, requires_grad=True),))
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_lazy_name_is_on_npgrad():
    for name, family in ops.LAZY_NAMES.items():
        assert getattr(npgrad, name) is ops._registry.OPS[name].public_fn
        assert ops._registry.OPS[name].family == family


def test_method_stub_list_is_exactly_what_the_families_attach():
    code = """
import npgrad
from npgrad import ops
stubs = {n for n, v in vars(npgrad.Tensor).items() if getattr(v, '_lazy_stub', False)}
before = {n for n, v in vars(npgrad.Tensor).items() if not getattr(v, '_lazy_stub', False)}
ops.load_lazy_families()
after = set(vars(npgrad.Tensor))
assert not any(getattr(v, '_lazy_stub', False) for v in vars(npgrad.Tensor).values())
assert after - before == stubs == set(ops.LAZY_METHODS), (sorted(after - before), sorted(stubs))
"""
    subprocess.run([sys.executable, "-c", code], check=True)
