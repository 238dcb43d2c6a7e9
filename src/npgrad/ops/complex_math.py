"""Complex numbers' own operators: the ``real``/``imag`` views, ``view_as_real``/``view_as_complex``, ``conj``
with PyTorch's lazy conjugate bit, ``angle``, ``sgn``, ``polar``, ``complex`` and ``adjoint``.

Every backward here is written in PyTorch's convention directly (``_complex_native``): the gradient of a
real loss L is dL/dx + i dL/dy, so an op mapping real to complex or complex to real (where the engine's
generic conj-around-the-formula rule does not apply) states its gradient explicitly.

The conjugate bit: PyTorch's ``conj()`` is a lazy view that flips a flag. Here ``conj()`` computes the
conjugate values (NumPy has no conjugating view) and carries the flag, so ``is_conj``/``resolve_conj`` and
``view_as_real``'s refusal behave as PyTorch's while every value read is already right.
"""
import warnings

import numpy as np

from ..autograd.function import Op
from ..autograd.views import mark_view
from ..tensor import Tensor
from . import _poly as P
from ._registry import method, op
from .unary import sgn_np

_PART = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}
_WHOLE = {v: k for k, v in _PART.items()}
_WHOLE[np.dtype(np.float16)] = np.dtype(np.complex64)  # PyTorch's complex32 has no NumPy type


def _re(x):
    return x.real


def _im(x):
    return x.imag


def _conj(x):
    return x.conj_physical() if isinstance(x, Tensor) else np.conj(x)


def _times_i(g):
    """i * g for a real gradient g, complex of g's precision."""
    if isinstance(g, Tensor):
        return g * 1j
    g = np.asarray(g)
    out = np.zeros(g.shape, _WHOLE[g.dtype])
    out.imag = g
    return out


def _complex_of(re, im):
    """re + i * im, for arrays or (differentiably) Tensors."""
    if isinstance(re, Tensor) or isinstance(im, Tensor):
        return complex(P.as_tensor(re), P.as_tensor(im))
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, _WHOLE[re.dtype])
    out.real, out.imag = re, im
    return out


def _flag(t, name):
    return t.__dict__.get(name, False)


# -- real / imag: views that can be written through ---------------------------------------------------

class RealView(Op):
    __slots__ = ()
    node_name = "SelectBackward0"  # PyTorch: view_as_real(z).select(-1, 0)
    _complex_native = True

    @staticmethod
    def forward(ctx, z):
        return z.real

    @staticmethod
    def backward(ctx, g):
        return g  # the engine casts it to the input's complex dtype: dL/dx + i * 0


class ImagView(Op):
    __slots__ = ()
    node_name = "SelectBackward0"
    _complex_native = True

    @staticmethod
    def forward(ctx, z):
        return z.imag

    @staticmethod
    def backward(ctx, g):
        return _times_i(g)


@op(methods=())
def real(input):
    if input._data.dtype.kind != "c":
        return input
    return mark_view(RealView.apply(input), input, _re)


@op(methods=())
def imag(input):
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    out = mark_view(ImagView.apply(input), input, _im)
    if _flag(input, "_is_conj"):
        out._is_neg = True  # PyTorch: the imaginary part of a lazily conjugated tensor carries the negative bit
    return out


def _set_part(getter):
    def setter(self, value):
        getter(self).copy_(value)
    return setter


method("real", property(real, _set_part(real)))
method("imag", property(imag, _set_part(imag)))


# -- view_as_real / view_as_complex -----------------------------------------------------------------------------

class ViewAsReal(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, z):
        return np.expand_dims(z, -1).view(_PART[z.dtype])

    @staticmethod
    def backward(ctx, g):
        return _complex_of(g[..., 0], g[..., 1])


class ViewAsComplex(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, x):
        return x.view(_WHOLE[x.dtype])[..., 0]

    @staticmethod
    def backward(ctx, g):
        if isinstance(g, Tensor):
            return view_as_real(g.resolve_conj())
        return np.stack([g.real, g.imag], -1)


@op(methods=())
def view_as_real(input):
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if _flag(input, "_is_conj"):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return mark_view(ViewAsReal.apply(input), input, lambda a: view_as_real(a) if isinstance(a, Tensor) else
                     np.expand_dims(a, -1).view(_PART[a.dtype]))


