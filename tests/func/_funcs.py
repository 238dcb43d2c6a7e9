"""Functions written once against PyTorch's API (``lib`` is npgrad or torch), shared by the torch.func tests."""
import numpy as np

RNG = np.random.default_rng(0)
X = RNG.standard_normal(3)
Y = RNG.standard_normal(3)
B = RNG.standard_normal((4, 3))
W = RNG.standard_normal((2, 3))


def scalar(lib):
    return lambda x, y: (lib.sin(x) * y).sum() + (x ** 3).sum() * y.sum()


def vector(lib):
    return lambda x: lib.tanh(x) * x.sum()


def two_out(lib):
    """A pytree output (dict of a tuple and a tensor) from a pytree input (tuple)."""
    return lambda xy: {"a": (xy[0] * xy[1], lib.exp(xy[0]).sum()), "b": xy[1] ** 2}


def leaves(tree):
    """Leaves of a nested tuple / list / dict, dict keys in insertion order (both libraries keep it)."""
    if isinstance(tree, (tuple, list)):
        return [v for t in tree for v in leaves(t)]
    if isinstance(tree, dict):
        return [v for k in tree for v in leaves(tree[k])]
    return [tree]


def structure(tree):
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, [structure(t) for t in tree])
    if isinstance(tree, dict):
        return ("dict", [(k, structure(v)) for k, v in tree.items()])
    return "leaf"


def np_of(t):
    return t.detach().numpy()


def fd_jacobian(fn, x, eps=1e-6):
    """Central differences of numpy ``fn`` (array -> array) at ``x``: shape out.shape + x.shape."""
    out = np.asarray(fn(x))
    jac = np.zeros(out.shape + x.shape)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        jac[(...,) + i] = (np.asarray(fn(x + d)) - np.asarray(fn(x - d))) / (2 * eps)
    return jac
