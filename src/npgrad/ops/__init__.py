"""npgrad's operators, one family per module.

Importing a family declares its operators in the registry (``ops/_registry.py``), which attaches their
Tensor methods; ``inplace`` then makes the in-place variants the records ask for, and this package
exports every public name the records declare.
"""
from . import _registry
from . import arith, broadcast, unary, reduce, movement, indexing, products, pointwise, compare  # noqa: F401
from . import softmax  # noqa: F401,E402
from . import complex_math  # noqa: F401,E402  (eager: Tensor.real/.imag are properties)
from . import inplace  # noqa: F401  (after the families: it makes their in-place variants)
from . import tensor_attrs  # noqa: F401,E402  (Tensor properties: they cannot be lazy method stubs)
from . import _lowp  # noqa: F401,E402  (bfloat16/float8 computed in float32, and CPU autocast: one op hook)
from ._lazy_index import LAZY_METHODS, LAZY_NAMES

# What autograd needs from the operators (see autograd/_protocol.py).
from ..autograd import _protocol as _autograd_protocol  # noqa: E402
_autograd_protocol.register_tensor_ops(sum_to=broadcast.SumTo.apply, cast=arith._Cast.apply, stack=movement.stack)

inplace.register_inplace_variants()

# Families used less often load on first use, which keeps `import npgrad` fast: their functions are
# found through npgrad.__getattr__, and their Tensor methods start as stubs that load the families and
# are then replaced by the real methods. (Not a Tensor.__getattr__: defining one slows every attribute
# access on every tensor.) Their names must exist before the modules are imported, so they are read
# from ``_lazy_index.py``, which `python -m npgrad.ops` (write_lazy_index) generates from the records.
LAZY_FAMILIES = ("sorting", "counting", "cumulative", "distance", "special", "decomp", "index_put", "scatter_reduce",
                 "strided", "view_copy", "pointwise_extra", "movement_extra", "integrate", "histogram", "predicates",
                 "sampling", "tensor_extras", "products_extra", "decomp_lu", "matrix_exp", "householder", "lowrank",
                 "special_bessel", "special_poly", "special_gamma", "spectral", "vander")

# What `from npgrad.ops import *` gives npgrad: every public name the eager families declared (binding
# them here rebinds a family's module name where an operator has the same name).
__all__ = sorted(_registry.OPS)
globals().update({name: rec.public_fn for name, rec in _registry.OPS.items()})

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


def write_lazy_index(path=None):
    """Regenerate ``_lazy_index.py`` from the records of the lazily loaded families (in a fresh process:
    ``python -m npgrad.ops``); returns its text."""
    from ..tensor import Tensor
    if _lazy_loaded[0]:
        # The stubs are gone once the families load: the index would come out without its methods.
        raise RuntimeError("write_lazy_index must run before the lazy families load: use `python -m npgrad.ops` "
                           "in a fresh process")
    eager = {m for m in _registry.METHODS if not getattr(vars(Tensor)[m], "_lazy_stub", False)}
    load_lazy_families()
    names = {n: rec.family for n, rec in _registry.OPS.items() if rec.family in LAZY_FAMILIES}
    methods = sorted(set(_registry.METHODS) - eager)
    lines = ['"""The lazily loaded operator families\' public names and Tensor methods, generated from the',
             "registry's records by `python -m npgrad.ops`: do not edit (tests/test_lazy_import.py keeps",
             'it in sync)."""', "", "LAZY_NAMES = {"]
    lines += [f"    {n!r}: {f!r}," for n, f in sorted(names.items())]
    lines += ["}", "LAZY_METHODS = ("]
    lines += [f"    {m!r}," for m in methods]
    lines += [")", ""]
    text = "\n".join(lines)
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return text
