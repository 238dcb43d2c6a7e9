"""Constraints: the set a parameter or a sample lives in, with ``check(value)`` giving a bool Tensor.

Most constraints are a membership test plus a few flags, so they are made from one table (``_SETS``) by
``_make``: bounded sets keep their bounds as named attributes (``lower_bound``, ``upper_bound``) and print
them; the rest print as ``Name()``. The structural ones (dependent, independent, cat, stack, the mixture's)
are written out below.
"""
from . import _torch as torch

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
           "greater_than_eq", "independent", "integer_interval", "interval", "half_open_interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "multinomial",
           "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square", "stack",
           "symmetric", "unit_interval"]


class Constraint:
    """The base class: ``is_discrete`` and ``event_dim`` describe the set, ``check`` tests membership."""
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Tabled(Constraint):
    """A constraint from the table: ``_test(value, *bounds)`` with the bounds stored under ``_bound_names``."""
    _bound_names = ()
    _test = None
    _shown = True  # whether repr lists the bounds (Multinomial's does not)

    def __init__(self, *bounds):
        for key, bound in zip(self._bound_names, bounds, strict=True):
            setattr(self, key, bound)

    def check(self, value):
        return type(self)._test(value, *(getattr(self, key) for key in self._bound_names))

    def __repr__(self):
        if not self._shown:
            return super().__repr__()
        shown = ", ".join(f"{key}={getattr(self, key)}" for key in self._bound_names)
        return f"{type(self).__name__.lstrip('_')}({shown})"


def _whole(v):
    return v % 1 == 0


def _row_reduce(flags, ndims):
    """All of the rightmost ``ndims`` dims of a bool tensor."""
    for _ in range(ndims):
        flags = flags.all(-1)
    return flags


def _is_lower(v):
    return _row_reduce(v.tril() == v, 2)


def _lower_cholesky(v):
    return _is_lower(v) & _row_reduce(v.diagonal(dim1=-2, dim2=-1) > 0, 1)


def _corr_cholesky(v):
    from .utils import _eps
    tolerance = 10 * _eps(v.dtype) * v.shape[-1]
    unit_rows = _row_reduce((torch.linalg.norm(v.detach(), dim=-1) - 1.0).abs() <= tolerance, 1)
    return _lower_cholesky(v) & unit_rows


def _square(v):
    return torch.full(v.shape[:-2], v.shape[-2] == v.shape[-1], dtype=torch.bool)


def _matrix_chain(*tests):
    """Tests tried in order; the first one that fails anywhere is the answer (later ones need its property:
    eigvalsh wants a symmetric matrix)."""
    def test(v):
        for t in tests:
            flags = t(v)
            if not bool(flags.all()):
                return flags
        return flags
    return test


def _symmetric(v):
    return _row_reduce(torch.isclose(v, v.mT, atol=1e-6), 2)


def _spectrum(strict):
    # eigenvalues rather than cholesky_ex's info: npgrad.linalg.cholesky_ex raises on a failed factorization
    return lambda v: _row_reduce(torch.linalg.eigvalsh(v) > 0 if strict else torch.linalg.eigvalsh(v) >= 0, 1)


# name: (bound names, membership test, event_dim, is_discrete[, show bounds in repr])
_SETS = {
    "_Real": ((), lambda v: v == v, 0, False),  # False only at NaN
    "_Boolean": ((), lambda v: (v == 0) | (v == 1), 0, True),
    "_OneHot": ((), lambda v: _row_reduce((v == 0) | (v == 1), 1) & (v.sum(-1) == 1), 1, True),
    "_GreaterThan": (("lower_bound",), lambda v, lo: lo < v, 0, False),
    "_GreaterThanEq": (("lower_bound",), lambda v, lo: lo <= v, 0, False),
    "_LessThan": (("upper_bound",), lambda v, hi: v < hi, 0, False),
    "_Interval": (("lower_bound", "upper_bound"), lambda v, lo, hi: (lo <= v) & (v <= hi), 0, False),
    "_HalfOpenInterval": (("lower_bound", "upper_bound"), lambda v, lo, hi: (lo <= v) & (v < hi), 0, False),
    "_IntegerInterval": (("lower_bound", "upper_bound"), lambda v, lo, hi: _whole(v) & (lo <= v) & (v <= hi),
                         0, True),
    "_IntegerLessThan": (("upper_bound",), lambda v, hi: _whole(v) & (v <= hi), 0, True),
    "_IntegerGreaterThan": (("lower_bound",), lambda v, lo: _whole(v) & (v >= lo), 0, True),
    "_Simplex": ((), lambda v: _row_reduce(v >= 0, 1) & ((v.sum(-1) - 1).abs() < 1e-6), 1, False),
    # nonnegative integer vectors whose total is at most upper_bound
    "_Multinomial": (("upper_bound",), lambda v, n: _row_reduce(v >= 0, 1) & (v.sum(-1) <= n), 1, True, False),
    "_LowerTriangular": ((), _is_lower, 2, False),
    "_LowerCholesky": ((), _lower_cholesky, 2, False),
    "_CorrCholesky": ((), _corr_cholesky, 2, False),
    "_Square": ((), _square, 2, False),
    "_Symmetric": ((), _matrix_chain(_square, _symmetric), 2, False),
    "_PositiveSemidefinite": ((), _matrix_chain(_square, _symmetric, _spectrum(False)), 2, False),
    "_PositiveDefinite": ((), _matrix_chain(_square, _symmetric, _spectrum(True)), 2, False),
}


