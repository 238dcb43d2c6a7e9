"""torch.autograd.functional: Jacobians, Hessians and their products for a function of Tensors.

Everything is built on reverse mode (``autograd.grad``):

* ``vjp``: one backward pass with ``v`` as the upstream gradient;
* ``jvp``: the "double-vjp" trick. ``u -> vjp(u)`` is linear in ``u``; differentiating it with respect
  to ``u`` (with ``v`` as upstream gradient) gives ``J v`` without forward-mode AD;
* ``jacobian``: one backward pass per output element;
* ``hessian``: the Jacobian of the gradient taken with ``create_graph=True``;
* ``vhp`` / ``hvp``: a gradient of ``grad(f) . v``, and the double-vjp trick on top of it.

As in PyTorch, a single Tensor input gives single Tensor results and a tuple gives tuples; inputs
are detached first (so the caller's graph is untouched) unless ``create_graph=True``, and the results
are detached unless ``create_graph=True``. With ``strict=False`` an output that does not depend on an
input has a zero derivative; ``strict=True`` makes that an error.
"""
import numpy as np

from . import _protocol

from .engine import grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _tensor_cls():
    return _protocol.Tensor


def _as_tuple(x, arg_name, fn_name):
    T = _tensor_cls()
    is_tuple = isinstance(x, (tuple, list))
    xs = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, T):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the value at index {i} has type {type(t).__name__}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {arg_name} has type {type(t).__name__}.")
    return is_tuple, xs


def _prepare(inputs, create_graph):
    # Fresh leaves, unless the caller wants to differentiate the result through the original inputs.
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_(True))
    return tuple(out)


def _finish(xs, is_tuple, create_graph):
    res = tuple(x if create_graph or x is None else x.detach() for x in xs)
    return res if is_tuple else res[0]


def _zeros_like(t):
    return _tensor_cls()._wrap(np.zeros(t._data.shape, t._data.dtype))


def _fill(grads, like, strict, what):
    out = []
    for i, (g, x) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(f"The {what} for input {i} is independent of the input, which is not allowed "
                                   "in strict mode.")
            g = _zeros_like(x)
        out.append(g)
    return tuple(out)


def _check_v(v, outputs, fn_name, what):
    is_tuple, vs = _as_tuple(v, "v", fn_name)
    if len(vs) != len(outputs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outputs)} but got {len(vs)}.")
    for i, (a, b) in enumerate(zip(vs, outputs)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Entry {i} in v has invalid size: should be {list(b.shape)} but got "
                               f"{list(a.shape)}.")
    return vs


def _differentiable(outputs, strict, fn_name):
    for i, o in enumerate(outputs):
        if strict and not o.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")


