"""Op table: nn.functional's normalizations (npgrad/nn/_functional/normalization.py): batch_norm (training
statistics and running statistics), group_norm, instance_norm, layer_norm, rms_norm and normalize.

tests/nn/test_functional_parity.py runs the samples against PyTorch (float32 and float64, outputs and input
gradients) and finite differences; the second-order rows run in tests/autograd/test_double_backward.py, the
float16 forms in the float16 suite and the ``special_fuzz`` forms in tests/reliability/test_special_values.py.
"""
import numpy as np

from _inputs import normal
from _record import ROW, OpInfo, Sample, second
from oracle import In


def F_(lib):
    return lib.nn.functional


def _row(name, fn, inputs):
    # fd_tol: the finite-difference tolerance these rows had in tests/nn/test_functional_parity.py
    return Sample(name, fn, inputs, checks=ROW, fd_tol=1e-5)


X4 = normal(2, 3, 5, 6)
A = normal(4, 5)
_R = np.random.default_rng(4)
RM, RV = _R.standard_normal(3), np.abs(_R.standard_normal(3)) + 0.5  # running statistics for evaluation mode

OPS = [
    OpInfo("F.layer_norm", "norm", lambda lib, x: F_(lib).layer_norm(x, x.shape[-1:]),
           samples=[_row("layer_norm", lambda lib, x, w, b: F_(lib).layer_norm(x, (5, 6), w, b, eps=1e-3),
                         [X4, normal(5, 6), normal(5, 6)]),
                    second("layer_norm", lambda lib, x, w, b: F_(lib).layer_norm(x, (3,), w, b),
                           [In((2, 3)), In((3,)), In((3,))])],
           float16=[("F.layer_norm", lambda L, x, y: F_(L).layer_norm(x, (4,)))],
           # (without +-1e30: tests/reliability/test_special_values.py says why)
           special_fuzz=[("layer_norm", lambda L, x: F_(L).layer_norm(x, x.shape[-1:]))]),
    OpInfo("F.group_norm", "norm", lambda lib, x: F_(lib).group_norm(x, 3),
           samples=[_row("group_norm", lambda lib, x, w, b: F_(lib).group_norm(x, 3, w, b),
                         [normal(2, 6, 4), normal(6), normal(6)])]),
    OpInfo("F.rms_norm", "norm", lambda lib, x: F_(lib).rms_norm(x, x.shape[-1:]),
           samples=[_row("rms_norm", lambda lib, x, w: F_(lib).rms_norm(x, (6,), w, eps=1e-5), [X4, normal(6)]),
                    _row("rms_norm_default_eps", lambda lib, x: F_(lib).rms_norm(x, (5, 6)), [X4])]),
    OpInfo("F.batch_norm", "norm", lambda lib, x: F_(lib).batch_norm(x, None, None, training=True),
           samples=[_row("batch_norm_train",
                         lambda lib, x, w, b: F_(lib).batch_norm(x, None, None, w, b, training=True),
                         [X4, normal(3), normal(3)]),
                    _row("batch_norm_eval", lambda lib, x, w, b: F_(lib).batch_norm(
                        x, lib.tensor(RM).to(x.dtype), lib.tensor(RV).to(x.dtype), w, b, False),
                        [X4, normal(3), normal(3)]),
                    second("batch_norm", lambda lib, x, w, b: F_(lib).batch_norm(x, None, None, w, b, training=True),
                           [In((4, 3)), In((3,)), In((3,))])]),
    OpInfo("F.instance_norm", "norm", lambda lib, x: F_(lib).instance_norm(x),
           samples=[_row("instance_norm", lambda lib, x: F_(lib).instance_norm(x), [X4])]),
    OpInfo("F.normalize", "norm", lambda lib, x: F_(lib).normalize(x, dim=1),
           samples=[_row("normalize", lambda lib, x: F_(lib).normalize(x, dim=1), [A]),
                    _row("normalize_p1", lambda lib, x: F_(lib).normalize(x, p=1.0, dim=0), [A]),
                    second("normalize", lambda lib, x: F_(lib).normalize(x, dim=1), [In((2, 3))])],
           float16=[("F.normalize", lambda L, x, y: F_(L).normalize(x, dim=1))],
           special_fuzz=[("normalize", lambda L, x: F_(L).normalize(x, dim=-1))]),
]

# Empty batches and an empty normalized dimension (tests/reliability/test_empty_tensors.py)
F32 = "float32"
_EMPTY = {
    "F.layer_norm": [("empty batch", lambda L, x: F_(L).layer_norm(x, (5,)), ((0, 5), F32))],
    "F.group_norm": [("empty batch", lambda L, x: F_(L).group_norm(x, 3), ((0, 6, 4), F32))],
    "F.rms_norm": [("empty batch", lambda L, x: F_(L).rms_norm(x, (5,)), ((0, 5), F32))],
    "F.batch_norm": [("empty batch", lambda L, x: F_(L).batch_norm(x, None, None, training=True), ((0, 3), F32)),
                     ("empty batch, running statistics", lambda L, x, m: F_(L).batch_norm(x, m, m + 1),
                      ((0, 3), F32), ((3,), F32, False))],
    "F.instance_norm": [("empty batch", lambda L, x: F_(L).instance_norm(x), ((0, 3, 4), F32))],
    "F.normalize": [("empty batch", lambda L, x: F_(L).normalize(x, dim=1), ((0, 5), F32)),
                    ("empty normalized dim", lambda L, x: F_(L).normalize(x, dim=1), ((3, 0), F32))],
}
for _op in OPS:
    _op.empty = _EMPTY[_op.name]