def _make(name, bound_names, test, event_dim, is_discrete, shown=True):
    attrs = {"_bound_names": bound_names, "_test": staticmethod(test), "event_dim": event_dim,
             "is_discrete": is_discrete, "_shown": shown, "__module__": __name__, "__qualname__": name}
    return type(name, (_Tabled,), attrs)


globals().update({name: _make(name, *row) for name, row in _SETS.items()})


class _Dependent(Constraint):
    """Stands for a support that depends on other parameters (Uniform's interval); it cannot check. Its
    flags are known only when given (``dependent(is_discrete=..., event_dim=...)``)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._flags = {"is_discrete": is_discrete, "event_dim": event_dim}

    def _flag(self, key):
        value = self._flags[key]
        if value is NotImplemented:
            raise NotImplementedError(f".{key} cannot be determined statically")
        return value

    is_discrete = property(lambda self: self._flag("is_discrete"))
    event_dim = property(lambda self: self._flag("event_dim"))

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        given = {"is_discrete": is_discrete, "event_dim": event_dim}
        merged = {k: self._flags[k] if v is NotImplemented else v for k, v in given.items()}
        return _Dependent(**merged)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property whose class-level value is a dependent constraint (``Uniform.support``)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, **self._flags)


def _all_constraints(*cs):
    if not all(isinstance(c, Constraint) for c in cs):
        raise AssertionError


class _Wrapping(Constraint):
    """A constraint derived from one ``base_constraint``, discrete when it is."""

    def __init__(self, base_constraint):
        _all_constraints(base_constraint)
        self.base_constraint = base_constraint

    is_discrete = property(lambda self: self.base_constraint.is_discrete)


class _IndependentConstraint(_Wrapping):
    """``base_constraint`` over ``reinterpreted_batch_ndims`` more event dims: all of them must pass."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        super().__init__(base_constraint)
        n = reinterpreted_batch_ndims
        if not isinstance(n, int) or n < 0:
            raise AssertionError
        self.reinterpreted_batch_ndims = n

    event_dim = property(lambda self: self.base_constraint.event_dim + self.reinterpreted_batch_ndims)

    def check(self, value):
        flags = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if flags.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return flags.reshape(flags.shape[:flags.dim() - n] + (-1,)).all(-1)

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Pieces(Constraint):
    """Constraints for consecutive pieces of dimension ``dim``: Cat's pieces are blocks of ``lengths``,
    Stack's single slices."""

    def __init__(self, cseq, dim=0):
        _all_constraints(*cseq)
        self.cseq = list(cseq)
        self.dim = dim

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))

    def _dim_ok(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError


class _Cat(_Pieces):
    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError

    event_dim = property(lambda self: max(c.event_dim for c in self.cseq))

    def check(self, value):
        self._dim_ok(value)
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return torch.cat([c.check(value.narrow(self.dim, s, n))
                          for c, s, n in zip(self.cseq, starts, self.lengths)], self.dim)


class _Stack(_Pieces):
    @property
    def event_dim(self):
        widest = max(c.event_dim for c in self.cseq)
        return widest + 1 if self.dim + widest < 0 else widest

    def check(self, value):
        self._dim_ok(value)
        flags = [c.check(value.select(self.dim, i)) for i, c in zip(range(value.size(self.dim)), self.cseq)]
        return torch.stack(flags, self.dim)


class MixtureSameFamilyConstraint(_Wrapping):
    """A MixtureSameFamily's support: a value is in it when it is in the components' support, tested with a
    mixture dimension inserted (broadcasting over the components) and then reduced."""

    event_dim = property(lambda self: self.base_constraint.event_dim)

    def check(self, value):
        k = self.event_dim
        flags = self.base_constraint.check(value.unsqueeze(-1 - k))
        if value.dim() < k:
            raise ValueError(f"Expected value.dim() >= {k} but got {value.dim()}")
        return flags.reshape(flags.shape[:value.dim() - k] + (-1,)).all(-1)

    def __repr__(self):
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


# the public names: classes for the parametrised sets, instances for the fixed ones
dependent, dependent_property = _Dependent(), _DependentProperty
independent, cat, stack = _IndependentConstraint, _Cat, _Stack
greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan  # noqa: F821
interval, half_open_interval, integer_interval = _Interval, _HalfOpenInterval, _IntegerInterval  # noqa: F821
multinomial = _Multinomial  # noqa: F821
real, boolean, one_hot, simplex = _Real(), _Boolean(), _OneHot(), _Simplex()  # noqa: F821
real_vector = _IndependentConstraint(real, 1)
positive, nonnegative = _GreaterThan(0.0), _GreaterThanEq(0.0)  # noqa: F821
nonnegative_integer, positive_integer = _IntegerGreaterThan(0), _IntegerGreaterThan(1)  # noqa: F821
unit_interval = _Interval(0.0, 1.0)  # noqa: F821
lower_triangular, lower_cholesky, corr_cholesky = _LowerTriangular(), _LowerCholesky(), _CorrCholesky()  # noqa: F821
square, symmetric = _Square(), _Symmetric()  # noqa: F821
positive_semidefinite, positive_definite = _PositiveSemidefinite(), _PositiveDefinite()  # noqa: F821
