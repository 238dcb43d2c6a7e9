"""torch.func.jvp, jacrev, jacfwd and hessian.

jvp and jacfwd run forward-mode AD (``npgrad.autograd.forward_ad``): func sees dual tensors, and the
outputs' tangents are the Jacobian-vector products (jacfwd: one pass per input element). PyTorch allows one
dual level at a time, so inside another jvp/jacfwd (``jacfwd(jacfwd(f))``) they use the double-VJP trick
on the reverse-mode tape instead: for ``y = f(x)`` and a dummy cotangent ``u`` (zeros, requiring grad),
``g(u) = J^T u`` is computed with ``create_graph=True``; ``g`` is linear in ``u``, and differentiating
``<g(u), t>`` with respect to ``u`` gives ``J t`` (same formulas, two reverse passes). linearize uses the
latter too (its jvp_fn reruns only the kept ``J^T u`` graph).
"""
import functools

from ._batched_grad import autograd_grad as _autograd_grad  # batched tensors too (grad inside vmap)
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..tensor import Tensor
from ._argnums import wrap_args
from ._grad import grads_or_zeros, _split_aux
from ._levels import leaf_mark, make_differentiable, reaches_outer, release
from ._pytree import tree_flatten, tree_unflatten, tree_map, spec_repr

__all__ = ["jvp", "jacrev", "jacfwd", "hessian", "linearize"]


def _forward(func, args, kwargs, argnums, has_aux, api):
    """Run func on this level's handles: (flat outputs, out spec, flat inputs, diff spec, aux, keep)."""
    tracked = is_grad_enabled()
    fresh = set()
    with enable_grad():
        args, diff = wrap_args(args, argnums, lambda t: make_differentiable(t, fresh, tracked))
        output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
        flat_out, out_spec = tree_flatten(output)
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{api}: Expected f to only return Tensors, got {type(o)}")
        keep = tracked and reaches_outer(flat_out, fresh)
    flat_in, in_spec = tree_flatten(diff)
    return flat_out, out_spec, flat_in, in_spec, aux, keep, fresh


def _assemble(blocks, out_spec, in_spec, keep):
    """blocks[k][j]: d out_k / d in_j. The result has func's output structure, each leaf replaced by the
    structure of the differentiated argument(s)."""
    per_out = [tree_unflatten([release(b, keep) for b in row], in_spec) for row in blocks]
    return tree_unflatten(per_out, out_spec)


def _basis(like, i):
    from ..factories import zeros
    e = zeros(like.numel(), dtype=like.dtype)
    e[i] = 1
    return e.reshape(like.shape)


