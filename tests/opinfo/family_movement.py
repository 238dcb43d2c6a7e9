"""Op table: movement and view operators (npgrad/ops/movement.py). Rows not yet moved here stay in
tests/ops/test_movement.py (see PENDING in tests/test_op_db.py)."""
from oracle import In
from _record import OpInfo, Sample

OPS = [
    OpInfo("atleast_1d", "movement", lambda lib, x: lib.atleast_1d(x) * 2,
           samples=[Sample("atleast_1d_0d", inputs=[In(())]),
                    Sample("atleast_1d_1d", inputs=[In((3,))]),
                    Sample("atleast_1d_2d", inputs=[In((2, 3))]),
                    Sample("atleast_1d_several", lambda lib, x, y: lib.atleast_1d(x, y)[0] * lib.atleast_1d(x, y)[1],
                           [In(()), In((3,))])]),
]
