"""``torch.special``: special functions under their SciPy-style names.

The implementations live in ``npgrad.ops.special`` (and ``npgrad.ops`` / ``npgrad.nn.functional`` for the
aliases); this module only gathers them under PyTorch's names.
"""

from .ops.special import (digamma, entr, erf, erfc, erfinv, logit, ndtr, polygamma, sinc,  # noqa: F401
                          xlog1py)
from .ops.special import digamma as psi, lgamma as gammaln  # noqa: F401
from .ops.unary import exp2, expm1, log1p, round, sigmoid as expit  # noqa: F401
from .ops.reduce import logsumexp  # noqa: F401
from .ops.pointwise import xlogy  # noqa: F401
from .ops.softmax import log_softmax as _log_softmax, softmax as _softmax

__all__ = ["digamma", "psi", "gammaln", "polygamma", "multigammaln", "erf", "erfc", "erfinv", "logit", "expit",
           "exp2", "expm1", "log1p", "round", "logsumexp", "xlogy", "xlog1py", "sinc", "entr", "ndtr", "log_ndtr",
           "softmax", "log_softmax"]


def multigammaln(input, p):
    from .ops.special import mvlgamma
    return mvlgamma(input, p)


def log_ndtr(input):
    """log of the standard normal CDF (through erfc, so the lower tail keeps its accuracy down to ~-37)."""
    return ndtr(input).log()


def softmax(input, dim, *, dtype=None):
    return _softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return _log_softmax(input, dim, dtype)


