"""``x.softmax(dim)`` / ``npgrad.softmax`` and the log form, available without importing ``npgrad.nn``.

The fused implementations live in ``npgrad.nn.functional``; ``import npgrad`` does not load ``nn`` (to
stay fast), so these thin entry points load it on first call.
"""
from ._registry import op

@op()
def softmax(input, dim=None, dtype=None):
    from ..nn.functional import softmax as f
    return f(input, dim, dtype=dtype)


@op()
def log_softmax(input, dim=None, dtype=None):
    from ..nn.functional import log_softmax as f
    return f(input, dim, dtype=dtype)
