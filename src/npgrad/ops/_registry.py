"""The operator registry: every public operator is declared once, where it is defined.

    @op("multiply", inplace="ufunc")
    def mul(input, other): ...

declares ``torch.mul`` and ``torch.multiply``, the Tensor methods ``mul``/``multiply`` and their in-place
``mul_``/``multiply_`` (made by ``ops/inplace.py`` from the kind named, here the ufunc kernel). Everything
else is derived from these records: the Tensor methods and in-place variants, the names ``npgrad.ops``
(and so ``npgrad``) exports, the lazily loaded families' names and method stubs (``ops/_lazy_index.py``,
generated from the records by `python -m npgrad.ops`), and the operator list the tests check for coverage.
``python -m npgrad.ops --list`` prints every record.

Tensor attributes that are not a public operator of their own (the Python operators ``__add__`` ...,
properties like ``.T``, in-place kernels such as ``copy_``) are attached with ``method(name, fn)``, the
one other door; it records them too. No other code assigns to Tensor (a test checks the source).

A graph node's PyTorch name (``MulBackward0``) is a fact of the node class, not of the public
function (one function can record different nodes): it is the class's ``node_name`` (a string, or a
function of the node when it depends on what the node remembers), and ``<Class>Backward0`` without one.
"""
import inspect
import sys
from types import FunctionType

from ..tensor import Tensor

__all__ = ["op", "method", "OpRecord", "RECORDS", "OPS", "METHODS"]

# Kinds of in-place variant ``ops/inplace.py`` knows how to make: "generic" computes out of place and
# writes the result back; "ufunc" writes through the NumPy ufunc's ``out=`` (the arithmetic operators);
# "reshape" rebinds the tensor to a new view of its memory (squeeze_, transpose_ ...).
INPLACE_KINDS = ("generic", "ufunc", "reshape")


class OpRecord:
    """One public operator: its function, public names, Tensor method names and in-place kind."""

    __slots__ = ("name", "fn", "public_fn", "aliases", "methods", "inplace", "family", "public")

    def __init__(self, fn, name, aliases, methods, inplace, public):
        self.name, self.fn, self.aliases, self.methods = name, fn, aliases, methods
        self.public_fn = fn  # torch.<name>: fn, or fn taking ``out=`` too (see _with_out)
        self.inplace, self.public = inplace, public
        self.family = fn.__module__.rsplit(".", 1)[-1]

    @property
    def names(self):
        """The public function names (``torch.<name>``); empty for a method-only operator."""
        return (self.name,) + self.aliases if self.public else ()

    def inplace_methods(self):
        return tuple(m + "_" for m in self.methods if not m.startswith("__")) if self.inplace else ()

    def __repr__(self):
        return f"OpRecord({self.name!r}, family={self.family!r}, methods={self.methods}, inplace={self.inplace!r})"


RECORDS = []   # every OpRecord, in declaration order
OPS = {}       # public function name (aliases too) -> OpRecord
METHODS = {}   # Tensor attribute name -> the OpRecord that made it, or the module that attached it


def op(*aliases, name=None, methods=None, inplace=None, public=True):
    """Declare the decorated function a public operator.

    ``aliases``: further public names for the same function (``torch.multiply`` for ``mul``).
    ``methods``: the Tensor method names, by default the public names; ``()`` for a function with no
    method (``torch.rsub``). ``inplace``: the kind of ``name_`` variant each method gets
    (see ``INPLACE_KINDS``), None for none. ``public=False``: a Tensor method only (``Tensor.view``).
    """
    if inplace is not None and inplace not in INPLACE_KINDS:
        raise ValueError(f"inplace must be one of {INPLACE_KINDS} or None, not {inplace!r}")

    def declare(fn):
        n = name or fn.__name__
        public_fn = _with_numpy_spellings(fn, n)
        rec = OpRecord(public_fn, n, tuple(aliases), tuple((n,) + aliases if methods is None else methods), inplace, public)
        rec.public_fn = _with_out(public_fn, rec)
        for n in rec.names:
            if n in OPS:
                raise RuntimeError(f"operator {n!r} declared twice ({OPS[n]!r} and {rec!r})")
        RECORDS.append(rec)
        OPS.update(dict.fromkeys(rec.names, rec))
        for m in rec.methods:
            _attach(m, public_fn, rec)
        return fn   # the family's own calls keep the direct function
    return declare


