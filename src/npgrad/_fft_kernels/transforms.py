"""The 18 transforms of torch.fft on arrays, and their backward under PyTorch's complex autograd convention.

PyTorch's gradient of a real loss L with respect to a complex z is dL/dRe(z) + i dL/dIm(z) (the conjugate
Wirtinger derivative, doubled), so for a C-linear map y = A x the gradient is grad_x = A^H grad_y, and for a real
input it is the real part of that. Every transform here is A = (scale) x (DFT of one sign) x (zero-pad or trim):

* complex-to-complex: A^H is the opposite-sign transform with the swapped norm, then the adjoint of the pad/trim
  (trim what was padded, zero-pad what was trimmed);
* real-to-complex (rfft, ihfft = conj of an rfft): the output keeps the first n//2+1 bins of the last dim, whose
  adjoint zero-pads them back to n before the inverse; the input is real, so the real part is kept;
* complex-to-real (irfft, hfft = irfft of the conjugate): the real output reads each bin k in 1..ceil(n/2)-1 twice
  (once as itself, once as its conjugate mirror at n-k), so the gradient is the forward real-to-complex transform
  of grad with those bins doubled; DC and (n even) Nyquist are read once.
"""
import numpy as np

from .plan import SWAP, compute_dtypes, make_plan


def resize(a, dims, sizes):
    """Trim or zero-pad ``a`` at the end of each of ``dims`` to ``sizes`` (the pad/trim torch.fft applies to an
    input whose length differs from n; it is also its own adjoint's shape change the other way round)."""
    index, pads = [slice(None)] * a.ndim, [(0, 0)] * a.ndim
    for d, n in zip(dims, sizes):
        if a.shape[d] > n:
            index[d] = slice(0, n)
        elif a.shape[d] < n:
            pads[d] = (0, n - a.shape[d])
    a = a[tuple(index)]
    return np.pad(a, pads) if any(p != (0, 0) for p in pads) else a


def _c2r_weights(n, ndim, dim):
    """The number of times a c2r transform of length n reads each of its n//2+1 input bins, shaped to broadcast
    along ``dim`` of an ``ndim``-dimensional array."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[dim] = w.size
    return w.reshape(shape)


def forward(x, plan):
    """torch.fft.<plan.name>(x, ...) for the arguments resolved in ``plan``."""
    x = np.asarray(x)
    work, _ = compute_dtypes(x.dtype, plan.kind)
    x = x.astype(work, copy=False)
    dims, s, norm = plan.dims, plan.sizes, plan.norm
    if plan.kind == "c2c":
        if not dims:  # fftn(x, dim=()) transforms nothing: the input as a complex tensor
            y = x
        else:
            y = (np.fft.ifftn if plan.inverse else np.fft.fftn)(x, s=s, axes=dims, norm=norm)
    elif plan.kind == "r2c":
        if plan.inverse:  # ihfft: the conjugate of an rfft scaled as an inverse
            y = np.conj(np.fft.rfftn(x, s=s, axes=dims, norm=SWAP[norm]))
        else:
            y = np.fft.rfftn(x, s=s, axes=dims, norm=norm)
    else:
        if plan.inverse:
            y = np.fft.irfftn(x, s=s, axes=dims, norm=norm)
        else:  # hfft: the irfft of the conjugate, scaled as a forward transform
            y = np.fft.irfftn(np.conj(x), s=s, axes=dims, norm=SWAP[norm])
    return np.asarray(y).astype(plan.out_dtype, copy=False)


def backward(grad, plan):
    """The gradient with respect to the input of ``forward(x, plan)``, given the gradient of its output."""
    grad = np.asarray(grad)
    dims, s, norm = plan.dims, plan.sizes, plan.norm
    if not dims:
        g = grad
    elif plan.kind == "c2c":
        g = (np.fft.fftn if plan.inverse else np.fft.ifftn)(grad, axes=dims, norm=SWAP[norm])
    elif plan.kind == "r2c":
        last = dims[-1]
        if plan.inverse:  # the adjoint of conj is conj, and the inner rfft had the swapped norm
            grad, inner = np.conj(grad), SWAP[norm]
        else:
            inner = norm
        full = resize(grad, (last,), (s[-1],))
        g = np.fft.ifftn(full, s=s, axes=dims, norm=SWAP[inner])
    else:
        last = dims[-1]
        inner = norm if plan.inverse else SWAP[norm]
        g = np.fft.rfftn(grad, s=s, axes=dims, norm=SWAP[inner])
        g = g * _c2r_weights(s[-1], g.ndim, last)
        if not plan.inverse:
            g = np.conj(g)
    g = resize(g, dims, plan.in_sizes)
    if plan.in_dtype.kind != "c":
        g = np.real(g)
    return np.ascontiguousarray(g).astype(_grad_dtype(plan), copy=False)


def _grad_dtype(plan):
    d = plan.in_dtype
    if d.kind in "fc":
        return d
    return np.dtype(np.float64)  # an integer input has no gradient; this only keeps the function total


def transform(name, x, n_or_s=None, dim=None, norm=None):
    """torch.fft.<name>(x, n_or_s, dim, norm) on an array: the plan and the forward in one call."""
    x = np.asarray(x)
    return forward(x, make_plan(name, x.shape, x.dtype, n_or_s, dim, norm))
