"""Op table: softmax and log_softmax (npgrad/ops/softmax.py), the normalisations along one dim, and
nn.functional's softmax, log_softmax and softmin.

tests/ops/test_softmax.py runs the samples against PyTorch (float32 and float64), finite differences, PyTorch's
double backward and the float32-gradient check; the ``Reduction`` specs (``dims="required"``) feed the
reduction fuzz, special-value and chain suites. The rows that came from tests/nn/test_functional_parity.py keep
its finite-difference tolerance (1e-5) and standard normal inputs.
"""
import numpy as np

from oracle import In
from _inputs import X
from _record import FAMILY, FD, PARITY, SECOND_ORDER, OpInfo, Reduction, Sample

F = "float32"
_PARITY_FD = frozenset({PARITY, FD})


def _log_softmax(x, dim):
    m = np.max(x, axis=dim, keepdims=True) if x.size else 0
    z = x - m
    return z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True))


def _softmax_by_hand(lib, x, dim):
    # the second-order suite's row differentiates the composition, not the fused kernel
    e = (x - x.amax(dim, keepdim=True).detach()).exp()
    return e / e.sum(dim, keepdim=True)


def _normal(shape):
    return In(shape, values=lambda rng: rng.standard_normal(shape))


def _row(name, fn, inputs):
    return Sample(name, fn, inputs, checks=_PARITY_FD, fd_tol=1e-5)


def _F(lib):
    return lib.nn.functional


def _second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


OPS = [
    OpInfo("softmax", "softmax", lambda lib, x: lib.softmax(x, 1),
           samples=[
               Sample("softmax_last_dim", lambda lib, x: lib.softmax(x, -1), [In((2, 3, 4))], checks=FAMILY),
               # through npgrad.special (the same operator under PyTorch's other name)
               Sample("special_softmax", lambda L, x: L.special.softmax(x, 1), [In((3, 4))], checks=_PARITY_FD),
               _row("tensor_softmax", lambda l, x: x.softmax(-1) + x.log_softmax(dim=0), [_normal((3, 4))]),
               _second("softmax", lambda lib, x: _softmax_by_hand(lib, x, 1), [X]),
           ],
           properties=[Reduction("softmax", lambda lib, x, d, k: x.softmax(d),
                                 lambda x, d, k: np.exp(_log_softmax(x, d if x.ndim else None)), dims="required")],
           float16=[("softmax", lambda lib, x, y: x.softmax(1))],
           empty=[("over the empty dim", lambda L, x: L.softmax(x, 1), ((3, 0), F))]),
    OpInfo("log_softmax", "softmax", lambda lib, x: lib.log_softmax(x, 1),
           samples=[
               Sample("log_softmax_dim0", lambda lib, x: lib.log_softmax(x, 0), [In((3, 4))], checks=FAMILY),
               Sample("special_log_softmax", lambda L, x: L.special.log_softmax(x, 0), [In((3, 4))],
                      checks=_PARITY_FD),
               _second("log_softmax", lambda lib, x: x - x.logsumexp(1, keepdim=True), [X]),
           ],
           properties=[Reduction("log_softmax", lambda lib, x, d, k: x.log_softmax(d),
                                 lambda x, d, k: _log_softmax(x, d if x.ndim else None), dims="required")],
           float16=[("log_softmax", lambda lib, x, y: x.log_softmax(0))],
           empty=[("along the other dim", lambda L, x: L.log_softmax(x, 0), ((3, 0), F))]),
    OpInfo("F.softmax", "softmax", lambda lib, x: _F(lib).softmax(x, 1),
           samples=[_row("softmax", lambda l, x: _F(l).softmax(x, dim=-1), [_normal((3, 4, 5))]),
                    _row("softmax_dim0", lambda l, x: _F(l).softmax(x, 0), [_normal((3, 4))]),
                    _row("softmax_dtype", lambda l, x: _F(l).softmax(x, 1, dtype=l.float64), [_normal((3, 4))]),
                    _second("F_softmax", lambda lib, x: _F(lib).softmax(x, dim=1), [X])],
           special_fuzz=[("softmax", lambda L, x: _F(L).softmax(x, -1))]),
    OpInfo("F.log_softmax", "softmax", lambda lib, x: _F(lib).log_softmax(x, 1),
           samples=[_row("log_softmax", lambda l, x: _F(l).log_softmax(x, dim=1), [_normal((3, 4, 2))]),
                    _row("log_softmax_0d", lambda l, x: _F(l).log_softmax(x, dim=0), [_normal(())]),
                    _second("F_log_softmax", lambda lib, x: _F(lib).log_softmax(x, dim=1), [X])],
           special_fuzz=[("log_softmax", lambda L, x: _F(L).log_softmax(x, -1))]),
    OpInfo("F.softmin", "softmax", lambda lib, x: _F(lib).softmin(x, 1),
           samples=[_row("softmin", lambda l, x: _F(l).softmin(x, dim=1), [_normal((3, 4))])]),
]

