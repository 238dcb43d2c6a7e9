"""Op table: arithmetic operators (npgrad/ops/arith.py). So far negation and unary plus; the binary
operators' rows stay in tests/ops/test_arith.py and tests/reliability/_op_tables.py until they move here
(see PENDING in tests/test_op_db.py)."""
import numpy as np

from oracle import In
from _inputs import X
from _record import (EMPTY_INTEGER_SWEEP, FLOAT16_SWEEP, INTEGER_SWEEP, SECOND_ORDER, SPECIAL_SWEEP, OpInfo,
                     Sample, Unary)

OPS = [
    OpInfo("neg", "arith", lambda lib, x: lib.neg(x), np.negative, aliases=["negative"],
           samples=[
               Sample("neg", lambda lib, x: -x, [In((2, 3))]),
               Sample("neg_fn", lambda lib, x: lib.neg(x), [In(())]),
               Sample("negative", lambda lib, x: x.negative(), [In((3,))]),
               Sample("neg_method", lambda lib, x: x.neg(), [In((3, 4))]),
               Sample("neg_0d", lambda lib, x: x.neg(), [In(())]),
               Sample("neg", lambda lib, x: -x, [X], checks=frozenset({SECOND_ORDER})),
           ],
           properties=[Unary("neg", lambda lib, x: -x, np.negative)],
           float16=[("neg", lambda lib, x, y: x.neg())],
           sweeps=frozenset({INTEGER_SWEEP, FLOAT16_SWEEP, SPECIAL_SWEEP, EMPTY_INTEGER_SWEEP})),
    OpInfo("positive", "arith", lambda lib, x: lib.positive(x), lambda x: x,
           samples=[Sample("positive", lambda lib, x: +x * 2, [In((3,))])],
           sweeps=frozenset({INTEGER_SWEEP, FLOAT16_SWEEP})),
]
