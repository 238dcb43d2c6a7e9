"""The slice of npgrad's top-level API the distributions use, gathered from the floors below them.

`import npgrad` would be an upward import (the package root sits on the top floor), so operators are
looked up in the registry (loading the lazy families on first use) and factories in npgrad.factories.
"""
from .. import factories as _factories
from .. import linalg, special  # noqa: F401
from ..dtypes import bool, float32, float64, int64, get_default_dtype  # noqa: F401,A004
from ..nn import functional  # noqa: F401
from ..ops import _registry, load_lazy_families
from ..tensor import Size, Tensor  # noqa: F401
from ..autograd import no_grad, enable_grad  # noqa: F401


def __getattr__(name):
    if name not in _registry.OPS:
        load_lazy_families()
    if name in _registry.OPS:
        value = _registry.OPS[name].fn
    else:
        value = getattr(_factories, name)
    globals()[name] = value
    return value
