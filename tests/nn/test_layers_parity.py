"""Every layer against PyTorch: same weights (copied from the torch layer), same input, same upstream
gradient; outputs, input gradients, parameter gradients and buffers compared in float32 and float64.
Without torch, the input gradients are checked against finite differences in float64."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH
from nn._parity import check_module, finite_difference_check

R = np.random.default_rng(0)


def rnd(*shape, scale=1.0):
    return R.standard_normal(shape) * scale


def ints(high, *shape):
    return R.integers(0, high, shape)


# (id, make(lib) -> module, inputs, train mode)
CASES = [
    ("Linear", lambda l: l.nn.Linear(4, 3), [rnd(5, 4)], True),
    ("Linear_3d_nobias", lambda l: l.nn.Linear(4, 3, bias=False), [rnd(2, 3, 4)], True),
    ("Linear_1d_input", lambda l: l.nn.Linear(4, 3), [rnd(4)], True),
    ("Bilinear", lambda l: l.nn.Bilinear(3, 4, 2), [rnd(5, 3), rnd(5, 4)], True),
    ("Identity", lambda l: l.nn.Identity(3, foo=1), [rnd(2, 3)], True),
    ("Conv1d", lambda l: l.nn.Conv1d(3, 4, 3), [rnd(2, 3, 9)], True),
    ("Conv1d_options", lambda l: l.nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2), [rnd(2, 4, 11)], True),
    ("Conv1d_same_even", lambda l: l.nn.Conv1d(3, 2, 4, padding="same"), [rnd(2, 3, 7)], True),
    ("Conv1d_reflect", lambda l: l.nn.Conv1d(3, 2, 3, padding=2, padding_mode="reflect"), [rnd(2, 3, 7)], True),
    ("Conv1d_unbatched", lambda l: l.nn.Conv1d(3, 2, 3, bias=False), [rnd(3, 7)], True),
    ("Conv2d", lambda l: l.nn.Conv2d(3, 4, 3), [rnd(2, 3, 6, 7)], True),
    ("Conv2d_options", lambda l: l.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
     [rnd(2, 4, 7, 6)], True),
    ("Conv2d_same", lambda l: l.nn.Conv2d(3, 4, (4, 3), padding="same", dilation=(1, 2)), [rnd(2, 3, 6, 7)], True),
    ("Conv2d_valid_nobias", lambda l: l.nn.Conv2d(3, 4, 2, padding="valid", bias=False), [rnd(2, 3, 5, 5)], True),
    ("Conv2d_depthwise", lambda l: l.nn.Conv2d(4, 8, 3, padding=1, groups=4), [rnd(2, 4, 5, 5)], True),
    ("Conv2d_1x1", lambda l: l.nn.Conv2d(4, 3, 1), [rnd(2, 4, 5, 5)], True),
    ("Conv2d_reflect", lambda l: l.nn.Conv2d(3, 2, 3, padding=1, padding_mode="reflect"), [rnd(2, 3, 5, 6)], True),
    ("Conv2d_replicate", lambda l: l.nn.Conv2d(3, 2, 3, padding=(2, 1), padding_mode="replicate"),
     [rnd(2, 3, 5, 6)], True),
    ("Conv2d_circular", lambda l: l.nn.Conv2d(3, 2, 3, padding=1, padding_mode="circular"), [rnd(2, 3, 5, 6)], True),
    ("Conv2d_unbatched", lambda l: l.nn.Conv2d(3, 2, 3, stride=2), [rnd(3, 7, 7)], True),
    ("ConvTranspose2d", lambda l: l.nn.ConvTranspose2d(3, 4, 3), [rnd(2, 3, 4, 5)], True),
    ("ConvTranspose2d_options", lambda l: l.nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0),
                                                               output_padding=(1, 2), groups=2, dilation=(1, 2)),
     [rnd(2, 4, 4, 3)], True),
    ("ConvTranspose2d_dilation_op", lambda l: l.nn.ConvTranspose2d(2, 3, 3, stride=1, output_padding=1, dilation=2),
     [rnd(2, 2, 4, 4)], True),
    ("ConvTranspose2d_unbatched", lambda l: l.nn.ConvTranspose2d(2, 3, 2, stride=2, bias=False), [rnd(2, 3, 3)], True),
    ("ConvTranspose1d", lambda l: l.nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2),
     [rnd(2, 4, 5)], True),
    ("MaxPool2d", lambda l: l.nn.MaxPool2d(2), [rnd(2, 3, 6, 8)], True),
    ("MaxPool2d_options", lambda l: l.nn.MaxPool2d((3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 1)),
     [rnd(2, 3, 7, 6)], True),
    ("MaxPool2d_ceil", lambda l: l.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [rnd(2, 3, 8, 7)], True),
    ("MaxPool2d_indices", lambda l: l.nn.MaxPool2d(3, stride=2, padding=1, return_indices=True), [rnd(2, 3, 7, 7)],
     True),
    ("MaxPool2d_unbatched", lambda l: l.nn.MaxPool2d(2, ceil_mode=True), [rnd(3, 5, 5)], True),
    ("MaxPool1d", lambda l: l.nn.MaxPool1d(3, stride=2, padding=1, dilation=1, return_indices=True), [rnd(2, 3, 9)],
     True),
    ("AvgPool2d", lambda l: l.nn.AvgPool2d(2), [rnd(2, 3, 6, 8)], True),
    ("AvgPool2d_pad_ceil", lambda l: l.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True), [rnd(2, 3, 8, 7)], True),
    ("AvgPool2d_exclude_pad", lambda l: l.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True,
                                                       count_include_pad=False), [rnd(2, 3, 8, 7)], True),
    ("AvgPool2d_divisor", lambda l: l.nn.AvgPool2d((2, 3), stride=(1, 2), divisor_override=4), [rnd(2, 3, 5, 7)], True),
    ("AvgPool1d", lambda l: l.nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), [rnd(2, 3, 9)], True),
    ("AdaptiveAvgPool2d_1", lambda l: l.nn.AdaptiveAvgPool2d(1), [rnd(2, 3, 5, 6)], True),
    ("AdaptiveAvgPool2d_uneven", lambda l: l.nn.AdaptiveAvgPool2d((3, 4)), [rnd(2, 3, 7, 9)], True),
    ("AdaptiveAvgPool2d_divisible", lambda l: l.nn.AdaptiveAvgPool2d((2, 3)), [rnd(2, 3, 4, 9)], True),
    ("AdaptiveAvgPool2d_none", lambda l: l.nn.AdaptiveAvgPool2d((None, 2)), [rnd(2, 3, 4, 5)], True),
    ("AdaptiveAvgPool1d", lambda l: l.nn.AdaptiveAvgPool1d(4), [rnd(2, 3, 7)], True),
    ("AdaptiveMaxPool2d", lambda l: l.nn.AdaptiveMaxPool2d((3, 4)), [rnd(2, 3, 7, 9)], True),
    ("AdaptiveMaxPool2d_indices", lambda l: l.nn.AdaptiveMaxPool2d(2, return_indices=True), [rnd(2, 3, 4, 6)], True),
    ("BatchNorm1d_2d", lambda l: l.nn.BatchNorm1d(3), [rnd(6, 3)], True),
    ("BatchNorm1d_3d", lambda l: l.nn.BatchNorm1d(3, momentum=None), [rnd(4, 3, 5)], True),
    ("BatchNorm2d", lambda l: l.nn.BatchNorm2d(3, momentum=0.3), [rnd(2, 3, 4, 5)], True),
    ("BatchNorm2d_noaffine", lambda l: l.nn.BatchNorm2d(3, affine=False), [rnd(2, 3, 4, 5)], True),
    ("BatchNorm2d_nobias", lambda l: l.nn.BatchNorm2d(3, bias=False), [rnd(2, 3, 4, 5)], True),
    ("BatchNorm2d_untracked", lambda l: l.nn.BatchNorm2d(3, track_running_stats=False), [rnd(2, 3, 4, 5)], True),
    ("BatchNorm2d_eval", lambda l: l.nn.BatchNorm2d(3), [rnd(2, 3, 4, 5)], False),
    ("BatchNorm2d_untracked_eval", lambda l: l.nn.BatchNorm2d(3, track_running_stats=False), [rnd(2, 3, 4, 5)], False),
    ("LayerNorm", lambda l: l.nn.LayerNorm(5), [rnd(2, 3, 5)], True),
    ("LayerNorm_2d_shape", lambda l: l.nn.LayerNorm((3, 5), eps=1e-3), [rnd(2, 3, 5)], True),
    ("LayerNorm_noaffine", lambda l: l.nn.LayerNorm(5, elementwise_affine=False), [rnd(4, 5)], True),
    ("LayerNorm_nobias", lambda l: l.nn.LayerNorm(5, bias=False), [rnd(4, 5)], True),
    ("GroupNorm", lambda l: l.nn.GroupNorm(2, 4), [rnd(2, 4, 3, 3)], True),
    ("GroupNorm_noaffine", lambda l: l.nn.GroupNorm(1, 4, affine=False), [rnd(2, 4, 5)], True),
    ("RMSNorm", lambda l: l.nn.RMSNorm(5), [rnd(2, 3, 5)], True),
    ("RMSNorm_eps_2d", lambda l: l.nn.RMSNorm((3, 5), eps=1e-4), [rnd(2, 3, 5)], True),
    ("RMSNorm_noaffine", lambda l: l.nn.RMSNorm(5, elementwise_affine=False), [rnd(2, 5)], True),
    ("InstanceNorm2d", lambda l: l.nn.InstanceNorm2d(3, affine=True), [rnd(2, 3, 4, 4)], True),
    ("Dropout_eval", lambda l: l.nn.Dropout(0.4), [rnd(3, 4)], False),
    ("Dropout2d_eval", lambda l: l.nn.Dropout2d(0.4), [rnd(2, 3, 4, 4)], False),
    ("Embedding", lambda l: l.nn.Embedding(10, 4), [ints(10, 3, 5)], True),
    ("Embedding_padding", lambda l: l.nn.Embedding(10, 4, padding_idx=2), [np.array([[2, 3, 2], [5, 2, 9]])], True),
    ("Embedding_neg_padding", lambda l: l.nn.Embedding(6, 3, padding_idx=-1), [np.array([5, 0, 5, 1])], True),
    ("Embedding_freq", lambda l: l.nn.Embedding(10, 4, scale_grad_by_freq=True), [np.array([[1, 1, 3], [1, 3, 0]])],
     True),
    ("Flatten", lambda l: l.nn.Flatten(), [rnd(2, 3, 4)], True),
    ("Flatten_range", lambda l: l.nn.Flatten(0, 1), [rnd(2, 3, 4)], True),
    ("Unflatten", lambda l: l.nn.Unflatten(1, (2, 3)), [rnd(2, 6, 4)], True),
    ("PixelShuffle", lambda l: l.nn.PixelShuffle(2), [rnd(2, 8, 3, 3)], True),
    ("Upsample_bilinear", lambda l: l.nn.Upsample(scale_factor=2, mode="bilinear"), [rnd(1, 2, 3, 4)], True),
    ("ZeroPad2d", lambda l: l.nn.ZeroPad2d((1, 2, 0, 1)), [rnd(1, 2, 3, 4)], True),
    ("ReflectionPad1d", lambda l: l.nn.ReflectionPad1d(2), [rnd(1, 2, 5)], True),
    ("ReplicationPad2d", lambda l: l.nn.ReplicationPad2d((1, 0, 2, 1)), [rnd(1, 2, 3, 4)], True),
    ("CosineSimilarity", lambda l: l.nn.CosineSimilarity(dim=1), [rnd(3, 4), rnd(3, 4)], True),
    ("PairwiseDistance", lambda l: l.nn.PairwiseDistance(p=1.5), [rnd(3, 4), rnd(3, 4)], True),
    ("PReLU_channels", lambda l: l.nn.PReLU(3), [rnd(2, 3, 4)], True),
]

ACTIVATIONS = ["ReLU()", "LeakyReLU(0.2)", "GELU()", "GELU(approximate='tanh')", "SiLU()", "ELU(0.7)", "Sigmoid()",
               "Tanh()", "Softmax(dim=1)", "LogSoftmax(dim=0)", "Softmin(dim=1)", "Softplus()",
               "Softplus(beta=2.0, threshold=3.0)", "Hardtanh(-0.5, 0.7)", "ReLU6()", "Mish()", "Softsign()",
               "SELU()", "CELU(0.5)", "LogSigmoid()", "Tanhshrink()", "Softshrink(0.5)", "Hardshrink(0.5)",
               "GLU(1)", "PReLU()", "Threshold(0.1, 2.0)"]
# relu6/hardtanh and friends need inputs beyond their kinks; a scale of 4 covers them.
CASES += [(a, (lambda s: lambda l: eval("l.nn." + s))(a), [rnd(3, 6, scale=4.0)], True) for a in ACTIVATIONS]
# PyTorch scales Hardsigmoid/Hardswish gradients by 1/6 rounded to float32, even for float64 tensors.
ROUGH = [("Hardsigmoid()", "Hardsigmoid"), ("Hardswish()", "Hardswish")]
CASES += [(n, (lambda s: lambda l: eval("l.nn." + s))(a), [rnd(3, 6, scale=4.0)], True) for a, n in ROUGH]
LOOSE_F64 = {"Hardsigmoid", "Hardswish"}

if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    @pytest.mark.parametrize("name,make,inputs,train", CASES, ids=[c[0] for c in CASES])
    def test_layer_matches_torch(name, make, inputs, train, dtype):
        tol = dict(rtol=1e-7, atol=1e-9) if name in LOOSE_F64 and dtype == np.float64 else None
        check_module(make, inputs, dtype=dtype, train=train, tol=tol, what=name)


# Without torch: the input gradient of each layer (npgrad's own default init) against finite differences.
# Layers with integer inputs (Embedding) have no input gradient; their weight gradient is checked in test_sparse.
FD_CASES = [c for c in CASES if c[2][0].dtype.kind == "f"]


@pytest.mark.parametrize("name,make,inputs,train", FD_CASES, ids=[c[0] for c in FD_CASES])
def test_layer_finite_differences(name, make, inputs, train):
    npgrad.manual_seed(0)
    mod = make(npgrad).double().train(train)
    finite_difference_check(lambda lib, *xs: mod(*xs), inputs, tol=1e-5, what=name)
