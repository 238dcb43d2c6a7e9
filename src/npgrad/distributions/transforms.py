"""Transforms: maps y = f(x) with an inverse and a log|det J|, used by TransformedDistribution.

Every transform is a ``Transform``: the base holds the cache (``cache_size=1`` remembers the last (x, y)
pair, so ``inv(f(x))`` gives x back exactly), the inverse view, equality and the default shapes. The
parameterless ones are rows of one table (``_FIXED``: forward, inverse, log|det J|, sets, sign); the
parameterised ones (affine, power, reshape, ...) and the combinators (compose, independent, cat, stack)
are classes whose constructors record their arguments (``_setup``), which is how with_cache rebuilds them.
"""
import math
import numbers
import weakref

import numpy as np

from . import _torch as torch
from . import constraints as C
from .utils import _eps, _sum_rightmost, _tiny, broadcast_all

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftplusTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]


class Transform:
    """An invertible (or at least injective) map with a log-abs-det-Jacobian."""
    bijective = False
    domain = C.real
    codomain = C.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = (None, None)
        self._inv = None

    def _setup(self, cache_size, **args):
        """The constructor of a parameterised transform: the cache, and ``args`` stored under their names and
        remembered in order, so that with_cache can build the same transform with another cache size."""
        Transform.__init__(self, cache_size)
        # rebuilt as the library class (a user subclass's __init__ may take other arguments), as torch does
        self._rebuild_class = next(c for c in type(self).__mro__ if c.__module__ == __name__)
        self._rebuild_args = tuple(args.values())
        for key, value in args.items():
            setattr(self, key, value)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if "_rebuild_args" in self.__dict__:
            return self._rebuild_class(*self._rebuild_args, cache_size=cache_size)
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __getstate__(self):
        return {**self.__dict__, "_inv": None}

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        inverse = self._inv() if self._inv is not None else None
        if inverse is None:
            inverse = _InverseTransform(self)
            self._inv = weakref.ref(inverse)
        return inverse

    @property
    def sign(self):
        raise NotImplementedError

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        return self._through_cache(x, 0, self._call)

    def _inv_call(self, y):
        return self._through_cache(y, 1, self._inverse)

    def _through_cache(self, value, side, compute):
        """``compute(value)``, or the other half of the cached (x, y) pair when ``value`` is its ``side``."""
        if not self._cache_size:
            return compute(value)
        if value is self._cached_x_y[side]:
            return self._cached_x_y[1 - side]
        result = compute(value)
        self._cached_x_y = (value, result) if side == 0 else (result, value)
        return result

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape


def _swapped(name):
    """A property of the inverse that reads the forward transform's ``name``."""
    return property(lambda self: getattr(self._inv, name))


