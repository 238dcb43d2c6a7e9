"""Op table: nn.functional's linear maps and convolutions (npgrad/nn/_functional): linear, bilinear, conv1d/conv2d
(stride, padding, 'same', groups, dilation), conv_transpose1d/2d and the patch maps unfold/fold.

tests/nn/test_functional_parity.py runs the samples against PyTorch (float32 and float64, outputs and input
gradients) and finite differences; the second-order rows run in tests/autograd/test_double_backward.py, the
float16 forms in the float16 suite.
"""
from _inputs import normal
from _record import ROW, OpInfo, Sample, second
from oracle import In


def F_(lib):
    return lib.nn.functional


def _row(name, fn, inputs):
    # fd_tol: the finite-difference tolerance these rows had in tests/nn/test_functional_parity.py
    return Sample(name, fn, inputs, checks=ROW, fd_tol=1e-5)


X4 = normal(2, 3, 5, 6)

OPS = [
    OpInfo("F.linear", "conv", lambda lib, x, w, b: F_(lib).linear(x, w, b),
           samples=[_row("linear", lambda lib, x, w, b: F_(lib).linear(x, w, b),
                         [normal(2, 3, 4), normal(5, 4), normal(5)]),
                    _row("linear_nobias", lambda lib, x, w: F_(lib).linear(x, w), [normal(3, 4), normal(5, 4)]),
                    second("linear", lambda lib, x, w, b: F_(lib).linear(x, w, b).tanh(),
                           [In((2, 3)), In((4, 3)), In((4,))])],
           float16=[("F.linear", lambda L, x, y: F_(L).linear(x, y))]),
    OpInfo("F.bilinear", "conv", lambda lib, a, b, w, c: F_(lib).bilinear(a, b, w, c),
           samples=[_row("bilinear", lambda lib, a, b, w, c: F_(lib).bilinear(a, b, w, c),
                         [normal(3, 2), normal(3, 4), normal(5, 2, 4), normal(5)])]),
    OpInfo("F.conv2d", "conv", lambda lib, x, w, b: F_(lib).conv2d(x, w, b),
           samples=[_row("conv2d", lambda lib, x, w, b: F_(lib).conv2d(x, w, b, stride=2, padding=1),
                         [X4, normal(4, 3, 3, 3), normal(4)]),
                    _row("conv2d_groups_dil", lambda lib, x, w: F_(lib).conv2d(x, w, None, 1, (2, 1), (2, 1), 3),
                         [X4, normal(6, 1, 2, 3)]),
                    _row("conv2d_same", lambda lib, x, w: F_(lib).conv2d(x, w, padding="same"),
                         [X4, normal(2, 3, 2, 2)]),
                    second("conv2d", lambda lib, x, w: F_(lib).conv2d(x, w, padding=1),
                           [In((1, 2, 4, 4)), In((3, 2, 3, 3))])]),
    OpInfo("F.conv1d", "conv", lambda lib, x, w, b: F_(lib).conv1d(x, w, b),
           samples=[_row("conv1d", lambda lib, x, w, b: F_(lib).conv1d(x, w, b, padding=1),
                         [normal(2, 3, 7), normal(4, 3, 3), normal(4)])],
           float16=[("F.conv1d", lambda L, x, y: F_(L).conv1d(x.unsqueeze(0), y.reshape(2, 3, 2)))]),
    OpInfo("F.conv_transpose2d", "conv", lambda lib, x, w, b: F_(lib).conv_transpose2d(x, w, b),
           samples=[_row("conv_transpose2d", lambda lib, x, w, b: F_(lib).conv_transpose2d(x, w, b, 2, 1, 1),
                         [normal(2, 3, 4, 4), normal(3, 2, 3, 3), normal(2)])]),
    OpInfo("F.conv_transpose1d", "conv", lambda lib, x, w: F_(lib).conv_transpose1d(x, w),
           samples=[_row("conv_transpose1d", lambda lib, x, w: F_(lib).conv_transpose1d(x, w, None, 3, 0, 2),
                         [normal(2, 3, 4), normal(3, 2, 3)])]),
    OpInfo("F.unfold", "conv", lambda lib, x: F_(lib).unfold(x, 2),
           samples=[_row("unfold", lambda lib, x: F_(lib).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                         [X4])]),
    OpInfo("F.fold", "conv", lambda lib, x: F_(lib).fold(x, (5, 6), 2),
           samples=[_row("fold", lambda lib, x: F_(lib).fold(x, (5, 6), 2, padding=1, stride=(1, 2)),
                         [normal(2, 12, 24)])]),
]

# Empty batches and zero-size reductions (tests/reliability/test_empty_tensors.py)
F32 = "float32"
_EMPTY = {
    "F.linear": [("empty batch", lambda L, x, w: F_(L).linear(x, w), ((0, 4), F32), ((5, 4), F32)),
                 ("no input features", lambda L, x, w, b: F_(L).linear(x, w, b), ((3, 0), F32), ((5, 0), F32),
                  ((5,), F32))],
    "F.bilinear": [("empty batch", lambda L, a, b, w: F_(L).bilinear(a, b, w), ((0, 2), F32), ((0, 4), F32),
                    ((5, 2, 4), F32))],
    "F.conv2d": [("empty batch", lambda L, x, w: F_(L).conv2d(x, w), ((0, 3, 5, 6), F32), ((4, 3, 3, 3), F32))],
    "F.conv1d": [("empty batch", lambda L, x, w: F_(L).conv1d(x, w), ((0, 3, 7), F32), ((4, 3, 3), F32))],
    "F.conv_transpose2d": [("empty batch", lambda L, x, w: F_(L).conv_transpose2d(x, w), ((0, 3, 4, 4), F32),
                            ((3, 2, 3, 3), F32))],
    "F.conv_transpose1d": [("empty batch", lambda L, x, w: F_(L).conv_transpose1d(x, w), ((0, 3, 4), F32),
                            ((3, 2, 3), F32))],
    "F.unfold": [("empty batch", lambda L, x: F_(L).unfold(x, 2), ((0, 3, 5, 6), F32))],
    "F.fold": [("empty batch", lambda L, x: F_(L).fold(x, (5, 6), 2), ((0, 12, 20), F32))],
}
for _op in OPS:
    _op.empty = _EMPTY[_op.name]
