"""npgrad's operators, one family per module.

Importing a family declares its operators in the registry (``ops/_registry.py``), which attaches their
Tensor methods; ``inplace`` then makes the in-place variants the records ask for, and this package
exports every public name the records declare.
"""
from . import _registry
from . import arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare  # noqa: F401
from . import softmax_methods  # noqa: F401,E402
from . import inplace  # noqa: F401  (after the families: it makes their in-place variants)
from ._lazy_index import LAZY_METHODS, LAZY_NAMES

inplace.register_inplace_variants()

# Families used less often load on first use, which keeps `import npgrad` fast: their functions are
# found through npgrad.__getattr__, and their Tensor methods start as stubs that load the families and
# are then replaced by the real methods. (Not a Tensor.__getattr__: defining one slows every attribute
# access on every tensor.) Their names must exist before the modules are imported, so they are read
# from ``_lazy_index.py``, which `python -m npgrad.ops._registry` generates from the records.
LAZY_FAMILIES = ("sorting", "counting", "cumulative", "distance", "special", "decomp")

# What `from npgrad.ops import *` gives npgrad: every public name the eager families declared (binding
# them here rebinds a family's module name where an operator has the same name, e.g. `select`).
__all__ = sorted(_registry.OPS)
globals().update({name: rec.fn for name, rec in _registry.OPS.items()})

_lazy_loaded = [False]


def _method_stub(name):
    def stub(self, *args, **kwargs):
        load_lazy_families()
        return getattr(self, name)(*args, **kwargs)
    stub.__name__ = name
    stub._lazy_stub = True
    return stub


def load_lazy_families():
    """Import the lazily loaded operator families (once); they replace the method stubs."""
    if _lazy_loaded[0]:
        return
    _lazy_loaded[0] = True
    import importlib
    from ..tensor import Tensor
    for name in LAZY_METHODS:  # remove the stubs so the families' own registration takes their place
        if getattr(Tensor.__dict__.get(name), "_lazy_stub", False):
            _registry.detach_method(name)
    for family in LAZY_FAMILIES:
        importlib.import_module(f".{family}", __name__)
    inplace.register_inplace_variants()  # now that their records exist: erfinv_, logit_, ...


def _install_method_stubs():
    from ..tensor import Tensor
    for name in LAZY_METHODS:
        if name not in Tensor.__dict__:
            _registry.method(name, _method_stub(name))


_install_method_stubs()


def lazy_families_loaded():
    return _lazy_loaded[0]
