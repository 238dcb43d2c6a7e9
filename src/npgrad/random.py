"""Random number generation: a default generator seeded by ``manual_seed``, and ``Generator`` objects.

npgrad cannot reproduce PyTorch's random streams (a different algorithm: NumPy's PCG64), but the same
seed always gives the same numbers, in any process. Like PyTorch, the default generator starts from a
fixed seed, so a program that never seeds is still reproducible run to run.
"""
import numpy as np

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "default_generator",
           "thread_safe_generator"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default seed; any fixed value would do


class Generator:
    """A random stream: ``Generator().manual_seed(0)``; pass it as ``generator=`` to random functions."""

    def __init__(self, device="cpu"):
        self._seed = _DEFAULT_SEED
        self._rng = None
        self.device = device

    # The NumPy stream is made at its first draw: numpy.random's import is ~6 ms of a bare ``import npgrad``, and
    # NumPy loads it lazily too.
    @property
    def rng(self):
        r = self._rng
        if r is None:
            r = self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return r

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < 0:
            seed &= 0xFFFF_FFFF_FFFF_FFFF  # PyTorch accepts negative seeds by wrapping them
        self._seed = seed
        self._rng = None
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy) & 0xFFFF_FFFF_FFFF_FFFF
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from ._convert import tensor
        import json
        state = json.dumps(self.rng.bit_generator.state).encode()
        return tensor(np.frombuffer(state, np.uint8).copy())

    def set_state(self, state):
        import json
        self.rng.bit_generator.state = json.loads(bytes(np.asarray(state._data, np.uint8)).decode())
        return self


default_generator = Generator()


def rng(generator=None):
    """The NumPy Generator to draw from."""
    return (generator or default_generator).rng


def manual_seed(seed):
    """Seed the default generator (every random factory and nn.init draw from it)."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def thread_safe_generator():
    """The worker's own Generator inside a DataLoader *thread* worker, else None (the global generator).
    npgrad's DataLoader workers are processes, each with its own global generator, so this is None everywhere,
    exactly as PyTorch's is outside thread workers."""
    return None
