"""The operator registry is the one record of what operators npgrad has (ops/_registry.py).

Tensor methods, in-place variants, lazy stubs and the exported names are all derived from it, and
no code attaches to Tensor any other way.
"""
import ast
import os
import subprocess
import sys

import pytest

import npgrad
import npgrad.nn  # noqa: F401  (nn must not attach anything either)
from npgrad import Tensor, ops
from npgrad.ops import _registry as R
from oracle import HAS_TORCH, torch

SRC = os.path.dirname(npgrad.__file__)
ops.load_lazy_families()


def _assignments_to_tensor(tree):
    """Every ``Tensor.x = ...`` and ``setattr(Tensor, ...)`` in a module."""
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tensor":
                yield node.lineno, f"Tensor.{t.attr} = ..."
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("setattr", "delattr") and \
                node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor":
            yield node.lineno, f"{node.func.id}(Tensor, ...)"


def test_no_other_way_of_attaching_a_tensor_method():
    found = []
    for root, _, files in os.walk(SRC):
        for f in files:
            path = os.path.join(root, f)
            if not f.endswith(".py") or path == R.__file__:
                continue
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            found += [f"{os.path.relpath(path, SRC)}:{line}: {what}" for line, what in _assignments_to_tensor(tree)]
    assert not found, "attach Tensor methods with ops._registry.op/method, not:\n" + "\n".join(found)


def test_every_tensor_attribute_is_the_class_body_or_a_registry_record():
    with open(os.path.join(SRC, "tensor.py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor").body
    own = {n.name for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    own |= {t.id for n in body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    own |= {"__dict__", "__weakref__", "__module__", "__doc__", "__slots__", "__qualname__"}
    # Python itself stores an empty __annotations__ dict in a class the first time anything reads it
    # (inspect/typing, as torchvision-style signature checks in the vision tests do): not an attribute of ours.
    own.add("__annotations__")
    slots = Tensor.__slots__ if isinstance(Tensor.__slots__, (tuple, list)) else (Tensor.__slots__,)
    stray = sorted(set(vars(Tensor)) - own - set(slots) - set(R.METHODS))
    assert not stray, f"Tensor attributes from outside the registry: {stray}"


def test_records_attach_what_they_declare():
    for rec in R.RECORDS:
        for m in rec.methods:
            assert m in R.METHODS, (rec, m)
        for m in rec.inplace_methods():
            assert callable(getattr(Tensor, m)) and R.METHODS[m] == "npgrad.ops.inplace", (rec, m)
        for n in rec.names:
            assert R.OPS[n] is rec


def test_exports_are_the_records():
    eager = {n for n, rec in R.OPS.items() if rec.family not in ops.LAZY_FAMILIES and rec.family != "factories"}
    assert set(ops.__all__) == eager
    for n in ops.__all__:
        assert getattr(npgrad, n) is R.OPS[n].public_fn, n
    for n in ops.LAZY_NAMES:
        assert getattr(npgrad, n) is R.OPS[n].public_fn, n


def test_a_declaration_cannot_be_made_twice():
    def mul(input, other):
        return input

    with pytest.raises(RuntimeError, match="declared twice"):
        R.op()(mul)
    with pytest.raises(ValueError, match="inplace must be one of"):
        R.op(inplace="sometimes")


def test_the_source_lists_every_operator():
    # `grep "@op("` (plus the table-made unary ops and op(...)(fn) calls) finds each record's definition.
    for rec in R.RECORDS:
        assert rec.fn.__module__.startswith("npgrad."), rec
    assert len({id(r) for r in R.RECORDS}) == len(R.RECORDS)
    code = "import npgrad; from npgrad.ops import _registry as R; print(len(R.RECORDS))"
    eager = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 0 < eager < len(R.RECORDS)  # the lazy families add theirs on first use


if HAS_TORCH:
    # Methods with no PyTorch counterpart of that name (npgrad's own; none today).
    NOT_IN_TORCH = set()

    def test_every_method_is_a_pytorch_tensor_method():
        missing = sorted(m for m in R.METHODS if not hasattr(torch.Tensor, m) and m not in NOT_IN_TORCH)
        assert not missing, f"Tensor methods PyTorch does not have: {missing}"

    def test_every_public_name_is_a_pytorch_name():
        spaces = (torch, torch.special, torch.linalg, torch.nn.functional)
        missing = sorted(n for n in R.OPS if not any(hasattr(s, n) for s in spaces))
        assert not missing, f"public operators PyTorch does not have: {missing}"


def test_npgrad_all_is_derived_from_the_registry():
    assert set(R.OPS) <= set(npgrad.__all__)
    namespace = {}
    exec("from npgrad import *", namespace)  # every listed name resolves, lazily loaded ones included
    for name, rec in R.OPS.items():
        assert namespace[name] is rec.public_fn, name
    assert "nn" not in namespace and "ops" not in namespace  # subpackages are not operators


def test_the_command_lists_every_record():
    out = subprocess.run([sys.executable, "-m", "npgrad.ops", "--list"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == len(R.RECORDS) + 1 and out[-1].startswith(f"{len(R.RECORDS)} records")
    assert any(line.split()[:2] == ["arith", "mul,"] for line in out)