def _stack_rows(rows, out_shape, in_shape, like, dim):
    from ..factories import zeros
    from ..ops.movement import stack
    if not rows:
        return zeros(tuple(out_shape) + tuple(in_shape), dtype=like.dtype)
    return stack(rows, dim=dim).reshape(tuple(out_shape) + tuple(in_shape))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` with respect to the argument(s) ``argnums``, one reverse pass per output
    element (``chunk_size`` is accepted; npgrad computes the rows one at a time in any case)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        flat_out, out_spec, flat_in, in_spec, aux, keep, _ = _forward(func, args, kwargs, argnums, has_aux,
                                                                     "jacrev(f, ...)(*args)")
        blocks = []
        with enable_grad():
            for o in flat_out:
                rows = [grads_or_zeros([o], flat_in, [_basis(o, i)], keep) for i in range(o.numel())]
                blocks.append([_stack_rows([r[j] for r in rows], o.shape, x.shape, x, 0)
                               for j, x in enumerate(flat_in)])
        jac = _assemble(blocks, out_spec, in_spec, keep)
        if has_aux:
            return jac, tree_map(lambda a: release(a, keep), aux)
        return jac
    return wrapper


def _linearized(flat_out):
    """The dummy cotangents u (one per output) for the double-VJP trick."""
    from ..factories import zeros_like
    return [zeros_like(o).requires_grad_() for o in flat_out]


def _jvp_through(g, us, tangents, keep):
    """J t from g = J^T u: d<g, t>/du."""
    pairs = [(gi, t) for gi, t in zip(g, tangents) if gi is not None and gi.requires_grad]
    if not pairs:
        from ..factories import zeros_like
        return [zeros_like(u) for u in us]
    return grads_or_zeros([p[0] for p in pairs], us, [p[1] for p in pairs], keep)


def _first_vjp(flat_out, flat_in, us):
    pairs = [(o, u) for o, u in zip(flat_out, us) if o.requires_grad]
    if not pairs:
        return [None] * len(flat_in)
    return list(_autograd_grad([p[0] for p in pairs], flat_in, [p[1] for p in pairs], retain_graph=True,
                               create_graph=True, allow_unused=True))


def _forward_ad_usable(tensors):
    """Forward AD serves jvp/jacfwd unless a dual level is already open (a nested jvp/jacfwd) or an input
    is not floating point (make_dual refuses it; the double-VJP path keeps the errors it always gave)."""
    from ..autograd import forward_ad
    return forward_ad._current[0] is None and all(t.is_floating_point() for t in tensors)


def _check_outputs(flat_out, api):
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: Expected f to only return Tensors, got {type(o)}")


def _dual_run(func, args, kwargs, has_aux, api):
    """func on (already dual) args, inside the open level: (flat primals, flat tangents or None, spec, aux)."""
    from ..autograd import forward_ad
    output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
    flat_out, out_spec = tree_flatten(output)
    _check_outputs(flat_out, api)
    pairs = [forward_ad.unpack_dual(o) for o in flat_out]
    return [p for p, _ in pairs], [t for _, t in pairs], out_spec, aux


def _zeros_for(tangents, outs):
    from ..factories import zeros_like
    return [zeros_like(o) if t is None else t for t, o in zip(tangents, outs)]


def _jvp_forward_ad(func, flat_p, p_spec, flat_t, strict, has_aux, api):
    from ..autograd import forward_ad
    since = leaf_mark()
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(flat_p, flat_t)]
        outs, tans, out_spec, aux = _dual_run(func, tree_unflatten(duals, p_spec), {}, has_aux, api)
    if strict and all(t is None for t in tans):
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                           "inputs. This is not allowed with strict=True.")
    tans = _zeros_for(tans, outs)
    keep = is_grad_enabled() and reaches_outer(outs + tans, (), since)
    result = (tree_unflatten([release(o, keep) for o in outs], out_spec),
              tree_unflatten([release(t, keep) for t in tans], out_spec))
    if has_aux:
        return result + (tree_map(lambda a: release(a, keep), aux),)
    return result


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents[, aux])``, by forward-mode AD (see the module docstring)."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{spec_repr(p_spec)} and tangents with structure {spec_repr(t_spec)}")
    for p, t in zip(flat_p, flat_t):
        if not isinstance(p, Tensor) or not isinstance(t, Tensor):
            raise RuntimeError(f"{api}: Expected primals to only contain Tensors, got {type(p)}")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"{api}: Expected primals and tangents to have the same shape. Got primal of shape "
                               f"{tuple(p.shape)} and tangent of shape {tuple(t.shape)}")
    if _forward_ad_usable(flat_p + flat_t):
        return _jvp_forward_ad(func, flat_p, p_spec, flat_t, strict, has_aux, api)
    nums = tuple(range(len(primals)))
    flat_out, out_spec, flat_in, _, aux, keep, _ = _forward(func, primals, {}, nums, has_aux, api)
    keep = keep or (is_grad_enabled() and any(t.requires_grad for t in flat_t))
    with enable_grad():
        us = _linearized(flat_out)
        g = _first_vjp(flat_out, flat_in, us)
        if strict and all(x is None for x in g):
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                               "inputs. This is not allowed with strict=True.")
        out_t = _jvp_through(g, us, flat_t, keep)
    result = (tree_unflatten([release(o, keep) for o in flat_out], out_spec),
              tree_unflatten([release(t, keep) for t in out_t], out_spec))
    if has_aux:
        return result + (tree_map(lambda a: release(a, keep), aux),)
    return result


def _jacfwd_forward_ad(func, args, kwargs, argnums, has_aux, api):
    """The Jacobian's columns by forward AD: func runs once per element of the differentiated inputs, with
    that element's basis vector as the tangent."""
    from ..autograd import forward_ad
    _, diff = wrap_args(args, argnums, lambda t: t)
    flat_in, in_spec = tree_flatten(diff)
    cols = [[] for _ in flat_in]
    since = leaf_mark()
    outs = out_spec = aux = None
    for j, x in enumerate(flat_in):
        for i in range(x.numel()):
            with forward_ad.dual_level():
                it = iter(range(len(flat_in)))

                def dual(t):  # only input j carries a tangent: the others' would be zero
                    return forward_ad.make_dual(t, _basis(t, i)) if next(it) == j else t
                dual_args, _ = wrap_args(args, argnums, dual)
                outs, tans, out_spec, aux = _dual_run(func, dual_args, kwargs, has_aux, api)
            cols[j].append(_zeros_for(tans, outs))
    if outs is None:  # no input elements: func's outputs give the Jacobian's shape
        with enable_grad():
            output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
        outs, out_spec = tree_flatten(output)
        _check_outputs(outs, api)
    blocks = [[_stack_rows([c[k] for c in cols[j]], o.shape, x.shape, o, -1) for j, x in enumerate(flat_in)]
              for k, o in enumerate(outs)]
    keep = is_grad_enabled() and reaches_outer([b for row in blocks for b in row] + list(outs), (), since)
    jac = _assemble(blocks, out_spec, in_spec, keep)
    if has_aux:
        return jac, tree_map(lambda a: release(a, keep), aux)
    return jac


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` column by column: one Jacobian-vector product (forward-mode AD, or the
    double-VJP trick inside another forward transform: see the module docstring) per element of the
    differentiated inputs."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _, diff = wrap_args(args, argnums, _check_input)
        if _forward_ad_usable(tree_flatten(diff)[0]):
            return _jacfwd_forward_ad(func, args, kwargs, argnums, has_aux, "jacfwd(f, ...)(*args)")
        flat_out, out_spec, flat_in, in_spec, aux, keep, _ = _forward(func, args, kwargs, argnums, has_aux,
                                                                     "jacfwd(f, ...)(*args)")
        with enable_grad():
            us = _linearized(flat_out)
            g = _first_vjp(flat_out, flat_in, us)
            cols = [[_jvp_through([g[j]], us, [_basis(x, i)], keep) for i in range(x.numel())]
                    for j, x in enumerate(flat_in)]
            blocks = [[_stack_rows([c[k] for c in cols[j]], o.shape, x.shape, o, -1)
                       for j, x in enumerate(flat_in)] for k, o in enumerate(flat_out)]
        jac = _assemble(blocks, out_spec, in_spec, keep)
        if has_aux:
            return jac, tree_map(lambda a: release(a, keep), aux)
        return jac
    return wrapper


