"""gradcheck / gradgradcheck: compare autograd's Jacobians with central finite differences.

``gradcheck(fn, inputs)`` builds, for every (differentiable input, output) pair, two Jacobians laid
out as PyTorch prints them (one row per input element, one column per output element):

* the analytical one, a column at a time: a backward pass from the output with a one-hot upstream
  gradient gives one output element's gradient with respect to every input;
* the numerical one, a row at a time: ``(f(x + eps e_k) - f(x - eps e_k)) / (2 eps)``.

They must agree within ``atol + rtol * |numerical|``. A mismatch raises ``GradcheckError`` (a
``RuntimeError``) listing the worst entries with their positions, or returns False when
``raise_exception=False``. ``gradgradcheck`` runs ``gradcheck`` on the function that maps
``(inputs, grad_outputs)`` to the first-order gradients taken with ``create_graph=True``, which
checks second derivatives. Both are meant for float64 inputs; float32 ones draw PyTorch's warning.

Complex inputs and outputs are checked as PyTorch's are, on real coordinates: each complex element is two
(its real and imaginary parts, in view_as_real order), the numerical Jacobian perturbs each part, and the
analytical one reads PyTorch's convention (upstream 1 gives d Re(y)/dx + i d Re(y)/dy, upstream 1j the same for
Im(y)), so a backward formula missing a conjugate fails.
"""
import warnings

import numpy as np

from . import _protocol

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

_MAX_LISTED = 10  # mismatching entries spelled out in the report


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when analytical and numerical gradients disagree."""


def _tensor_cls():
    return _protocol.Tensor


def _as_tuple(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _diff_outputs(out):
    """The outputs a Jacobian is checked for: floating-point Tensors."""
    T = _tensor_cls()
    return [o for o in _as_tuple(out) if isinstance(o, T) and o._data.dtype.kind in "fc"]


def _coords(a):
    """An array's real coordinates, flat: a complex element gives its real then its imaginary part."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return np.stack([a.real, a.imag], -1).astype(np.float64).ravel()
    return a.astype(np.float64).ravel()


def _coord_shape(a):
    return tuple(a.shape) + ((2,) if a.dtype.kind == "c" else ())


def _n_coords(a):
    return a.size * (2 if a.dtype.kind == "c" else 1)


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _check_inputs(inputs):
    T = _tensor_cls()
    idx = [i for i, x in enumerate(inputs) if isinstance(x, T) and x.requires_grad]
    if not idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    for i in idx:
        if inputs[i]._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or "
                          "complex. This check will likely fail if all the inputs are not of double precision "
                          "floating point or complex. ", UserWarning, stacklevel=3)
    return idx