class _InverseTransform(Transform):
    """The inverse of a Transform, sharing its cache (``_inv`` here holds the forward transform itself)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    domain = C.dependent_property(lambda self: self._inv.codomain, is_discrete=False)
    codomain = C.dependent_property(lambda self: self._inv.domain, is_discrete=False)
    bijective = _swapped("bijective")
    sign = _swapped("sign")
    inv = property(lambda self: self._inv)

    def with_cache(self, cache_size=1):
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


# -- the parameterless transforms, one row each -------------------------------------------------------------

def _clip_unit(p):
    return p.clamp(min=_tiny(p.dtype), max=1.0 - _eps(p.dtype))


def _softplus(x):
    return torch.functional.softplus(x)


def _need_vector(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")
    return shape


def _softmax(x):
    e = (x - x.max(-1, True)[0]).exp()
    return e / e.sum(-1, True)


def _break_offsets(n, dtype):
    # log(K - i) for i = 0..K-1 centres each break at 1 / (K - i + 1), so x = 0 maps to the simplex's centre
    return (n - torch.arange(n, dtype=dtype)).log()


def _stick_breaking(x):
    z = _clip_unit(torch.sigmoid(x - _break_offsets(x.shape[-1], x.dtype)))
    left = (1 - z).cumprod(-1)
    pad = torch.functional.pad
    return pad(z, [0, 1], value=1) * pad(left, [1, 0], value=1)


def _stick_unbreaking(y):
    head = y[..., :-1]
    left = torch.clamp(1 - head.cumsum(-1), min=_tiny(y.dtype))
    return head.log() - left.log() + _break_offsets(head.shape[-1], y.dtype)


def _stick_ladj(x, y):
    x = x - _break_offsets(x.shape[-1], x.dtype)
    # dy_i/dx_i = y_i (1 - z_i) and 1 - sigmoid(x) = exp(-x) sigmoid(x)
    return (-x + torch.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)


def _map_diagonal(m, fn):
    """The strict lower triangle of m with fn applied to its diagonal."""
    return m.tril(-1) + torch.diag_embed(fn(m.diagonal(dim1=-2, dim2=-1)))


def _gram_of_lower_cholesky(x):
    low = _map_diagonal(x, torch.exp)
    return low @ low.mT


_MATRIX = C.independent(C.real, 2)

# name: (forward, inverse, log|det J| or None, domain, codomain, bijective, sign or None, shapes or None);
# shapes is (forward_shape, inverse_shape)
_FIXED = {
    "ExpTransform": (torch.exp, torch.log, lambda x, y: x, C.real, C.positive, True, 1, None),
    "SigmoidTransform": (lambda x: _clip_unit(torch.sigmoid(x)),
                         lambda y: (lambda p: p.log() - (-p).log1p())(_clip_unit(y)),
                         lambda x, y: -_softplus(-x) - _softplus(x), C.real, C.unit_interval, True, 1, None),
    "SoftplusTransform": (_softplus, lambda y: (-y).expm1().neg().log() + y, lambda x, y: -_softplus(-x),
                          C.real, C.positive, True, 1, None),
    # log(1 - tanh(x)^2), written to stay accurate for large |x|
    "TanhTransform": (torch.tanh, torch.atanh, lambda x, y: 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x)),
                      C.real, C.interval(-1.0, 1.0), True, 1, None),
    "AbsTransform": (torch.abs, lambda y: y, None, C.real, C.positive, False, None, None),
    # not bijective: adding a constant to x gives the same y
    "SoftmaxTransform": (_softmax, torch.log, None, C.real_vector, C.simplex, False, None,
                         (_need_vector, _need_vector)),
    "StickBreakingTransform": (_stick_breaking, _stick_unbreaking, _stick_ladj, C.real_vector, C.simplex, True,
                               None, (lambda s: _need_vector(s)[:-1] + (s[-1] + 1,),
                                      lambda s: _need_vector(s)[:-1] + (s[-1] - 1,))),
    "LowerCholeskyTransform": (lambda x: _map_diagonal(x, torch.exp), lambda y: _map_diagonal(y, torch.log),
                               None, _MATRIX, C.lower_cholesky, False, None, None),
    "PositiveDefiniteTransform": (_gram_of_lower_cholesky,
                                  lambda y: _map_diagonal(torch.linalg.cholesky(y), torch.log),
                                  None, _MATRIX, C.positive_definite, False, None, None),
}


class _Fixed(Transform):
    """A transform given by a _FIXED row; two of one kind are equal."""
    _row = None

    def __eq__(self, other):
        return isinstance(other, type(self))

    def _call(self, x):
        return self._row[0](x)

    def _inverse(self, y):
        return self._row[1](y)

    def log_abs_det_jacobian(self, x, y):
        if self._row[2] is None:
            raise NotImplementedError
        return self._row[2](x, y)

    def forward_shape(self, shape):
        return shape if self._row[7] is None else self._row[7][0](shape)

    def inverse_shape(self, shape):
        return shape if self._row[7] is None else self._row[7][1](shape)


def _fixed_class(name, row):
    attrs = {"_row": row, "domain": row[3], "codomain": row[4], "bijective": row[5], "__module__": __name__,
             "__qualname__": name}
    if row[6] is not None:
        attrs["sign"] = row[6]
    return type(name, (_Fixed,), attrs)


globals().update({name: _fixed_class(name, row) for name, row in _FIXED.items()})


# -- parameterised transforms -----------------------------------------------------------------------------

def _same_value(a, b):
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    return bool((a == b).all().item())


def _shape_of(*values):
    return [getattr(v, "shape", ()) for v in values]


class AffineTransform(Transform):
    """y = loc + scale * x, over ``event_dim`` event dimensions."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        self._setup(cache_size, loc=loc, scale=scale, _event_dim=event_dim)

    event_dim = property(lambda self: self._event_dim)

    def _space(self):
        return C.real if self._event_dim == 0 else C.independent(C.real, self._event_dim)

    domain = C.dependent_property(_space, is_discrete=False)
    codomain = C.dependent_property(_space, is_discrete=False)

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and _same_value(self.loc, other.loc)
                and _same_value(self.scale, other.scale))

    @property
    def sign(self):
        s = self.scale
        if isinstance(s, numbers.Real):
            return (float(s) > 0) - (float(s) < 0)
        return s.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        s = self.scale
        per_entry = torch.full_like(x, math.log(abs(s))) if isinstance(s, numbers.Real) else s.abs().log()
        k = self._event_dim
        if k:
            per_entry = _sum_rightmost(per_entry, k)
        return per_entry.expand(x.shape[:len(x.shape) - k])

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, *_shape_of(self.loc, self.scale))

    inverse_shape = forward_shape