def _grad_allowing_constants(outputs, inputs, grad_outputs, create_graph):
    """autograd.grad where outputs that do not require grad simply contribute nothing."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph,
                 retain_graph=True, allow_unused=True)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "vjp")
        _differentiable(outs, strict, "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = (_tensor_cls()._wrap(np.ones(outs[0]._data.shape, outs[0]._data.dtype)),)
        else:
            vs = _check_v(v, outs, "vjp", "outputs")
        grads = _grad_allowing_constants(outs, xs, vs, create_graph)
        grads = _fill(grads, xs, strict, "vjp")
    return _finish(outs, out_tuple, create_graph), _finish(grads, in_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``, by differentiating the (linear) vjp with respect to its vector."""
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
        xs = _prepare(xs, create_graph)
        if v is None:
            if len(xs) != 1 or xs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (_tensor_cls()._wrap(np.ones(xs[0]._data.shape, xs[0]._data.dtype)),)
        else:
            vs = _check_v(v, xs, "jvp", "inputs")
        out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jvp")
        _differentiable(outs, strict, "jvp")
        us = tuple(_zeros_like(o).requires_grad_(True) for o in outs)
        vjps = _grad_allowing_constants(outs, xs, us, True)
        pairs = [(g, w) for g, w in zip(vjps, vs) if g is not None and g.requires_grad]
        if pairs:
            jv = _grad([g for g, _ in pairs], us, [w for _, w in pairs], create_graph=create_graph,
                       retain_graph=True, allow_unused=True)
        else:
            jv = (None,) * len(us)
        jv = _fill(jv, outs, strict, "jvp")
    return _finish(outs, out_tuple, create_graph), _finish(jv, out_tuple, create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(inputs) / d inputs, shaped ``output.shape + input.shape`` for each (output, input) pair.

    One backward pass per output element (``vectorize`` and forward-mode ``strategy`` are accepted
    for compatibility; npgrad always uses reverse mode).
    """
    stack = _protocol.stack
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jacobian")
        _differentiable(outs, strict, "jacobian")
        T = _tensor_cls()
        result = []
        for out in outs:
            rows = [[] for _ in xs]
            flat_n = out._data.size
            for j in range(flat_n):
                if out.requires_grad:
                    onehot = np.zeros(out._data.shape, out._data.dtype)
                    onehot.flat[j] = 1
                    gs = _grad(out, xs, T._wrap(onehot), retain_graph=True, create_graph=create_graph,
                               allow_unused=True)
                else:
                    gs = (None,) * len(xs)
                for k, (g, x) in enumerate(zip(gs, xs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {len(result)} of the user-provided function is independent "
                                               f"of input {k}. This is not allowed in strict mode.")
                        g = _zeros_like(x)
                    rows[k].append(g)
            per_input = []
            for k, x in enumerate(xs):
                shape = tuple(out.shape) + tuple(x.shape)
                if flat_n == 0:
                    per_input.append(T._wrap(np.zeros(shape, x._data.dtype)))
                else:
                    per_input.append(stack(rows[k], 0).reshape(shape))
            result.append(_finish(per_input, in_tuple, create_graph))
    return tuple(result) if out_tuple else result[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a scalar function, shaped ``input_i.shape + input_j.shape`` per pair."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if out_tuple or len(outs) != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        if not outs[0].requires_grad:
            gs = (None,) * len(inp)
        else:
            gs = _grad(outs[0], inp, create_graph=True, retain_graph=True, allow_unused=True)
        return tuple(_zeros_like(x) if g is None else g for g, x in zip(gs, inp))

    res = jacobian(gradient, xs, create_graph=create_graph, strict=strict)
    if not in_tuple:
        return res[0][0] if isinstance(res[0], tuple) else res[0]
    return res


def _scalar_gradient(func, xs, fn_name, strict):
    out = func(*xs)
    out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    if len(outs) != 1 or outs[0].numel() != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor with a single element")
    _differentiable(outs, strict, fn_name)
    if not outs[0].requires_grad:
        return outs[0], (None,) * len(xs)
    return outs[0], _grad(outs[0], xs, create_graph=True, retain_graph=True, allow_unused=True)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar function."""
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "vhp")
        xs = _prepare(xs, create_graph)
        vs = _default_v(v, xs, "vhp")
        out, gs = _scalar_gradient(func, xs, "vhp", strict)
        pairs = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        if pairs:
            res = _grad([g for g, _ in pairs], xs, [w for _, w in pairs], create_graph=create_graph,
                        retain_graph=True, allow_unused=True)
        else:
            res = (None,) * len(xs)
        res = _fill(res, xs, strict, "vhp")
    return _finish((out,), False, create_graph), _finish(res, in_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar function, by the double-vjp trick on top of ``v^T H``."""
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "hvp")
        xs = _prepare(xs, create_graph)
        vs = _default_v(v, xs, "hvp")
        out, gs = _scalar_gradient(func, xs, "hvp", strict)
        keep = [(g, x) for g, x in zip(gs, xs) if g is not None and g.requires_grad]
        us = tuple(_zeros_like(g).requires_grad_(True) for g, _ in keep)
        if keep:
            back = _grad([g for g, _ in keep], xs, list(us), create_graph=True, retain_graph=True,
                         allow_unused=True)
            pairs = [(b, w) for b, w in zip(back, vs) if b is not None and b.requires_grad]
        else:
            pairs = []
        res = [None] * len(xs)
        if pairs:
            hv = _grad([b for b, _ in pairs], us, [w for _, w in pairs], create_graph=create_graph,
                       retain_graph=True, allow_unused=True)
            k = 0
            for i, g in enumerate(gs):
                if g is not None and g.requires_grad:
                    res[i] = hv[k]
                    k += 1
        res = _fill(res, xs, strict, "hvp")
    return _finish((out,), False, create_graph), _finish(res, in_tuple, create_graph)


def _default_v(v, xs, fn_name):
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        return (_tensor_cls()._wrap(np.ones(xs[0]._data.shape, xs[0]._data.dtype)),)
    return _check_v(v, xs, fn_name, "inputs")
