"""How an operator call reaches its batching rule while vmap runs.

Two doors, both derived from tables: the ``BatchedTensor`` class gets one method per Tensor operator
(every name the op registry attached, ``__add__`` included), and while a vmap call runs the public
functions user code calls (``npgrad.<op>``, ``npgrad.nn.functional.<fn>``, ``npgrad.special``/``linalg``)
are swapped for dispatching versions, restored when the outermost vmap returns. Outside vmap nothing is
swapped, so plain Tensors pay nothing. A call with no batched argument goes straight to the original.

A call with batched arguments goes to the rule of its name (_batch_rules.py); a rule may answer
``NotImplemented`` for argument forms it does not cover. Without a rule the operator runs once per example
of the innermost batched level, on physical slices, and the results are stacked (a one-time
performance warning names the operator, as functorch's fallback does).
"""
import warnings

from ..tensor import Tensor
from . import _batched, _function_vmap
from ._batched import _BatchedBase, make, LEVELS

__all__ = ["call", "RULES", "dispatching", "swapped", "fallback"]

RULES = {}      # qualified name ("add", "Tensor.__getitem__", "nn.functional.linear") -> rule(qname, level, args, kwargs)
ORIGINAL = {}   # qualified name -> the function the dispatching version replaced
_warned = set()


def _max_level(args, kwargs):
    lv = 0
    for a in args:
        if isinstance(a, _BatchedBase):
            lv = a._level if a._level > lv else lv
        elif type(a) in (list, tuple):
            for b in a:
                if isinstance(b, _BatchedBase) and b._level > lv:
                    lv = b._level
    if kwargs:
        for a in kwargs.values():
            if isinstance(a, _BatchedBase) and a._level > lv:
                lv = a._level
            elif type(a) in (list, tuple):
                for b in a:
                    if isinstance(b, _BatchedBase) and b._level > lv:
                        lv = b._level
    return lv


def call(qname, *args, **kwargs):
    """Run operator ``qname`` on possibly batched arguments."""
    level = _max_level(args, kwargs)
    if not level:
        return ORIGINAL[qname](*args, **kwargs)
    rule = RULES.get(qname)
    if rule is not None:
        out = rule(qname, level, args, kwargs)
        if out is not NotImplemented:
            return out
    return fallback(qname, level, args, kwargs)


def _size(level):
    for lv, size, _ in LEVELS:
        if lv == level:
            return size
    raise RuntimeError("vmap: a batched tensor escaped the vmap call that made it")


# operators that address the storage itself (an explicit storage offset): they get each example's copy
_OWN_STORAGE = frozenset({"as_strided", "as_strided_copy", "as_strided_scatter", "Tensor.as_strided",
                          "Tensor.as_strided_scatter"})


def _slice(x, level, i, copy=False):
    if isinstance(x, _BatchedBase) and x._level == level:
        return x._value.select(0, i).clone() if copy else x._value.select(0, i)
    if type(x) in (list, tuple):
        return type(x)(_slice(y, level, i, copy) for y in x)
    return x


def fallback(qname, level, args, kwargs):
    """``qname`` once per example of ``level``, results stacked: the path of operators without a rule."""
    name = _public_name(qname)
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"There is a performance drop because we have not yet implemented the batching rule for "
                      f"{name}. npgrad runs it as a loop over the examples.", UserWarning, stacklevel=4)
    size = _size(level)
    with _batched.suspended(level):
        c = qname in _OWN_STORAGE
        results = [call(qname, *[_slice(a, level, i, c) for a in args], **{k: _slice(v, level, i, c) for k, v in
                                                                           kwargs.items()}) for i in range(size)]
    if is_inplace(qname):
        return args[0]  # in place: the examples' slices were views of the physical tensor
    return _stack(results, level)


def _stack(results, level):
    first = results[0]
    if isinstance(first, Tensor):
        return make(call("stack", results), level)
    if isinstance(first, (tuple, list)) and all(type(r) is type(first) and len(r) == len(first) for r in results):
        fields = [_stack([r[k] for r in results], level) for k in range(len(first))]
        return type(first)(*fields) if hasattr(first, "_fields") else type(first)(fields)
    if all(r is first for r in results) or not any(isinstance(r, Tensor) for r in results) and \
            all(type(r) is type(first) and r == first for r in results):
        return first
    raise RuntimeError("vmap: the operator returned a different non-Tensor value for different examples; "
                       "vmap cannot batch that")