class PowerTransform(Transform):
    """y = x ** exponent on the positive half line."""
    domain = C.positive
    codomain = C.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        self._setup(cache_size, exponent=broadcast_all(exponent)[0])

    sign = property(lambda self: self.exponent.sign())

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all().item())

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, *_shape_of(self.exponent))

    inverse_shape = forward_shape


class CumulativeDistributionTransform(Transform):
    """x -> F(x), the CDF of ``distribution``; its log-det is the log density."""
    bijective = True
    codomain = C.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        self._setup(cache_size, distribution=distribution)

    domain = property(lambda self: self.distribution.support)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


def _trailing_swap(shape, old, new):
    """``shape`` with its trailing ``old`` dims replaced by ``new``."""
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if tuple(shape[cut:]) != tuple(old):
        raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(old)}")
    return tuple(shape[:cut]) + tuple(new)


class ReshapeTransform(Transform):
    """Reshape the rightmost dims from ``in_shape`` to ``out_shape`` (same number of elements)."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        in_shape, out_shape = torch.Size(in_shape), torch.Size(out_shape)
        if math.prod(in_shape) != math.prod(out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        self._setup(cache_size, in_shape=in_shape, out_shape=out_shape)

    domain = C.dependent_property(lambda self: C.independent(C.real, len(self.in_shape)))
    codomain = C.dependent_property(lambda self: C.independent(C.real, len(self.out_shape)))

    def _call(self, x):
        return x.reshape(_trailing_swap(x.shape, self.in_shape, self.out_shape))

    def _inverse(self, y):
        return y.reshape(_trailing_swap(y.shape, self.out_shape, self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape):
        return _trailing_swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _trailing_swap(shape, self.out_shape, self.in_shape)


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) -> Cholesky factors of D x D correlation matrices: tanh to (-1, 1), then each row is
    stick-broken so that its squared entries sum to 1 (a unit row and a positive diagonal)."""
    domain = C.real_vector
    codomain = C.corr_cholesky
    bijective = True

    def _call(self, x):
        from .utils import vec_to_tril_matrix
        e = _eps(x.dtype)
        r = vec_to_tril_matrix(torch.tanh(x).clamp(min=-1 + e, max=1 - e), diag=-1)
        stick = (1 - r ** 2).sqrt().cumprod(-1)
        return (r + torch.eye(r.shape[-1], dtype=r.dtype)) * torch.functional.pad(stick[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        from .utils import tril_matrix_to_vec
        left = torch.functional.pad((1 - torch.cumsum(y * y, dim=-1))[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        from .utils import tril_matrix_to_vec
        stick = 0.5 * tril_matrix_to_vec(1 - (y * y).cumsum(dim=-1), diag=-2).log().sum(-1)
        tanh = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick + tanh

    def forward_shape(self, shape):
        n = _need_vector(shape)[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


# -- combinators ----------------------------------------------------------------------------------------------

def _cached_parts(parts, cache_size):
    return [p.with_cache(cache_size) for p in parts] if cache_size else list(parts)


def _widened(space, event_dim):
    return C.independent(space, event_dim - space.event_dim) if event_dim > space.event_dim else space


def _event_dim_through(parts, start, enter, leave):
    """The event dim needed at the far end when walking ``parts`` (entering each at its ``enter`` side)."""
    dim = start
    for part in parts:
        dim = max(dim + getattr(part, leave).event_dim - getattr(part, enter).event_dim,
                  getattr(part, leave).event_dim)
    return dim


class ComposeTransform(Transform):
    """Apply ``parts`` in order; the log-det sums the parts', each summed over the event dims it adds."""

    def __init__(self, parts, cache_size=0):
        self._setup(cache_size, parts=_cached_parts(parts, cache_size))

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @C.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return C.real
        need = _event_dim_through(reversed(self.parts), self.parts[-1].codomain.event_dim, "codomain", "domain")
        return _widened(self.parts[0].domain, need)

    @C.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return C.real
        need = _event_dim_through(self.parts, self.parts[0].domain.event_dim, "domain", "codomain")
        return _widened(self.parts[-1].codomain, need)

    bijective = property(lambda self: all(p.bijective for p in self.parts))
    sign = property(lambda self: math.prod((p.sign for p in self.parts), start=1))

    @property
    def inv(self):
        inverse = self._inv() if self._inv is not None else None
        if inverse is None:
            inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv, inverse._inv = weakref.ref(inverse), weakref.ref(self)
        return inverse

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torch.zeros_like(x)
        points = [x]
        for part in self.parts[:-1]:
            points.append(part(points[-1]))
        points.append(y)
        total, dim = None, self.domain.event_dim
        for part, a, b in zip(self.parts, points, points[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b), dim - part.domain.event_dim)
            total = term if total is None else total + term
            dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Treat ``reinterpreted_batch_ndims`` more dimensions as event dimensions of ``base_transform``."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        self._setup(cache_size, base_transform=base_transform.with_cache(cache_size),
                    reinterpreted_batch_ndims=reinterpreted_batch_ndims)

    def _widen(self, space):
        return C.independent(space, self.reinterpreted_batch_ndims)

    domain = C.dependent_property(lambda self: self._widen(self.base_transform.domain), is_discrete=False)
    codomain = C.dependent_property(lambda self: self._widen(self.base_transform.codomain), is_discrete=False)
    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class _Piecewise(Transform):
    """Transforms ``transforms[i]`` applied to consecutive pieces of dimension ``dim``; a subclass says how
    to cut (``_cut``) and how to join (``_join``)."""

    def _pieces(self, tseq, dim, cache_size, **more):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError
        self._setup(cache_size, transforms=_cached_parts(tseq, cache_size), dim=dim, **more)

    bijective = property(lambda self: all(t.bijective for t in self.transforms))

    def _apply(self, z, fn):
        return self._join([fn(t, piece) for t, piece in zip(self.transforms, self._cut(z))], self.dim)

    def _call(self, x):
        return self._apply(x, lambda t, v: t(v))

    def _inverse(self, y):
        return self._apply(y, lambda t, v: t.inv(v))


class CatTransform(_Piecewise):
    """``tseq[i]`` on the i-th block (of ``lengths[i]``) of dimension ``dim``, as torch.cat joins them."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(lengths) != len(tseq):
            raise AssertionError
        self._pieces(tseq, dim, cache_size, lengths=lengths)

    event_dim = property(lambda self: max(t.event_dim for t in self.transforms))
    length = property(lambda self: sum(self.lengths))
    _join = staticmethod(lambda pieces, dim: torch.cat(pieces, dim=dim))

    def _cut(self, z):
        if not -z.dim() <= self.dim < z.dim() or z.size(self.dim) != self.length:
            raise AssertionError
        starts = np.cumsum([0] + self.lengths[:-1]).tolist()
        return [z.narrow(self.dim, s, n) for s, n in zip(starts, self.lengths)]

    def log_abs_det_jacobian(self, x, y):
        terms = [_sum_rightmost(t.log_abs_det_jacobian(a, b), self.event_dim - t.event_dim)
                 for t, a, b in zip(self.transforms, self._cut(x), self._cut(y))]
        # the join dim counted from the right, past the summed-out event dims: still a dim, or gone
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return torch.cat(terms, dim=dim) if dim < 0 else sum(terms)

    domain = C.dependent_property(lambda self: C.cat([t.domain for t in self.transforms], self.dim, self.lengths))
    codomain = C.dependent_property(lambda self: C.cat([t.codomain for t in self.transforms], self.dim,
                                                       self.lengths))


class StackTransform(_Piecewise):
    """``tseq[i]`` on the i-th slice of dimension ``dim``, as torch.stack joins them."""

    def __init__(self, tseq, dim=0, cache_size=0):
        self._pieces(tseq, dim, cache_size)

    _join = staticmethod(lambda pieces, dim: torch.stack(pieces, dim=dim))

    def _cut(self, z):
        if not -z.dim() <= self.dim < z.dim() or z.size(self.dim) != len(self.transforms):
            raise AssertionError
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def log_abs_det_jacobian(self, x, y):
        terms = [t.log_abs_det_jacobian(a, b) for t, a, b in zip(self.transforms, self._cut(x), self._cut(y))]
        return torch.stack(terms, dim=self.dim)

    domain = C.dependent_property(lambda self: C.stack([t.domain for t in self.transforms], self.dim))
    codomain = C.dependent_property(lambda self: C.stack([t.codomain for t in self.transforms], self.dim))
