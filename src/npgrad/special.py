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
from .ops.special_bessel import (airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, i0, i0e, i1, i1e,  # noqa: F401
                                 modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1,
                                 scaled_modified_bessel_k0, scaled_modified_bessel_k1, spherical_bessel_j0)
from .ops.special_poly import (chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,  # noqa: F401
                               chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he,
                               laguerre_polynomial_l, legendre_polynomial_p, shifted_chebyshev_polynomial_t,
                               shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
                               shifted_chebyshev_polynomial_w)
from .ops.special_gamma import erfcx, gammainc, gammaincc, ndtri, zeta  # noqa: F401

__all__ = ["digamma", "psi", "gammaln", "polygamma", "multigammaln", "erf", "erfc", "erfinv", "logit", "expit",
           "exp2", "expm1", "log1p", "round", "logsumexp", "xlogy", "xlog1py", "sinc", "entr", "ndtr", "log_ndtr",
           "softmax", "log_softmax", "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "erfcx", "gammainc", "gammaincc", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
           "laguerre_polynomial_l", "legendre_polynomial_p", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "ndtri", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "spherical_bessel_j0", "zeta"]


def multigammaln(input, p):
    from .ops.special import mvlgamma
    return mvlgamma(input, p)


def log_ndtr(input):
    """log of the standard normal CDF (through erfc, so the lower tail keeps its accuracy down to ~-37)."""
    if input._data.dtype.kind == "c":
        from .dtypes import not_implemented
        raise not_implemented("log_ndtr_cpu", input._data.dtype)
    return ndtr(input).log()


def softmax(input, dim, *, dtype=None):
    return _softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return _log_softmax(input, dim, dtype)


