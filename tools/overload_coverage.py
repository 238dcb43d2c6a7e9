"""Overloads and keyword names: how many of PyTorch's call forms run in npgrad and give PyTorch's result.

    python tools/overload_coverage.py [--missing] [--only NAME ...]      (needs PyTorch installed)

PyTorch ships every signature of its C++-bound functions and Tensor methods as ``@overload`` stubs, with
their keyword names (``torch/_C/_VariableFunctions.pyi`` for ``torch.*``, ``torch/_C/__init__.pyi``'s
``TensorBase`` for methods). For each signature this tool makes arguments from the parameters' types and
names (small positive float64 tensors, dims 0, sizes (3, 3), ...) and calls the function in two forms:
every required argument by position, and every argument that may be named by its keyword. A form that
PyTorch itself refuses with those arguments is "not sampled" (the generated values do not fit it); a
sampled form counts when npgrad returns PyTorch's values and dtypes (random functions: shapes and dtypes).
A signature counts when all its sampled forms count. Names npgrad lacks altogether are the name table's
business (tools/api_coverage.py), so only signatures of names npgrad has are counted here, and the names
missing are reported beside.
"""
import argparse
import ast
import os
import sys
import warnings
from collections import Counter

import numpy as np

RANDOM = ("rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson", "uniform_",
          "random_", "exponential_", "geometric_", "cauchy_", "log_normal_", "normal_", "bernoulli_", "dropout",
          "alpha_dropout", "feature_dropout", "feature_alpha_dropout", "rrelu", "empty", "new_empty", "empty_like",
          "empty_strided", "new_empty_strided", "empty_permuted", "native_dropout", "binomial", "new", "data_ptr")
# Signatures whose parameters this generator cannot fill meaningfully (memory/storage plumbing, out=).
SKIP_PARAMS = {"out", "memory_format", "layout", "pin_memory", "names", "generator", "device", "requires_grad"}


def _stub_functions(path, cls=None):
    """(name, signature node) for every def in the stub (inside class ``cls`` when given)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    body = tree.body
    if cls:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    for n in body:
        if isinstance(n, ast.FunctionDef) and not n.name.startswith("_"):
            yield n.name, n


def _params(fn, method):
    a = fn.args
    positional = a.posonlyargs + a.args
    if method:
        positional = positional[1:]  # self
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [(p.arg, ast.unparse(p.annotation) if p.annotation else "", d is not None, "positional")
           for p, d in zip(positional, defaults)]
    out += [(p.arg, ast.unparse(p.annotation) if p.annotation else "", d is not None, "keyword")
            for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.vararg is not None:
        out.append((a.vararg.arg, ast.unparse(a.vararg.annotation) if a.vararg.annotation else "", False, "vararg"))
    return out


class Values:
    """Arguments for one framework: the same numbers for both, built from a parameter's name and type."""

    def __init__(self, lib):
        self.lib = lib
        rng = np.random.default_rng(0)
        self.base = rng.uniform(0.5, 1.5, (3, 3))

    def tensor(self, name):
        t = self.lib
        if name in ("index", "indices", "target"):
            return t.tensor([[0, 1, 2], [2, 0, 1], [1, 2, 0]])
        if name in ("mask",):
            return t.tensor(self.base > 1.0)
        if name in ("condition",):
            return t.tensor(self.base > 1.0)
        return t.tensor(self.base.copy())

    def value(self, name, ann):
        t = self.lib
        if "Tensor" in ann and ("list[Tensor]" in ann or "tuple[Tensor" in ann) and not ann.startswith("Tensor"):
            return [self.tensor(name), self.tensor(name)]
        if ann.startswith("Tensor"):
            return self.tensor(name)
        if "_size" in ann or "Sequence[_int" in ann:
            return (0,) if "dim" in name else (3, 3)
        if "_dtype" in ann:
            return t.float64
        if "_bool" in ann:
            return False
        if "_int" in ann:
            return {"dim": 0, "dim0": 0, "dim1": 1, "diagonal": 0, "offset": 0}.get(name, 1 if "dim" not in name else 0)
        if "_float" in ann or "Number" in ann:
            return 0.5
        if ann.startswith("str"):
            return None
        return None


def _forms(params):
    """The call forms of one signature: required arguments by position, and by keyword."""
    required = [p for p in params if not p[2] and p[0] not in SKIP_PARAMS]
    if any(p[3] == "vararg" for p in required):
        return [("positional", required)]
    forms = [("positional", required)]
    if any(p[3] != "vararg" for p in required):
        forms.append(("keyword", required))
    return forms


