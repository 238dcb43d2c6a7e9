"""Op table: partial spectral decompositions (npgrad/ops/lowrank.py; family "decomp", run by
tests/test_linalg_namespace.py): svd_lowrank, pca_lowrank, lobpcg.

svd_lowrank/pca_lowrank draw a random matrix (npgrad's generator, PyTorch's own there), so the rows use inputs of
rank <= q, built inside the expression (X @ Y) so that finite differences keep the rank: then the singular values
and U diag(S) V^T, and their gradients, do not depend on the draw. lobpcg's rows compare eigenvalues, and
eigenvectors only through sign-invariant expressions with a tolerance for PyTorch's iteration (converged to
sqrt(eps)); tests/test_lowrank.py checks the eigenvectors' properties, the float64 gradients against PyTorch's,
and the ValueError/AssertionError argument checks."""
import numpy as np

from oracle import In
from _record import row as _s, row2 as _d  # noqa: E402 (shared makers)
from _record import FD, OpInfo, Sample


def _fd(name, fn, inputs):
    """Finite differences only (no PyTorch comparison)."""
    return Sample(name, fn, inputs, checks=frozenset({FD}))


def _lowrank(L, x, y):
    # The result does not depend on the random draw in exact arithmetic, its rounding does: a fixed seed keeps
    # the tolerances from depending on which tests ran before (seen once in a double-backward row).
    L.manual_seed(0)
    return x @ y


def _svd_values(L, x, y):
    return L.svd_lowrank(_lowrank(L, x, y), q=3)[1]


def _svd_product(L, x, y):
    u, s, v = L.svd_lowrank(_lowrank(L, x, y), q=2, niter=1)
    return (u * s.unsqueeze(-2)) @ v.mT


def _spd(L, x):
    return x @ x.mT + L.eye(x.shape[-1], dtype=x.dtype)


X12 = In((12, 12))
X12_CONST = In((12, 12), grad=False)
BPD = In((12, 12), grad=False, values=lambda rng: (lambda b: b @ b.T + 12 * np.eye(12))(rng.standard_normal((12, 12))))

OPS = [
    OpInfo("svd_lowrank", "decomp", lambda lib, a: lib.svd_lowrank(a),
           samples=[
               _d("svd_lowrank_values", _svd_values, [In((8, 3)), In((3, 6))]),
               _s("svd_lowrank_product_wide", _svd_product, [In((4, 2)), In((2, 7))]),
               _s("svd_lowrank_batched", lambda L, x, y: L.svd_lowrank(x @ y, q=2)[1], [In((2, 6, 2)), In((2, 2, 5))]),
               _s("svd_lowrank_M", lambda L, x, y, m: L.svd_lowrank(x @ y + m, q=3, M=m)[1],
                  [In((7, 3)), In((3, 5)), In((5,), grad=False)]),
           ]),
    OpInfo("pca_lowrank", "decomp", lambda lib, a: lib.pca_lowrank(a),
           samples=[
               _s("pca_lowrank_values", lambda L, x, y: L.pca_lowrank(x @ y, q=3)[1], [In((8, 3)), In((3, 6))]),
               _s("pca_lowrank_default_q", lambda L, x, y: (lambda r: (r[0] * r[1]) @ r[2].mT)(L.pca_lowrank(x @ y)),
                  [In((7, 2), grad=False), In((2, 5), grad=False)]),  # q=5 > rank: no stable gradient
               _s("pca_lowrank_no_center", lambda L, x, y: L.pca_lowrank(x @ y, q=2, center=False)[1],
                  [In((6, 2)), In((2, 4))]),
           ]),
    OpInfo("lobpcg", "decomp", lambda lib, a: lib.lobpcg(a),
           samples=[
               # forward parity in float32 and float64; PyTorch's float32 iteration is too loose (1e-3) for its
               # gradients to be compared here: tests/test_lowrank.py compares them in float64.
               _s("lobpcg_largest", lambda L, x: L.lobpcg(_spd(L, x), k=2)[0], [X12_CONST]),
               _s("lobpcg_smallest", lambda L, x: L.lobpcg(_spd(L, x), k=3, largest=False)[0], [X12_CONST]),
               _s("lobpcg_generalized", lambda L, x, b: L.lobpcg(_spd(L, x), k=2, B=b)[0], [X12_CONST, BPD]),
               _s("lobpcg_batched_n", lambda L, x: L.lobpcg(_spd(L, x), k=1, n=2)[0], [In((2, 9, 9), grad=False)]),
               _fd("lobpcg_values_fd", lambda L, x: L.lobpcg(_spd(L, x), k=2)[0], [X12]),
               _fd("lobpcg_vectors_fd", lambda L, x: (L.lobpcg(_spd(L, x), k=2, largest=False)[1] ** 2).sum(0), [X12]),
           ],
           empty=[
               ("batch of 0", lambda L, a: L.lobpcg(a)[0], ((0, 6, 6), "float32")),
               ("batch of 0, vectors", lambda L, a: L.lobpcg(a, k=2)[1], ((0, 6, 6), "float32")),
           ]),
]
