"""A code change timed against the code before it in ONE process: ``python -m benchmarks.ab``.

On the shared 2-core VM the same code's step time moves by up to 2x between processes minutes apart, which
hides the 3-10% a single change is worth. Here the old versions of the changed functions are compiled from
another tree's source (a ``git worktree`` of the old commit) into the current modules' namespaces, and the
two versions are swapped in and out between alternating timing rounds of one workload, so a slow phase of
the host hits both alike:

    git worktree add /tmp/base HEAD~1
    python -m benchmarks.ab infer_mlp --base /tmp/base/src \\
        npgrad.autograd.record:_apply_op npgrad.nn.modules.linear:Linear.forward

Each target is ``module:qualname`` (a function, or ``Class.method``); ``Class.method`` that the old tree does not
define is removed from the class for the old rounds (the inherited one runs), and a name the current tree lacks
is added. Every module global bound to the current function (``from .record import _apply_op`` elsewhere) is
swapped with it. An old function runs with the current module's globals: list every changed helper it calls.
"""
import argparse
import ast
import importlib
import os
import statistics
import sys
import timeit

_MISSING = object()


def old_function(base, module, qualname):
    """``qualname``'s definition in ``base``'s copy of ``module``, compiled against the current module's globals;
    ``_MISSING`` when that source does not define it."""
    mod = importlib.import_module(module)
    path = os.path.join(base, *module.split(".")) + ".py"
    if not os.path.exists(path):
        path = os.path.join(base, *module.split("."), "__init__.py")
    with open(path, encoding="utf-8") as f:
        body = ast.parse(f.read()).body
    node = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part), None)
        if node is None:
            return _MISSING
        body = node.body
    decorators = [ast.unparse(d) for d in node.decorator_list]
    node.decorator_list = []
    namespace = dict(mod.__dict__)
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), namespace)
    fn = namespace[node.name]
    if "staticmethod" in decorators:
        return staticmethod(fn)
    if "classmethod" in decorators:
        return classmethod(fn)
    return fn


class Swap:
    """The targets' old and current versions; ``use("old")`` / ``use("new")`` puts one set in place."""

    def __init__(self, base, targets):
        self._slots = []  # (owner, attribute, old, new), _MISSING for "not defined there"
        for target in targets:
            module, _, qualname = target.partition(":")
            if not qualname:
                raise ValueError(f"target {target!r} is not module:qualname")
            mod = importlib.import_module(module)
            *owners, name = qualname.split(".")
            owner = mod
            for part in owners:
                owner = getattr(owner, part)
            new = owner.__dict__.get(name, _MISSING) if isinstance(owner, type) else getattr(owner, name, _MISSING)
            old = old_function(base, module, qualname)
            if old is _MISSING and new is _MISSING:
                raise ValueError(f"{target} is defined in neither tree")
            self._slots.append((owner, name, old, new))
            if not owners and new is not _MISSING:  # the same function imported into other modules
                for other in list(sys.modules.values()):
                    d = getattr(other, "__dict__", None)
                    if other is not mod and d is not None:
                        for key, value in list(d.items()):
                            if value is new:
                                self._slots.append((other, key, old, new))

    def use(self, which):
        for owner, name, old, new in self._slots:
            value = old if which == "old" else new
            if value is _MISSING:
                if name in vars(owner):
                    delattr(owner, name)
            else:
                setattr(owner, name, value)


def alternate(step, swap, number, rounds):
    """{"old": [...], "new": [...]}: per round, the best of 3 timeit runs of ``number`` calls, in seconds per call;
    the order within a round alternates, and each side is warmed up after its swap. Leaves the new code in place."""
    times = {"old": [], "new": []}
    try:
        for r in range(rounds):
            for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
                swap.use(which)
                for _ in range(max(1, number // 10)):
                    step()
                times[which].append(min(timeit.repeat(step, number=number, repeat=3)) / number)
    finally:
        swap.use("new")
    return times


def summary(times):
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    return {"old_median": old, "new_median": new, "old_min": min(times["old"]), "new_min": min(times["new"]),
            "ratio": new / old}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workload", help="a benchmarks.models workload (overhead, mlp, cnn, gpt, infer_mlp, ...)")
    ap.add_argument("targets", nargs="+", help="module:qualname of each changed function")
    ap.add_argument("--base", required=True, help="the old tree's source root (the directory holding npgrad/)")
    ap.add_argument("--number", type=int, default=20, help="calls per timing")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args(argv)
    import npgrad
    from benchmarks import models
    npgrad.set_num_threads(2)
    swap = Swap(args.base, args.targets)
    _, step = getattr(models, args.workload)(npgrad)
    s = summary(alternate(step, swap, args.number, args.rounds))
    print(f"{args.workload}: old median {s['old_median'] * 1e6:.1f} us (min {s['old_min'] * 1e6:.1f}), new median "
          f"{s['new_median'] * 1e6:.1f} us (min {s['new_min'] * 1e6:.1f}); new/old {s['ratio']:.3f} over "
          f"{args.rounds} alternating rounds")


if __name__ == "__main__":
    main()
