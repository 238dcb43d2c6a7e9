"""Op table: indexing operators (npgrad/ops/indexing.py). Rows not yet moved here stay in
tests/ops/test_indexing.py (see PENDING in tests/test_op_db.py)."""
import numpy as np

from oracle import In
from _record import PARITY, OpInfo, Sample

_FORWARD = frozenset({PARITY})


def _sparse(shape):
    return In(shape, values=lambda r: np.where(r.random(shape) < 0.5, 0.0, r.uniform(-2, 2, shape)), grad=False)


OPS = [
    OpInfo("argwhere", "indexing", lambda lib, x: lib.argwhere(x),
           samples=[Sample("argwhere", inputs=[_sparse((3, 4))], checks=_FORWARD),
                    Sample("argwhere_method", lambda lib, x: x.argwhere(), [_sparse((2, 2, 3))], checks=_FORWARD),
                    Sample("argwhere_bool", inputs=[In((5,), dtype=np.bool_, grad=False)], checks=_FORWARD),
                    # a 0-d tensor: one element with no coordinates, shape (1, 0) (or (0, 0) when it is zero)
                    Sample("argwhere_0d", inputs=[In((), values=lambda r: np.array(1.5), grad=False)],
                           checks=_FORWARD),
                    Sample("argwhere_0d_zero", inputs=[In((), values=lambda r: np.array(0.0), grad=False)],
                           checks=_FORWARD),
                    Sample("nonzero_0d_as_tuple", lambda lib, x: lib.nonzero(x, as_tuple=True)[0],
                           [In((), values=lambda r: np.array(2.0), grad=False)], checks=_FORWARD)]),
]