@op(methods=())
def view_as_complex(input):
    a = input._data
    if a.dtype.kind != "f" or a.dtype == np.float16:
        from ..dtypes import scalar_name
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {scalar_name(a.dtype)}" if a.dtype != np.float16 else
                           "view_as_complex: half precision complex (complex32) is not available in npgrad")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * a.itemsize) for s, n in zip(a.strides[:-1], a.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return mark_view(ViewAsComplex.apply(input), input, lambda t: view_as_complex(t) if isinstance(t, Tensor) else
                     t.view(_WHOLE[t.dtype])[..., 0])


# -- conjugation ---------------------------------------------------------------------------------------------

class Conj(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, z):
        return np.conj(z)

    @staticmethod
    def backward(ctx, g):
        return _conj(g)


class ConjPhysical(Conj):
    __slots__ = ()


@op()
def conj(input):
    if input._data.dtype.kind != "c":
        return input
    out = Conj.apply(input)
    if not _flag(input, "_is_conj"):
        out._is_conj = True  # conj of a conj clears the bit, as PyTorch's
    return out


@op(inplace="generic")
def conj_physical(input):
    if input._data.dtype.kind != "c":
        return input.clone()
    return ConjPhysical.apply(input)


@op()
def is_conj(input):
    return _flag(input, "_is_conj")


@op()
def is_neg(input):
    return _flag(input, "_is_neg")


def _resolve(input, name):
    if not _flag(input, name):
        return input
    return input.clone()  # the values are already resolved; the copy carries no flag, as PyTorch's does


@op()
def resolve_conj(input):
    return _resolve(input, "_is_conj")


@op()
def resolve_neg(input):
    return _resolve(input, "_is_neg")


@op()
def adjoint(input):
    nd = input._data.ndim
    if nd == 0:  # PyTorch still takes a 0-d tensor (its conjugate), with a deprecation warning
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return input.conj()
    if nd < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got {nd}-D tensor.")
    return input.transpose(-2, -1).conj()


# -- angle, sgn, polar, complex -----------------------------------------------------------------------------

class Angle(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        if z.dtype.kind == "c":
            return np.angle(z)
        return np.where(z < 0, z.dtype.type(np.pi), np.where(np.isnan(z), z, z.dtype.type(0)))

    @staticmethod
    def backward(ctx, g):
        (z,) = ctx.saved_tensors
        zd = P.data_of(z)
        if zd.dtype.kind != "c":
            return P.zeros_like(g)
        x, y = _re(z), _im(z)
        r2 = x * x + y * y
        zero = P.data_of(r2) == 0
        # d angle = (x dy - y dx) / |z|^2, so the gradient is g * (-y + i x) / |z|^2 = g * i z / |z|^2
        scale = P.where(zero, 0.0, 1.0 / P.where(zero, 1.0, r2))
        return _times_i(g * x * scale) - g * y * scale


@op()
def angle(input):
    if input._data.dtype.kind in "iub":
        from .. import dtypes as _dt
        input = input._cast(_dt.get_default_dtype())
    return Angle.apply(input)


class Sgn(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, z):
        s = sgn_np(z)
        ctx.save_for_backward(z, s)
        return s

    @staticmethod
    def backward(ctx, g):
        z, s = ctx.saved_tensors
        r = P.abs(z)
        zero = P.data_of(r) == 0
        inv = P.where(zero, 0.0, 1.0 / P.where(zero, 1.0, r))
        # s = z/|z|: ds = dz/|z| - s Re(conj(s) dz)/|z|, so the gradient is (g - Re(g conj(s)) s) / |z|
        return (g - _re(g * _conj(s)) * s) * inv


def complex_sgn(input):
    """torch.sgn of a complex tensor (the real case is sign, in pointwise_extra)."""
    return Sgn.apply(input)


class Polar(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, r, theta):
        ctx.save_for_backward(r, theta)
        return r * _complex_of(np.cos(theta), np.sin(theta))

    @staticmethod
    def backward(ctx, g):
        r, theta = ctx.saved_tensors
        w = _complex_of(P.cos(theta), P.sin(theta))  # recomputed from the inputs: differentiable again
        out = r * w
        # dz = w dr + i z dtheta; dL = Re(conj(g) dz)
        gr = _re(g * _conj(w)) if ctx.needs_input_grad[0] else None
        gt = _im(g * _conj(out)) if ctx.needs_input_grad[1] else None  # Re(conj(g) i z) = Im(g conj(z))
        return gr, gt


def _check_parts(a, b):
    from ..dtypes import scalar_name
    da, db = a._data.dtype, b._data.dtype
    if da.kind != "f" or db.kind != "f":
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {scalar_name(da)} and "
                           f"{scalar_name(db)}")
    if da != db:
        raise RuntimeError(f"Expected object of scalar type {scalar_name(da)} but got scalar type {scalar_name(db)} "
                           "for second argument")


@op(methods=())
def polar(abs, angle):  # noqa: A002 - PyTorch's parameter names
    _check_parts(abs, angle)
    return Polar.apply(abs, angle)


class Complex(Op):
    __slots__ = ()
    _complex_native = True

    @staticmethod
    def forward(ctx, re, im):
        return _complex_of(re, im)

    @staticmethod
    def backward(ctx, g):
        need = ctx.needs_input_grad
        return (_re(g) if need[0] else None), (_im(g) if need[1] else None)


@op(methods=())
def complex(real, imag):  # noqa: A001
    _check_parts(real, imag)
    return Complex.apply(real, imag)
