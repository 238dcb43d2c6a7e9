"""torch.func.grad, grad_and_value and vjp on npgrad's reverse-mode tape (nesting: see _levels)."""
import functools

from ._batched_grad import autograd_grad as _autograd_grad, zeros_like_any
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..tensor import Tensor
from ._argnums import wrap_args
from ._levels import make_differentiable, reaches_outer, release
from ._pytree import tree_flatten, tree_unflatten, tree_map, spec_str

__all__ = ["grad", "grad_and_value", "vjp", "grads_or_zeros"]


def grads_or_zeros(outputs, inputs, grad_outputs, create_graph):
    """autograd.grad that gives zeros (not None / an error) for inputs the outputs do not depend on."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, Tensor) and o.requires_grad]
    if not pairs or not inputs:
        return [zeros_like_any(x) for x in inputs]
    got = _autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                         create_graph=create_graph, allow_unused=True)
    return [zeros_like_any(x) if g is None else g for g, x in zip(got, inputs)]


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    api = "grad_and_value(f)(*args)"
    tracked = is_grad_enabled()
    fresh = set()
    with enable_grad():
        args, diff = wrap_args(args, argnums, lambda t: make_differentiable(t, fresh, tracked))
        output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with {output.dim()} "
                               "dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        keep = tracked and reaches_outer([output], fresh)
        flat, spec = tree_flatten(diff)
        grads = grads_or_zeros([output], flat, [None], keep)
    grads = tree_unflatten([release(g, keep) for g in grads], spec)
    value = release(output, keep)
    if has_aux:
        return grads, (value, tree_map(lambda a: release(a, keep), aux))
    return grads, value


def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, also returning ``func``'s value: ``(grad, value)`` or ``(grad, (value, aux))``."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The function computing the gradient of scalar-valued ``func`` with respect to the argument(s)
    ``argnums`` (each a Tensor or a pytree of Tensors; the gradient has the same structure)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn[, aux])``: ``vjp_fn(cotangents)`` is the tuple of vector-Jacobian products
    with respect to each primal (cotangents have the structure of func's output)."""
    tracked = is_grad_enabled()
    fresh = set()
    with enable_grad():
        primals = tree_map(lambda t: make_differentiable(t, fresh, tracked), primals)
        output, aux = _split_aux(func(*primals), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(output)
        if (len(flat_out) == 1 and flat_out[0] is None) or len(flat_out) < 1:
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has non-empty output "
                               f"(got output = {flat_out})")
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"vjp(f, *primals): expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                                   f"got Tensor with dtype {o.dtype}")
        keep = tracked and reaches_outer(flat_out, fresh)
    flat_primals, primals_spec = tree_flatten(primals)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {spec_str(ct_spec)}, primal output: "
                               f"{spec_str(out_spec)}")
        for o, c in zip(flat_out, flat_ct):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {tuple(c.shape)} and "
                                   f"output[0] has a shape of {tuple(o.shape)}.")
        wanted = is_grad_enabled() if create_graph is None else create_graph
        cg = wanted and (keep or any(isinstance(c, Tensor) and c.requires_grad for c in flat_ct))
        with enable_grad():
            grads = grads_or_zeros(flat_out, flat_primals, flat_ct, cg)
        return tree_unflatten([release(g, cg) for g in grads], primals_spec)

    result = tree_unflatten([release(o, keep) for o in flat_out], out_spec)
    if has_aux:
        return result, vjp_fn, tree_map(lambda a: release(a, keep), aux)
    return result, vjp_fn
