"""nn.functional's softmax family: softmax and log_softmax are ``ops.softmax``'s (with torch's ``_stacklevel``
argument, which npgrad does not need), softmin is softmax of the negated input."""
from ... import dtypes as _dt
from ...ops.softmax import implicit_dim as _implicit_dim, log_softmax as _log_softmax, softmax as _softmax


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmin", input.dim())
    if dtype is not None:
        input = input._cast(_dt.to_dtype(dtype))
    return _softmax(-input, dim)