def _call(lib, name, method, form, required):
    vals = Values(lib)
    args, kwargs = [], {}
    for pname, ann, _, kind in required:
        v = vals.value(pname, ann)
        if v is None:
            raise LookupError(f"no sample for {pname}: {ann}")
        if kind == "vararg":
            args.extend(v if isinstance(v, (tuple, list)) else [v])
        elif kind == "keyword" or form == "keyword":
            kwargs[pname] = v
        else:
            args.append(v)
    if method:
        fn = getattr(vals.tensor("self"), name)
    else:
        fn = getattr(lib, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _as_numpy(x, torch):
    if isinstance(x, torch.Tensor):
        reduced = x.dtype in {getattr(torch, n, None) for n in ("bfloat16", "float8_e4m3fn", "float8_e5m2")}
        data = x.detach().float() if reduced else x.detach().resolve_conj()
        return ("T", repr(x.dtype).split(".")[-1], data.numpy())
    if isinstance(x, (tuple, list)):
        return tuple(_as_numpy(v, torch) for v in x)
    if type(x).__name__ == "dtype" and hasattr(x, "is_floating_point"):  # torch.float64 / npgrad.float64
        return ("dtype", repr(x).split(".")[-1])
    if hasattr(x, "__array__") and hasattr(x, "dtype") and hasattr(x, "shape"):  # an npgrad tensor
        arr = np.asarray(x.detach().numpy() if hasattr(x, "detach") else x)
        return ("T", repr(x.dtype).split(".")[-1], arr)
    return x


def _same(a, b, random):
    if isinstance(a, tuple) and len(a) == 3 and a[0] == "T":
        if not (isinstance(b, tuple) and len(b) == 3 and b[0] == "T"):
            return False
        if a[1] != b[1] or a[2].shape != b[2].shape:
            return False
        return random or np.allclose(a[2], b[2], rtol=1e-6, atol=1e-9, equal_nan=True)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y, random) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return random or abs(a - b) <= 1e-6 * max(1.0, abs(a)) or (a != a and b != b)
    return random or a == b


def measure(only=None):
    import torch

    import npgrad
    root = os.path.dirname(torch.__file__)
    groups = [("torch", os.path.join(root, "_C", "_VariableFunctions.pyi"), None, False),
              ("Tensor", os.path.join(root, "_C", "__init__.pyi"), "TensorBase", True)]
    rows = []
    for label, path, cls, method in groups:
        for name, fn in _stub_functions(path, cls):
            if only and name not in only:
                continue
            has = hasattr(npgrad.Tensor if method else npgrad, name)
            params = _params(fn, method)
            if not hasattr(torch.Tensor if method else torch, name):
                continue
            results = []
            for form, required in _forms(params):
                try:
                    ref = _as_numpy(_call(torch, name, method, form, required), torch)
                except Exception:
                    results.append((form, "not sampled", ""))
                    continue
                if not has:
                    results.append((form, "missing name", ""))
                    continue
                try:
                    got = _as_numpy(_call(npgrad, name, method, form, required), npgrad)
                except Exception as e:
                    results.append((form, "fails", f"{type(e).__name__}: {e}".splitlines()[0][:160]))
                    continue
                ok = _same(ref, got, name in RANDOM or name.startswith(("rand", "normal")))
                results.append((form, "matches" if ok else "differs", ""))
            sig = ast.unparse(fn.args)
            rows.append((label, name, sig, has, results))
    return rows


def summarize(rows):
    counted = [(label, name, sig, res) for label, name, sig, has, res in rows if has]
    sampled = [r for r in counted if any(s != "not sampled" for _, s, _ in r[3])]
    ok = [r for r in sampled if all(s in ("matches", "not sampled") for _, s, _ in r[3])]
    missing_names = sorted({f"{label}.{name}" for label, name, _, has, _ in rows if not has})
    return counted, sampled, ok, missing_names


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--missing", action="store_true", help="print every signature form that fails or differs")
    ap.add_argument("--only", nargs="*", help="measure these names only")
    args = ap.parse_args(argv)
    rows = measure(set(args.only) if args.only else None)
    counted, sampled, ok, missing_names = summarize(rows)
    per = Counter(label for label, *_ in sampled)
    per_ok = Counter(label for label, *_ in ok)
    print(f"signatures of names npgrad has: {len(counted)}; sampled (PyTorch accepts the generated arguments "
          f"in at least one form): {len(sampled)}")
    for label in per:
        print(f"  {label:8s} {per_ok[label]}/{per[label]} = {100 * per_ok[label] / per[label]:.1f}%")
    print(f"overall {len(ok)}/{len(sampled)} = {100 * len(ok) / max(1, len(sampled)):.1f}% of sampled signatures "
          f"run in every sampled form and match PyTorch; {len(missing_names)} names absent from npgrad")
    if args.missing:
        for label, name, sig, res in sampled:
            bad = [(f, s, e) for f, s, e in res if s in ("fails", "differs")]
            if bad:
                print(f"{label}.{name}({sig}): " + "; ".join(f"{f} {s} {e}" for f, s, e in bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
