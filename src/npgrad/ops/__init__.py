"""npgrad's operators, one family per module; importing this package attaches them to Tensor."""
from . import arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare  # noqa: F401
from . import softmax  # noqa: F401,E402
from . import inplace  # noqa: F401  (after the families: it wraps their methods)

inplace.register_generic_inplace()

# What autograd needs from the operators (see autograd/_protocol.py).
from ..autograd import _protocol as _autograd_protocol  # noqa: E402
_autograd_protocol.register_tensor_ops(sum_to=broadcast.SumTo.apply, cast=arith._Cast.apply, stack=movement.stack)

# What `from npgrad.ops import *` gives npgrad: the operators, not the family modules themselves.
# (Computed before the star imports below, some of which rebind a family's name to a function.)
__all__ = [name for family in (arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare,
                               softmax) for name in family.__all__]

from .arith import *  # noqa: E402,F401,F403
from .broadcast import *  # noqa: E402,F401,F403
from .unary import *  # noqa: E402,F401,F403
from .reduce import *  # noqa: E402,F401,F403
from .movement import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .linalg import *  # noqa: E402,F401,F403
from .select import *  # noqa: E402,F401,F403
from .compare import *  # noqa: E402,F401,F403
from .softmax import *  # noqa: E402,F401,F403


# Families used less often load on first use, which keeps `import npgrad` fast: their functions are
# found through npgrad.__getattr__, and their Tensor methods start as stubs that load the families and
# are then replaced by the real methods. (Not a Tensor.__getattr__: defining one slows every attribute
# access on every tensor.) The names are listed here so they exist before the modules are imported; a
# test keeps the lists exact.
LAZY_FAMILIES = {
    "sorting": ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "quantile",
                "nanquantile"],
    "counting": ["unique", "unique_consecutive", "bincount", "histc", "searchsorted", "bucketize"],
    "cumulative": ["cummax", "cummin", "logcumsumexp", "diff"],
    "distance": ["cdist"],
    "special": ["erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "logit", "sinc", "xlog1py",
                "entr", "ndtr"],
    "decomp": ["inverse", "det", "logdet", "slogdet", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
               "pinverse", "matrix_power"],
}
LAZY_NAMES = {name: family for family, names in LAZY_FAMILIES.items() for name in names}
LAZY_METHODS = ["argsort", "bincount", "cholesky", "cholesky_inverse", "cholesky_solve", "cummax", "cummin", "det",
                "diff", "digamma", "digamma_", "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "histc", "inverse",
                "kthvalue", "lgamma", "lgamma_", "logcumsumexp", "logdet", "logit", "logit_", "matrix_power",
                "median", "mode", "msort", "mvlgamma", "mvlgamma_", "nanmedian", "nanquantile", "pinverse",
                "polygamma", "polygamma_", "qr", "quantile", "sinc", "sinc_", "slogdet", "sort", "svd", "topk",
                "unique", "unique_consecutive"]
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
            delattr(Tensor, name)
    for family in LAZY_FAMILIES:
        importlib.import_module(f".{family}", __name__)
    inplace.register_generic_inplace()  # now that their methods exist: erfinv_, logit_, ...


def _install_method_stubs():
    from ..tensor import Tensor
    for name in LAZY_METHODS:
        if name not in Tensor.__dict__:
            setattr(Tensor, name, _method_stub(name))


_install_method_stubs()


def lazy_families_loaded():
    return _lazy_loaded[0]
