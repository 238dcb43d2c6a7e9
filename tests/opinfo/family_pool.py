"""Op table: nn.functional's pooling (npgrad/nn/_functional/pooling.py): max/avg/lp pooling in 1 and 2 dimensions
(stride, padding, ceil_mode, count_include_pad), max_pool2d's indices and the adaptive poolings.

tests/nn/test_functional_parity.py runs the samples against PyTorch (float32 and float64, outputs and input
gradients), finite differences, and the EXACT rows (values and int64 indices equal PyTorch's exactly); the
second-order rows run in tests/autograd/test_double_backward.py, the float16 forms in the float16 suite and the
``special_fuzz`` forms in tests/reliability/test_special_values.py.
"""
import numpy as np

from _inputs import normal
from _record import EXACT, ROW, OpInfo, Sample, second
from oracle import In


def F_(lib):
    return lib.nn.functional


def _row(name, fn, inputs):
    # fd_tol: the finite-difference tolerance these rows had in tests/nn/test_functional_parity.py
    return Sample(name, fn, inputs, checks=ROW, fd_tol=1e-5)


X4 = normal(2, 3, 5, 6)
X3 = normal(2, 3, 7)
POS4 = In((2, 3, 5, 6), 0.2, 2.0)  # lp pooling of an odd power is NaN for a negative sum
_VALUES = np.random.default_rng(3).standard_normal((2, 3, 5, 6))

OPS = [
    OpInfo("F.max_pool2d", "pool", lambda lib, x: F_(lib).max_pool2d(x, 2),
           samples=[_row("max_pool2d", lambda lib, x: F_(lib).max_pool2d(x, 3, 2, 1, ceil_mode=True), [X4]),
                    _row("max_pool2d_indices", lambda lib, x: F_(lib).max_pool2d(x, 2, return_indices=True), [X4]),
                    second("max_pool2d", lambda lib, x: F_(lib).max_pool2d(x * x, 2), [In((1, 1, 4, 4))])]),
    OpInfo("F.max_pool2d_with_indices", "pool", lambda lib, x: F_(lib).max_pool2d_with_indices(x, 2),
           samples=[_row("max_pool2d_with_indices", lambda lib, x: F_(lib).max_pool2d_with_indices(x, 3, 2, 1), [X4]),
                    Sample("max_pool2d_with_indices", lambda lib: F_(lib).max_pool2d_with_indices(
                        lib.tensor(_VALUES), 3, 2, 1, ceil_mode=True), (), checks=frozenset({EXACT})),
                    Sample("max_pool2d_return_indices", lambda lib: F_(lib).max_pool2d(
                        lib.tensor(_VALUES), 2, return_indices=True), (), checks=frozenset({EXACT}))]),
    OpInfo("F.max_pool1d", "pool", lambda lib, x: F_(lib).max_pool1d(x, 2),
           samples=[_row("max_pool1d", lambda lib, x: F_(lib).max_pool1d(x, 3, 2, 1), [X3])],
           float16=[("F.max_pool1d", lambda L, x, y: F_(L).max_pool1d(x.unsqueeze(0), 2))],
           special_fuzz=[("max_pool1d", lambda L, x: F_(L).max_pool1d(x.reshape(1, 1, -1), 2))]),
    OpInfo("F.avg_pool2d", "pool", lambda lib, x: F_(lib).avg_pool2d(x, 2),
           samples=[_row("avg_pool2d", lambda lib, x: F_(lib).avg_pool2d(x, 2, 1, 1, count_include_pad=False), [X4]),
                    second("avg_pool2d", lambda lib, x: F_(lib).avg_pool2d(x * x, 2), [In((1, 1, 4, 4))])]),
    OpInfo("F.avg_pool1d", "pool", lambda lib, x: F_(lib).avg_pool1d(x, 2),
           samples=[_row("avg_pool1d", lambda lib, x: F_(lib).avg_pool1d(x, 3, 2, 1, count_include_pad=False), [X3])],
           float16=[("F.avg_pool1d", lambda L, x, y: F_(L).avg_pool1d(x.unsqueeze(0), 2))],
           special_fuzz=[("avg_pool1d", lambda L, x: F_(L).avg_pool1d(x.reshape(1, 1, -1), 2))]),
    OpInfo("F.lp_pool2d", "pool", lambda lib, x: F_(lib).lp_pool2d(x, 2, 2),
           samples=[_row("lp_pool2d", lambda lib, x: F_(lib).lp_pool2d(x, 2, 2), [X4]),
                    _row("lp_pool2d_p3_ceil", lambda lib, x: F_(lib).lp_pool2d(x, 3, (2, 3), 2, ceil_mode=True),
                         [POS4])]),
    OpInfo("F.lp_pool1d", "pool", lambda lib, x: F_(lib).lp_pool1d(x, 2, 2),
           samples=[_row("lp_pool1d", lambda lib, x: F_(lib).lp_pool1d(x, 2, 3, 2), [X3])]),
    OpInfo("F.adaptive_avg_pool2d", "pool", lambda lib, x: F_(lib).adaptive_avg_pool2d(x, 3),
           samples=[_row("adaptive_avg_pool2d", lambda lib, x: F_(lib).adaptive_avg_pool2d(x, (4, 4)), [X4])]),
    OpInfo("F.adaptive_avg_pool1d", "pool", lambda lib, x: F_(lib).adaptive_avg_pool1d(x, 4),
           samples=[_row("adaptive_avg_pool1d", lambda lib, x: F_(lib).adaptive_avg_pool1d(x, 4), [X3])]),
    OpInfo("F.adaptive_max_pool1d", "pool", lambda lib, x: F_(lib).adaptive_max_pool1d(x, 3),
           samples=[_row("adaptive_max_pool1d", lambda lib, x: F_(lib).adaptive_max_pool1d(x, 3), [X3])]),
    OpInfo("F.adaptive_max_pool2d", "pool", lambda lib, x: F_(lib).adaptive_max_pool2d(x, 3),
           samples=[_row("adaptive_max_pool2d", lambda lib, x: F_(lib).adaptive_max_pool2d(x, (3, 4)), [X4]),
                    Sample("adaptive_max_pool2d_indices", lambda lib: F_(lib).adaptive_max_pool2d(
                        lib.tensor(_VALUES), (3, 4), return_indices=True), (), checks=frozenset({EXACT}))]),
]

