"""npgrad's operators, one family per module; importing this package attaches them to Tensor."""
from . import arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare  # noqa: F401
from . import softmax_methods  # noqa: F401,E402
from . import inplace  # noqa: F401  (after the families: it wraps their methods)

inplace.register_generic_inplace()

# What `from npgrad.ops import *` gives npgrad: the operators, not the family modules themselves.
# (Computed before the star imports below, some of which rebind a family's name to a function.)
__all__ = [name for family in (arith, broadcast, unary, reduce, movement, indexing, linalg, select, compare,
                               softmax_methods) for name in family.__all__]

from .arith import *  # noqa: E402,F401,F403
from .broadcast import *  # noqa: E402,F401,F403
from .unary import *  # noqa: E402,F401,F403
from .reduce import *  # noqa: E402,F401,F403
from .movement import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .linalg import *  # noqa: E402,F401,F403
from .select import *  # noqa: E402,F401,F403
from .compare import *  # noqa: E402,F401,F403
from .softmax_methods import *  # noqa: E402,F401,F403


# Families used less often load on first use, which keeps `import npgrad` fast: their functions are
# found through npgrad.__getattr__ and their Tensor methods through Tensor.__getattr__. The names are
# listed here so they can be found before the modules are imported (a test keeps the lists exact).
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
_lazy_loaded = [False]


def load_lazy_families():
    """Import the lazily loaded operator families (once); they attach their Tensor methods."""
    if _lazy_loaded[0]:
        return
    _lazy_loaded[0] = True
    import importlib
    for family in LAZY_FAMILIES:
        importlib.import_module(f".{family}", __name__)
    inplace.register_generic_inplace()  # now that their methods exist: erfinv_, logit_, ...


def lazy_families_loaded():
    return _lazy_loaded[0]