def _numerical_jacobians(fn, inputs, diff_idx, n_out_sizes, eps):
    """For each differentiable input, a list (per output) of (input numel, output numel) arrays."""
    from .grad_mode import enable_grad
    T = _tensor_cls()

    def evaluate(args):
        with enable_grad():  # gradgradcheck's function differentiates inside
            outs = _diff_outputs(fn(*args))
        return [_coords(o._data) for o in outs]

    result = []
    for i in diff_idx:
        x = inputs[i]
        base = np.array(x._data, dtype=x._data.dtype, copy=True)
        jac = [np.zeros((_n_coords(base), n)) for n in n_out_sizes]
        steps = (eps, eps * 1j) if base.dtype.kind == "c" else (eps,)
        for k in range(_n_coords(base)):
            vals = []
            for sign in (1.0, -1.0):
                pert = base.copy()
                pert.flat[k // len(steps)] += sign * steps[k % len(steps)]
                t = T._wrap(pert)
                t._requires_grad = x.requires_grad
                args = list(inputs)
                args[i] = t
                vals.append(evaluate(args))
            for j, (plus, minus) in enumerate(zip(*vals)):
                jac[j][k] = (plus - minus) / (2.0 * eps)
        result.append(jac)
    return result


def _analytical_jacobians(outputs, inputs, diff_idx, check_grad_dtypes):
    """Same layout as the numerical Jacobians, filled a column (output element) at a time."""
    from .engine import grad as autograd_grad
    T = _tensor_cls()
    diff_inputs = [inputs[i] for i in diff_idx]
    result = [[np.zeros((_n_coords(inputs[i]._data), _n_coords(o._data))) for o in outputs] for i in diff_idx]
    for j, out in enumerate(outputs):
        if not out.requires_grad:
            continue  # its Jacobian is zero; the numerical one must be too
        units = (1, 1j) if out._data.dtype.kind == "c" else (1,)
        for col in range(_n_coords(out._data)):
            onehot = np.zeros(out._data.shape, out._data.dtype)
            onehot.flat[col // len(units)] = units[col % len(units)]
            grads = autograd_grad(out, diff_inputs, T._wrap(onehot), retain_graph=True, allow_unused=True)
            for a, (i, g) in enumerate(zip(diff_idx, grads)):
                if g is None:
                    continue
                x = inputs[i]
                if tuple(g.shape) != tuple(x.shape):
                    raise GradcheckError(f"Gradient has incorrect size: input #{i} has shape {list(x.shape)} "
                                         f"but its gradient has shape {list(g.shape)}")
                if check_grad_dtypes and g._data.dtype != x._data.dtype:
                    raise GradcheckError(f"Gradient has dtype mismatch: input #{i} is {x.dtype} but its "
                                         f"gradient is {g.dtype}")
                result[a][j][:, col] = _coords(g._data)
    return result


def _report(i, j, x_shape, o_shape, num, ana, bad):
    Tensor = _protocol.Tensor
    rows, cols = np.nonzero(bad)
    err = np.abs(num - ana)[rows, cols]
    order = np.argsort(-err, kind="stable")[:_MAX_LISTED]
    lines = [f"Jacobian mismatch for output {j} with respect to input {i},",
             f"numerical:{Tensor._wrap(num)!r}", f"analytical:{Tensor._wrap(ana)!r}", "",
             f"{len(rows)} of {num.size} entries differ (largest first):"]
    for r, c in zip(rows[order], cols[order]):
        pin = tuple(int(v) for v in np.unravel_index(r, x_shape)) if x_shape else ()
        pout = tuple(int(v) for v in np.unravel_index(c, o_shape)) if o_shape else ()
        lines.append(f"  d output[{j}]{list(pout)} / d input[{i}]{list(pin)}: numerical {num[r, c]:.8g}, "
                     f"analytical {ana[r, c]:.8g}, difference {ana[r, c] - num[r, c]:.3g}")
    return "\n".join(lines) + "\n"


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """Check ``func``'s gradients against finite differences (``torch.autograd.gradcheck``).

    ``inputs`` is a Tensor or a sequence (non-Tensor items are passed through). The options npgrad has
    no use for (forward AD, batched grads, fast mode) are accepted and ignored.
    """
    inputs = _as_tuple(inputs)
    diff_idx = _check_inputs(inputs)
    if not check_backward_ad:
        return True
    outputs = _diff_outputs(func(*inputs))
    if not outputs:
        return _fail("gradcheck: the function returned no floating-point Tensor output", raise_exception)
    analytical = _analytical_jacobians(outputs, inputs, diff_idx, check_grad_dtypes)
    numerical = _numerical_jacobians(func, inputs, diff_idx, [_n_coords(o._data) for o in outputs], eps)
    for a, i in enumerate(diff_idx):
        for j, out in enumerate(outputs):
            num, ana = numerical[a][j], analytical[a][j]
            bad = ~(np.abs(ana - num) <= atol + rtol * np.abs(num))
            bad &= ~(np.isnan(ana) & np.isnan(num))
            if bad.any():
                # a complex element's coordinates are listed with a last index 0 (real part) or 1 (imaginary)
                msg = _report(i, j, _coord_shape(inputs[i]._data), _coord_shape(out._data), num, ana, bad)
                return _fail(msg, raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Check second derivatives: gradcheck of the gradient computed with ``create_graph=True``.

    ``grad_outputs`` defaults to random values (requiring grad, so the second derivative with respect
    to the upstream gradient is checked too), as in PyTorch.
    """
    from .engine import grad as autograd_grad
    Tensor = _protocol.Tensor
    inputs = _as_tuple(inputs)
    diff_idx = _check_inputs(inputs)
    n_in = len(inputs)
    if grad_outputs is None:
        outs = _diff_outputs(func(*inputs))
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outs:
            if not o.requires_grad:
                continue
            g = rng.standard_normal(o._data.shape)
            if o._data.dtype.kind == "c":
                g = g + 1j * rng.standard_normal(o._data.shape)
            g = Tensor._wrap(g.astype(o._data.dtype))
            g._requires_grad = True
            grad_outputs.append(g)
    grad_outputs = list(_as_tuple(grad_outputs))

    def first_order(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = [o for o in _diff_outputs(func(*xs)) if o.requires_grad]
        wrt = [xs[i] for i in diff_idx]
        grads = autograd_grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_grad_dtypes=check_grad_dtypes)
