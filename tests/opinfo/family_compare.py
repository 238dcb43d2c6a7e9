"""Op table: comparisons and value tests (npgrad/ops/compare.py). Rows not yet moved here stay in
tests/ops/test_compare.py (see PENDING in tests/test_op_db.py)."""
import numpy as np

from oracle import In
from _record import PARITY, OpInfo, Sample


def _special(shape):
    """Finite values mixed with +-inf, NaN and +-0.0."""
    def make(rng):
        pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.5, -2.0, 1e30])
        return rng.choice(pool, size=shape)
    return In(shape, values=make, grad=False)


_FORWARD = frozenset({PARITY})

OPS = [
    OpInfo("isposinf", "compare", lambda lib, x: lib.isposinf(x), np.isposinf,
           samples=[Sample("isposinf", inputs=[_special((3, 4))], checks=_FORWARD),
                    Sample("isposinf_method", lambda lib, x: x.isposinf(), [_special((5,))], checks=_FORWARD),
                    Sample("isposinf_int", inputs=[In((4,), -5, 5, dtype=np.int64, grad=False)], checks=_FORWARD)]),
    OpInfo("isneginf", "compare", lambda lib, x: lib.isneginf(x), np.isneginf,
           samples=[Sample("isneginf", inputs=[_special((3, 4))], checks=_FORWARD),
                    Sample("isneginf_method", lambda lib, x: x.isneginf(), [_special(())], checks=_FORWARD),
                    Sample("isneginf_int", inputs=[In((4,), -5, 5, dtype=np.int32, grad=False)], checks=_FORWARD)]),
    OpInfo("isreal", "compare", lambda lib, x: lib.isreal(x), np.isreal,
           samples=[Sample("isreal", inputs=[_special((2, 3))], checks=_FORWARD),
                    Sample("isreal_method", lambda lib, x: x.isreal(), [_special((4,))], checks=_FORWARD),
                    Sample("isreal_bool", inputs=[In((3,), dtype=np.bool_, grad=False)], checks=_FORWARD)]),
]
