"""Sample-input makers shared by the op-table families (``In`` specs and value generators)."""
import numpy as np

from oracle import In

X = In((2, 3))
POS = In((2, 3), 0.5, 2.0)
UNIT = In((2, 3), -0.8, 0.8)
V3 = In((3,))


def mask(shape):
    """A random bool condition (no grad) holding both values (when it has two elements), so that both branches
    of what it selects between are checked."""
    def make(r):
        m = r.random(shape) < 0.5
        if m.size > 1 and (m.all() or not m.any()):
            m.flat[0] = not m.flat[0]
        return m
    return In(shape, dtype=np.bool_, grad=False, values=make)


def separated(shape, offset):
    """Values on a 0.25 grid shifted by ``offset``: two such inputs never tie and never come close."""
    def make(rng):
        return rng.integers(-8, 8, size=shape) * 0.25 + offset
    return make


def spread(rng):
    """(2, 3) values well away from ties and zeros, for operators with kinks."""
    return rng.permutation(np.linspace(0.3, 2.0, 6)).reshape(2, 3) * rng.choice([-1, 1], size=(2, 3))


def spread_shifted(rng):
    """Never equal to a value of ``spread``: no ties between the two."""
    return spread(rng) * 0.5 + 0.05


SPREAD = In((2, 3), values=spread)
SPREAD_SHIFTED = In((2, 3), values=spread_shifted)


def normal(*shape, scale=1.0):
    """Standard normal values times ``scale`` (the nn.functional rows' inputs)."""
    return In(shape, values=lambda rng: rng.standard_normal(shape) * scale)


def fixed(array, grad=True):
    """These exact values (integer arrays never need grad): indices, masks, targets."""
    array = np.asarray(array)
    return In(array.shape, values=lambda rng: array.copy(), grad=grad and array.dtype.kind == "f")
