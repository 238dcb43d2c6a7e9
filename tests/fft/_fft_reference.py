"""Independent references for the fft kernels' tests: transforms written as explicit DFT sums (no numpy.fft),
and complex finite differences under PyTorch's gradient convention."""
import numpy as np

SCALE = {  # (norm, inverse) -> scale as a function of the signal size
    ("backward", False): lambda n: 1.0, ("backward", True): lambda n: 1.0 / n,
    ("ortho", False): lambda n: n ** -0.5, ("ortho", True): lambda n: n ** -0.5,
    ("forward", False): lambda n: 1.0 / n, ("forward", True): lambda n: 1.0,
}


def fit(a, axis, n):
    """Zero-pad or trim ``a`` along ``axis`` to n samples."""
    a = np.moveaxis(a, axis, -1)
    out = np.zeros(a.shape[:-1] + (n,), dtype=np.result_type(a, np.complex128))
    m = min(n, a.shape[-1])
    out[..., :m] = a[..., :m]
    return np.moveaxis(out, -1, axis)


def dft_along(a, axis, sign, scale):
    n = a.shape[axis]
    k = np.arange(n)
    mat = np.exp(sign * 2j * np.pi * np.outer(k, k) / n) * scale
    return np.moveaxis(np.tensordot(np.moveaxis(a, axis, -1), mat, axes=([-1], [1])), -1, axis)


def reference(kind, inverse, x, dims, sizes, norm):
    """The transform as sums: c2c along each dim; r2c keeps the first n//2+1 bins of the last dim; c2r reads each
    bin 1..ceil(n/2)-1 of its half spectrum twice (itself and its mirror), as the real part of a weighted sum.
    ihfft and hfft are the transforms of the other sign (ihfft is an inverse r2c, hfft a forward c2r)."""
    sign = 1 if inverse else -1
    total = float(np.prod(sizes))
    scale = SCALE[(norm, inverse)](total)
    a = np.asarray(x, dtype=np.complex128)
    if kind == "c2r":
        *others, last = dims
        for d, n in zip(others, sizes[:-1]):
            a = dft_along(fit(a, d, n), d, sign, 1.0)
        n = sizes[-1]
        a = fit(a, last, n // 2 + 1)
        w = np.full(n // 2 + 1, 2.0)
        w[0] = 1.0
        if n % 2 == 0:
            w[-1] = 1.0
        k, t = np.arange(n // 2 + 1), np.arange(n)
        mat = w[:, None] * np.exp(sign * 2j * np.pi * np.outer(k, t) / n)
        y = np.tensordot(np.moveaxis(a, last, -1), mat, axes=([-1], [0]))
        return np.moveaxis(np.real(y), -1, last) * scale
    for d, n in zip(dims, sizes):
        a = dft_along(fit(a, d, n), d, sign, 1.0)
    if kind == "r2c":
        index = [slice(None)] * a.ndim
        index[dims[-1]] = slice(0, sizes[-1] // 2 + 1)
        a = a[tuple(index)]
    return a * scale


def loss_grad_fd(f, x, g, eps=1e-6):
    """PyTorch's gradient of L(x) = Re(sum(conj(g) * f(x))) by central differences: dL/dRe(x) + i dL/dIm(x)
    (only the real part for a real x). This is what a backward given grad_output g must return."""
    x = np.asarray(x)

    def loss(v):
        return float(np.real(np.sum(np.conj(g) * f(v))))

    out = np.zeros(x.shape, dtype=x.dtype)
    parts = (1.0, 1j) if x.dtype.kind == "c" else (1.0,)
    for j in range(x.size):
        for unit in parts:
            plus, minus = x.copy(), x.copy()
            plus.flat[j] += unit * eps
            minus.flat[j] -= unit * eps
            out.flat[j] += unit * (loss(plus) - loss(minus)) / (2 * eps)
    return out


def random_like(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)
