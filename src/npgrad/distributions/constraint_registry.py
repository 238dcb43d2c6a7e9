"""biject_to and transform_to: from a constraint to a Transform mapping unconstrained space onto it.

biject_to gives bijections (for optimisation in unconstrained space with exact densities, as in HMC);
transform_to may give a non-injective map (softmax onto the simplex) that is cheaper or better conditioned.
Both start from one table (``_DEFAULTS``) of constraint class -> factory for each registry.
"""
from numbers import Number

from . import constraints as C
from . import transforms as T

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Constraint class -> factory(constraint) returning a Transform."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        if factory is None:  # used as a decorator
            return lambda f: self.register(constraint, f)
        key = type(constraint) if isinstance(constraint, C.Constraint) else constraint  # singletons: their class
        if not (isinstance(key, type) and issubclass(key, C.Constraint)):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {key}")
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


def _shifted_exp(origin, direction):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(origin, direction)])


def _onto_interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, Number) and isinstance(hi, Number) and (lo, hi) == (0, 1):
        return T.SigmoidTransform()
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(lo, hi - lo)])


class _PerRegistry:
    """A factory that recurses into the registry it is registered in (independent, cat, stack)."""

    def __init__(self, kind):
        self.kind = kind

    def bind(self, registry):
        if self.kind == "independent":
            return lambda c: T.IndependentTransform(registry(c.base_constraint), c.reinterpreted_batch_ndims)
        if self.kind == "cat":
            return lambda c: T.CatTransform([registry(p) for p in c.cseq], c.dim, c.lengths)
        return lambda c: T.StackTransform([registry(p) for p in c.cseq], c.dim)


def _both(factory):
    return factory, factory


# constraint class: (biject_to's factory, transform_to's factory); None where that registry has none, a
# _PerRegistry where the factory needs its own registry
_DEFAULTS = {
    type(C.real): _both(lambda c: T.identity_transform),
    C.greater_than: _both(lambda c: _shifted_exp(c.lower_bound, 1)),
    C.greater_than_eq: _both(lambda c: _shifted_exp(c.lower_bound, 1)),
    C.less_than: _both(lambda c: _shifted_exp(c.upper_bound, -1)),
    C.interval: _both(_onto_interval),
    C.half_open_interval: _both(_onto_interval),
    type(C.simplex): (lambda c: T.StickBreakingTransform(), lambda c: T.SoftmaxTransform()),
    type(C.lower_cholesky): (None, lambda c: T.LowerCholeskyTransform()),
    type(C.positive_definite): (None, lambda c: T.PositiveDefiniteTransform()),
    type(C.positive_semidefinite): (None, lambda c: T.PositiveDefiniteTransform()),
    type(C.corr_cholesky): _both(lambda c: T.CorrCholeskyTransform()),
    C.independent: _both(_PerRegistry("independent")),
    C.cat: _both(_PerRegistry("cat")),
    C.stack: _both(_PerRegistry("stack")),
}

biject_to, transform_to = ConstraintRegistry(), ConstraintRegistry()
for _cls, _factories in _DEFAULTS.items():
    for _registry, _factory in zip((biject_to, transform_to), _factories):
        if _factory is not None:
            _registry.register(_cls, _factory.bind(_registry) if isinstance(_factory, _PerRegistry) else _factory)