def _with_out(fn, rec):
    """The public function with PyTorch's ``out=`` keyword, for the operators PyTorch gives one (ops/_out.py);
    ``fn`` itself otherwise, or when it already takes ``out``. Methods never get it."""
    from ._out_index import OUT_NAMES
    if not rec.public or not OUT_NAMES.intersection(rec.names):
        return fn
    params = _parameter_names(fn)
    if params is None or "out" in params:
        return fn
    name = rec.name
    # One wrapper, not two stacked: an operator that also takes NumPy's spellings renames here.
    inner, renames = (fn.__wrapped__, fn._renames) if hasattr(fn, "_renames") else (fn, {})

    def call(*args, out=None, **kwargs):
        if kwargs and renames:
            _rename(kwargs, renames)
        if out is None:
            return inner(*args, **kwargs)
        from . import _out
        _out.check_out(name, out, args, kwargs)
        return _out.write_out(name, inner(*args, **kwargs), out)

    _like(call, inner)
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    call.__signature__ = sig.replace(parameters=params)
    return call


# PyTorch's argument parser accepts NumPy's spellings for two parameters of every native operator:
# ``axis`` for ``dim`` and ``keepdims`` for ``keepdim``. Operators PyTorch writes in Python do not.
NUMPY_SPELLINGS = {"axis": "dim", "keepdims": "keepdim"}
_PYTHON_LEVEL_IN_TORCH = frozenset({"norm", "split", "unique", "unique_consecutive"})


def _with_numpy_spellings(fn, name):
    """``fn`` itself, or (when it has a ``dim``/``keepdim`` parameter) a function that also takes ``axis``/
    ``keepdims``. The wrapper only looks at keywords, so positional calls pay one extra call and nothing else."""
    if name in _PYTHON_LEVEL_IN_TORCH:
        return fn
    params = _parameter_names(fn)
    if params is None:
        return fn
    renames = {a: d for a, d in NUMPY_SPELLINGS.items() if d in params and a not in params}
    if not renames:
        return fn

    def call(*args, **kwargs):
        if kwargs:
            _rename(kwargs, renames)
        return fn(*args, **kwargs)

    _like(call, fn)
    call._renames = renames
    return call


_CO_VARARGS, _CO_VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS


def _parameter_names(fn):
    """The names ``inspect.signature(fn).parameters`` holds, or None where it has none. A plain function's come
    from its code object: building ~500 Signatures at import was a quarter of ``import npgrad`` (12 ms)."""
    while hasattr(fn, "_renames"):  # one of _with_numpy_spellings's wrappers: it presents fn's signature
        fn = fn.__wrapped__
    if type(fn) is not FunctionType or "__wrapped__" in fn.__dict__ or "__signature__" in fn.__dict__:
        try:
            return tuple(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            return None
    code = fn.__code__
    names, n, k = code.co_varnames, code.co_argcount, code.co_kwonlyargcount
    star = names[n + k:n + k + 1] if code.co_flags & _CO_VARARGS else ()  # (after the keyword-only names)
    starstar = names[n + k + len(star):n + k + len(star) + 1] if code.co_flags & _CO_VARKEYWORDS else ()
    return names[:n] + star + names[n:n + k] + starstar


def _rename(kwargs, renames):
    for alias, canonical in renames.items():
        # With both spellings given, the alias stays and the call fails as PyTorch's does.
        if alias in kwargs and canonical not in kwargs:
            kwargs[canonical] = kwargs.pop(alias)


def _like(call, fn):
    """``call`` presented as ``fn`` (name, docstring, ``inspect.signature`` through ``__wrapped__``)."""
    call.__name__, call.__qualname__, call.__module__ = fn.__name__, fn.__qualname__, fn.__module__
    call.__doc__, call.__wrapped__ = fn.__doc__, fn


def method(name, fn):
    """Attach ``fn`` as ``Tensor.<name>`` (a property, a Python operator, an in-place kernel)."""
    _attach(name, fn, sys._getframe(1).f_globals.get("__name__"))
    return fn


def _attach(name, fn, origin):
    setattr(Tensor, name, fn)
    METHODS[name] = origin


def detach_method(name):
    """Remove ``Tensor.<name>`` (a lazy family's stub, before the family's real method replaces it)."""
    delattr(Tensor, name)
    METHODS.pop(name, None)

