"""How autograd, the floor under class Tensor and the operators, reaches them without importing them.

The recorder wraps forward's arrays in Tensors; the engine hands Tensors to user Functions and hooks, and
under ``create_graph=True`` it reduces and casts gradients with differentiable operators. Tensor lives one
layer up and the operators two (``tests/test_layers.py`` forbids importing upward), so each registers what
autograd needs from it here, once, while ``import npgrad`` runs and before any graph can exist:

* ``npgrad.tensor`` calls ``register_tensor_type(Tensor)`` right after defining the class;
* ``npgrad.ops`` calls ``register_tensor_ops(sum_to=..., cast=..., stack=...)`` once its Ops exist.

autograd's modules read the class from their own global ``Tensor`` (the cheapest lookup on the per-op
path); ``register_tensor_type`` is the one place that binds it. The gradient helpers below take an array
(a plain backward) or a Tensor (under create_graph) and are what the engine routes gradients through.
"""
import numpy as np

Tensor = None
_tensor_sum_to = None
_tensor_cast = None
stack = None  # stack(tensors, dim): autograd.functional.jacobian assembles its rows with it


def register_tensor_type(cls):
    """Make ``cls`` the Tensor class autograd builds and recognises."""
    global Tensor
    from . import engine, function, record
    Tensor = cls
    for module in (engine, function, record):
        module.Tensor = cls


def register_tensor_ops(sum_to, cast, stack):
    """``sum_to(t, shape)`` and ``cast(t, np_dtype)``: the differentiable reduction and cast of a Tensor
    gradient, used under create_graph=True; ``stack(tensors, dim)``: torch.stack."""
    global _tensor_sum_to, _tensor_cast
    _tensor_sum_to, _tensor_cast = sum_to, cast
    globals()["stack"] = stack


def data_of(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor._wrap(np.asarray(x))


def like_mode(x, create_graph):
    """A hook's returned gradient converted to what the engine is passing around."""
    if create_graph:
        return as_tensor(x)
    return data_of(x)


def _reduce_axes(gshape, shape):
    """Axes to sum so a gradient of ``gshape`` comes back to ``shape``; None if it cannot."""
    lead = len(gshape) - len(shape)
    if lead < 0:
        return None
    axes = list(range(lead))
    for i, s in enumerate(shape):
        gs = gshape[lead + i]
        if s != gs:
            if s != 1:
                return None
            axes.append(lead + i)
    return tuple(axes)


def sum_to(g, shape, node=None, index=None):
    """Sum a broadcast gradient back to ``shape`` (the adjoint of broadcasting)."""
    shape = tuple(shape)
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    axes = _reduce_axes(gshape, shape)
    if axes is None:
        if int(np.prod(gshape)) == int(np.prod(shape)) and len(gshape) < len(shape):
            return g.reshape(shape) if isinstance(g, Tensor) else np.reshape(g, shape)
        what = f"Function {node.name()} returned an invalid gradient at index {index}" if node else "gradient"
        raise RuntimeError(f"{what} - got {list(gshape)} but expected shape compatible with {list(shape)}")
    if isinstance(g, Tensor):
        return _tensor_sum_to(g, shape)
    return np.asarray(g.sum(axis=axes)).reshape(shape)


def cast(g, np_dtype):
    if isinstance(g, Tensor):
        return _tensor_cast(g, np.dtype(np_dtype))
    return np.asarray(g).astype(np_dtype)


def cast_grad(g, np_dtype):
    """Cast a gradient to its input's dtype (the engine's only cast, when they differ): a complex gradient of a
    real input keeps its real part, PyTorch's convention, without the warning a user's cast gives."""
    if np.asarray(g._data if isinstance(g, Tensor) else g).dtype.kind == "c" and np.dtype(np_dtype).kind != "c":
        g = g.real
    return cast(g, np_dtype)
