"""The named tuples operators return, as ``torch.return_types``: ``x.max(dim)`` is a
``return_types.max(values=..., indices=...)`` that unpacks like a tuple and prints as PyTorch's does.

Each type is a ``collections.namedtuple`` subclass. Like PyTorch's structseq types it can also be built
from one sequence (``return_types.max((values, indices))``). A type is made on first use (a namedtuple costs
about 0.1 ms to create, and most programs use two or three of these).
"""
import collections

def _make(name, fields):
    base = collections.namedtuple(name, fields)
    n = len(fields)

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], (tuple, list)) and len(args[0]) == n:
            args = tuple(args[0])  # PyTorch's structseq form: one sequence of all fields
        return base.__new__(cls, *args, **kwargs)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"

    cls = type(name, (base,), {"__slots__": (), "__new__": __new__, "__repr__": __repr__,
                               "__module__": __name__, "__qualname__": name,
                               "n_fields": n, "n_sequence_fields": n, "n_unnamed_fields": 0})
    globals()[name] = cls
    return cls


_FIELDS = dict([
    ("max", "values indices"), ("min", "values indices"), ("sort", "values indices"),
    ("topk", "values indices"), ("kthvalue", "values indices"), ("median", "values indices"),
    ("nanmedian", "values indices"), ("mode", "values indices"), ("cummax", "values indices"),
    ("cummin", "values indices"), ("aminmax", "min max"), ("frexp", "mantissa exponent"),
    ("histogram", "hist bin_edges"), ("histogramdd", "hist bin_edges"), ("slogdet", "sign logabsdet"), ("qr", "Q R"), ("svd", "U S V"),
    ("geqrf", "a tau"), ("triangular_solve", "solution cloned_coefficient"), ("lu_unpack", "P L U"),
    ("linalg_slogdet", "sign logabsdet"), ("linalg_qr", "Q R"), ("linalg_svd", "U S Vh"),
    ("linalg_eigh", "eigenvalues eigenvectors"), ("linalg_eig", "eigenvalues eigenvectors"),
    ("linalg_inv_ex", "inverse info"), ("linalg_cholesky_ex", "L info"), ("linalg_solve_ex", "result info"),
    ("linalg_lstsq", "solution residuals rank singular_values"), ("linalg_lu", "P L U"),
    ("linalg_lu_factor", "LU pivots"), ("linalg_lu_factor_ex", "LU pivots info"), ("_lu_with_info", "LU pivots info"),
    ("linalg_ldl_factor", "LD pivots"), ("linalg_ldl_factor_ex", "LD pivots info"),
])
__all__ = list(_FIELDS)


def __getattr__(name):
    if name == "all_return_types":
        return [__getattr__(n) if n not in globals() else globals()[n] for n in __all__]
    if name in _FIELDS:
        return _make(name, _FIELDS[name].split())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
