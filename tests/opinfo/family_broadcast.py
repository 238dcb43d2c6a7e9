"""Op table: explicit broadcasting (npgrad/ops/broadcast.py): broadcast_to and broadcast_tensors. Their
gradients sum back to each input's shape. (broadcast_shapes takes shapes, not tensors: EXCLUDED in
tests/test_op_db.py; Tensor.expand/expand_as are methods, tested with movement.)"""
from oracle import In
from _record import SECOND_ORDER, OpInfo, Sample

F = "float32"
EXPANDED = ("The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
            "Target sizes: [2, 4].  Tensor sizes: [3]")
MISMATCH = "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0"

OPS = [
    OpInfo("broadcast_to", "broadcast", lambda lib, x: lib.broadcast_to(x, (2, 3, 4)),
           samples=[Sample("broadcast_to", lambda lib, x: lib.broadcast_to(x, (2, 3, 4)) ** 2, [In((3, 1))]),
                    Sample("broadcast_to_view", inputs=[In((4,))]),
                    Sample("broadcast_to", lambda lib, x: lib.broadcast_to(x, (2, 3)) ** 2, [In((3,))],
                           checks=frozenset({SECOND_ORDER}))],
           empty=[("(1,3)->(0,3)", lambda L, x: L.broadcast_to(x, (0, 3)), ((1, 3), F))],
           raises=[("broadcast_to_mismatch", lambda lib: lib.broadcast_to(lib.ones(3), (2, 4)), RuntimeError,
                    EXPANDED)]),
    OpInfo("broadcast_tensors", "broadcast", lambda lib, x, y: lib.stack(lib.broadcast_tensors(x, y)) * 1.5,
           samples=[Sample("broadcast_tensors", inputs=[In((3, 1)), In((4,))]),
                    Sample("broadcast_tensors_sum", lambda lib, x, y: sum(lib.broadcast_tensors(x, y)),
                           [In((3, 1)), In((4,))])],
           empty=[("with an empty", lambda L, a, b: L.broadcast_tensors(a, b), ((0, 1), F), ((1, 3), F))],
           raises=[("broadcast_tensors_mismatch", lambda lib: lib.broadcast_tensors(lib.ones(2, 3), lib.ones(4, 3)),
                    RuntimeError, MISMATCH)]),
]