INPLACE_DUNDERS = frozenset(f"Tensor.__i{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                                          "and", "or", "xor", "lshift", "rshift", "matmul"))


def is_inplace(qname):
    return qname.endswith("_") and not qname.endswith("__") or qname in INPLACE_DUNDERS


def _public_name(qname):
    return qname if qname.startswith(("Tensor.", "nn.", "special.", "linalg.", "fft.")) else "torch." + qname


def dispatching(qname, original, register=True):
    """The function ``npgrad`` exposes under ``qname`` while a vmap runs."""
    if register:
        ORIGINAL[qname] = original

    def dispatch(*args, **kwargs):
        if not _max_level(args, kwargs):
            return original(*args, **kwargs)
        return call(qname, *args, **kwargs)
    dispatch.__name__ = getattr(original, "__name__", qname)
    dispatch.__doc__, dispatch.__wrapped__ = getattr(original, "__doc__", None), original
    return dispatch


def _method(name):
    qname = "Tensor." + name
    attr = getattr(Tensor, name, None)
    if isinstance(attr, property):
        ORIGINAL[qname] = attr.fget
    else:
        ORIGINAL[qname] = lambda self, *a, **k: getattr(Tensor, name)(self, *a, **k)

    def method(self, *args, **kwargs):
        return call(qname, self, *args, **kwargs)
    method.__name__ = name
    return method


_TENSOR_BODY_METHODS = ("to", "type", "type_as", "float", "double", "half", "long", "int", "short", "char", "byte",
                        "bool", "cpu", "cuda", "clone", "contiguous", "detach_", "backward", "register_hook",
                        "retain_grad", "stride", "is_contiguous", "storage_offset", "data_ptr")


def _build_class():
    from ..ops import _registry, load_lazy_families
    load_lazy_families()
    body = dict(_BatchedBase.__dict__)
    names = [n for n in _registry.METHODS if n not in body or n in ("T", "mT", "H", "mH")]
    ns = {"__slots__": (), "__hash__": Tensor.__hash__, "__doc__": _BatchedBase.__doc__}
    for n in list(names) + [n for n in _TENSOR_BODY_METHODS if n not in body]:
        attr = getattr(Tensor, n, None)
        if isinstance(attr, property):
            ns[n] = property(_method(n))
        else:
            ns[n] = _method(n)
    ns["__hash__"] = Tensor.__hash__
    cls = type("BatchedTensor", (_BatchedBase,), ns)
    cls.__module__ = __name__
    return cls


# -- the public functions swapped while vmap runs -------------------------------------------------------
_SWAPS = []          # [(module dict, {name: original}, names not in the dict before)], made on first use
_depth = [0]


def _namespaces():
    import sys
    from ..ops import _registry
    # the package namespace user code calls (torch.add ...): already loaded (it is how func was reached);
    # vmap swaps entries of it, it uses nothing from it
    npgrad = sys.modules[__name__.split(".")[0]]
    from .. import factories, special, linalg
    from ..nn import functional as F
    tables = []
    top = {n: getattr(npgrad, n) for n in _registry.OPS if hasattr(npgrad, n)}
    for n in ("zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like", "randint_like",
              "rand", "randn", "randint"):
        top.setdefault(n, getattr(npgrad, n, None) or getattr(factories, n))
    from ._batch_rules_random import SIZED, random_dispatching
    tables.append((npgrad.__dict__, {n: (random_dispatching if n in SIZED else dispatching)(n, f)
                                     for n, f in top.items() if callable(f)}))
    from ..nn._functional import rnn
    from ._batch_rules_fold import RNN_KERNELS   # the kernels nn.LSTM/GRU/RNN call (through their module)
    tables.append((rnn.__dict__, {n: dispatching(n, getattr(rnn, n)) for n in RNN_KERNELS}))
    for prefix, mod in (("nn.functional.", F), ("special.", special), ("linalg.", linalg)):
        fns = {n: f for n, f in vars(mod).items() if not n.startswith("_") and callable(f) and not isinstance(f, type)
               and getattr(f, "__module__", "").startswith("npgrad")}
        tables.append((mod.__dict__, {n: dispatching(prefix + n, f) for n, f in fns.items()}))
    return tables


_tables = []


def _library_imports():
    """The same functions where npgrad's own modules imported them by name (a layer calling its activation,
    a functional calling an operator): swapped too, so library code reaching them dispatches as well."""
    import sys
    by_id = {}
    for _, table in _tables:
        for disp in table.values():
            by_id[id(disp.__wrapped__)] = disp
            inner = getattr(disp.__wrapped__, "__wrapped__", None)
            if inner is not None:
                by_id.setdefault(id(inner), disp)
    root = __name__.split(".")[0] + "."
    tables = []
    for name, mod in list(sys.modules.items()):
        if not name.startswith(root) or name.startswith(__package__) or mod is None:
            continue
        d = vars(mod)
        table = {}
        for k, v in d.items():
            disp = by_id.get(id(v))
            if disp is not None and not k.startswith("__"):
                table[k] = disp if disp.__wrapped__ is v else _rebound(disp, v)
        if table and d is not sys.modules[root[:-1]].__dict__:
            tables.append((d, table))
    return tables


def _rebound(disp, original):
    # the registry's raw function (no out=/NumPy spellings): its own dispatcher, the same rule
    qname = next(q for q, f in ORIGINAL.items() if f is disp.__wrapped__)
    return dispatching(qname, original, register=False)


def setup():
    """Build the class and the swap tables once (the first vmap call)."""
    if not _tables:
        _batched.BatchedTensor = _build_class()
        _tables.extend(_namespaces())
        _tables.extend(_library_imports())
        from . import _batch_rules, _batch_rules_nn, _batch_rules_random, _batch_rules_fold  # noqa: F401 (RULES)


class swapped:
    """Context: the dispatching public functions in place (nesting-safe: the outermost restores)."""

    def __enter__(self):
        setup()
        if _depth[0] == 0:
            if not _SWAPS:   # what the tables replace: the same every call once the lazy families are loaded
                for d, table in _tables:
                    _SWAPS.append((d, {n: d[n] for n in table if n in d}, [n for n in table if n not in d]))
            for d, table in _tables:
                d.update(table)
            _function_vmap.install()
        _depth[0] += 1

    def __exit__(self, *exc):
        _depth[0] -= 1
        if _depth[0] == 0:
            _function_vmap.uninstall()
            for d, saved, missing in _SWAPS:
                d.update(saved)
                for n in missing:
                    d.pop(n, None)
        return False