def _check_input(t):
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    return t


def hessian(func, argnums=0):
    """The Hessian of scalar ``func``: the Jacobian of its gradient (jacfwd of jacrev, as in PyTorch)."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``.
    func runs once; each ``jvp_fn`` call is one reverse pass through the kept ``J^T u`` graph (double-VJP
    trick, see the module docstring)."""
    flat_p, p_spec = tree_flatten(primals)
    nums = tuple(range(len(primals)))
    flat_out, out_spec, flat_in, _, _, keep, _ = _forward(func, primals, {}, nums, False, "linearize")
    with enable_grad():
        us = _linearized(flat_out)
        g = _first_vjp(flat_out, flat_in, us)
    output = tree_unflatten([o.detach() for o in flat_out], out_spec)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {spec_repr(t_spec)} to have the same argspec as the primals "
                               f"{spec_repr(p_spec)}")
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            if tuple(p.shape) != tuple(t.shape):
                raise RuntimeError(f"tangent:{i} with shape {t.shape!r} in flattened pytree doesn't match the shape "
                                   f"{p.shape!r} of the corresponding primal.")
        with enable_grad():
            out_t = _jvp_through(g, us, flat_t, False)
        return tree_unflatten([t.detach() for t in out_t], out_spec)
    return output, jvp_fn