# Empty batches; an empty channel dimension is refused (tests/reliability/test_empty_tensors.py)
F32 = "float32"
_EMPTY = {
    "F.max_pool2d": [("empty batch", lambda L, x: F_(L).max_pool2d(x, 2), ((0, 3, 5, 6), F32)),
                     ("no channels", lambda L, x: F_(L).max_pool2d(x, 2), ((2, 0, 5, 6), F32))],
    "F.max_pool2d_with_indices": [("empty batch", lambda L, x: F_(L).max_pool2d_with_indices(x, 2),
                                   ((0, 3, 5, 6), F32))],
    "F.max_pool1d": [("empty batch", lambda L, x: F_(L).max_pool1d(x, 2), ((0, 3, 7), F32))],
    "F.avg_pool2d": [("empty batch", lambda L, x: F_(L).avg_pool2d(x, 2), ((0, 3, 5, 6), F32))],
    "F.avg_pool1d": [("empty batch", lambda L, x: F_(L).avg_pool1d(x, 2), ((0, 3, 7), F32))],
    "F.lp_pool2d": [("empty batch", lambda L, x: F_(L).lp_pool2d(x, 2, 2), ((0, 3, 5, 6), F32))],
    "F.lp_pool1d": [("empty batch", lambda L, x: F_(L).lp_pool1d(x, 2, 2), ((0, 3, 7), F32))],
    "F.adaptive_avg_pool2d": [("empty batch", lambda L, x: F_(L).adaptive_avg_pool2d(x, 3), ((0, 3, 5, 6), F32))],
    "F.adaptive_avg_pool1d": [("empty batch", lambda L, x: F_(L).adaptive_avg_pool1d(x, 3), ((0, 3, 7), F32))],
    "F.adaptive_max_pool1d": [("empty batch", lambda L, x: F_(L).adaptive_max_pool1d(x, 3), ((0, 3, 7), F32))],
    "F.adaptive_max_pool2d": [("empty batch", lambda L, x: F_(L).adaptive_max_pool2d(x, 3), ((0, 3, 5, 6), F32))],
}
for _op in OPS:
    _op.empty = _EMPTY[_op.name]
