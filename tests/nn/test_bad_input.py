"""Bad input gets PyTorch's error (type and message) naming the shapes, never a NumPy traceback."""
import pytest

import npgrad
from oracle import HAS_TORCH, torch

# fn(lib) -> raises; the expected (type, message) is PyTorch's.
CASES = [
    ("linear_features", lambda l: l.nn.Linear(5, 2)(l.randn(4, 3)),
     RuntimeError, "mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)"),
    ("linear_features_3d", lambda l: l.nn.Linear(5, 2)(l.randn(2, 4, 3)),
     RuntimeError, "mat1 and mat2 shapes cannot be multiplied (8x3 and 5x2)"),
    ("linear_features_1d", lambda l: l.nn.Linear(5, 2)(l.randn(3)),
     RuntimeError, "mat1 and mat2 shapes cannot be multiplied (1x3 and 5x2)"),
    ("linear_dtype", lambda l: l.nn.Linear(5, 2)(l.randn(4, 5, dtype=l.float64)),
     RuntimeError, "mat1 and mat2 must have the same dtype, but got Double and Float"),
    ("conv2d_channels", lambda l: l.nn.Conv2d(3, 8, 3)(l.randn(2, 4, 8, 8)), RuntimeError,
     "Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 4, 8, 8] to have 3 channels, but got 4 channels "
     "instead"),
    ("conv2d_channels_unbatched", lambda l: l.nn.Conv2d(3, 8, 3)(l.randn(4, 8, 8)), RuntimeError,
     "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 8, 8] to have 3 channels, but got 4 channels "
     "instead"),
    ("conv2d_groups", lambda l: l.nn.functional.conv2d(l.randn(2, 6, 8, 8), l.randn(8, 2, 3, 3), groups=2),
     RuntimeError, "Given groups=2, weight of size [8, 2, 3, 3], expected input[2, 6, 8, 8] to have 4 channels, but "
                   "got 6 channels instead"),
    ("conv2d_kernel_too_big", lambda l: l.nn.Conv2d(3, 8, 3)(l.randn(2, 3, 2, 2)), RuntimeError,
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual "
     "input size"),
    ("conv2d_dims", lambda l: l.nn.Conv2d(3, 8, 3)(l.randn(8, 8)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [8, 8]"),
    ("conv2d_dtype", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8, dtype=l.float64), l.randn(8, 4, 3, 3)),
     RuntimeError, "expected scalar type Double but found Float"),
    ("conv2d_bias_dtype", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8, dtype=l.float64), l.randn(8, 4, 3, 3),
                                                           l.randn(8)),
     RuntimeError, "Input type (double) and bias type (float) should be the same"),
    ("conv2d_bias_size", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8), l.randn(8, 4, 3, 3), l.randn(4)),
     RuntimeError, "Given weight of size [8, 4, 3, 3], expected bias to be 1-dimensional with 8 elements, but got bias "
                   "of size [4] instead"),
    ("conv2d_weight_groups", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8), l.randn(7, 2, 3, 3), groups=2),
     RuntimeError, "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
                   "[[7, 2, 3, 3]] instead"),
    ("conv2d_stride", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8), l.randn(8, 4, 3, 3), stride=0),
     RuntimeError, "non-positive stride is not supported"),
    ("conv2d_padding", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8), l.randn(8, 4, 3, 3), padding=-1),
     RuntimeError, "negative padding is not supported"),
    ("conv2d_same_strided", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8), l.randn(8, 4, 3, 3), padding="same",
                                                             stride=2),
     RuntimeError, "padding='same' is not supported for strided convolutions"),
    ("conv2d_padding_string", lambda l: l.nn.functional.conv2d(l.randn(2, 4, 8, 8), l.randn(8, 4, 3, 3), padding="x"),
     RuntimeError, "Invalid padding string: 'x'"),
    ("conv1d_channels", lambda l: l.nn.Conv1d(3, 8, 3)(l.randn(2, 4, 8)), RuntimeError,
     "Given groups=1, weight of size [8, 3, 3], expected input[2, 4, 8] to have 3 channels, but got 4 channels "
     "instead"),
    ("conv1d_dims", lambda l: l.nn.Conv1d(4, 8, 3)(l.randn(2, 4, 8, 8)), RuntimeError,
     "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [2, 4, 8, 8]"),
    ("conv1d_stride_len", lambda l: l.nn.functional.conv1d(l.randn(2, 4, 8), l.randn(8, 4, 3), stride=(1, 1)),
     RuntimeError, "expected stride to be a single integer value or a list of 1 values to match the convolution "
                   "dimensions, but got stride=[1, 1]"),
    ("conv_transpose_channels", lambda l: l.nn.functional.conv_transpose2d(l.randn(2, 3, 5, 5), l.randn(4, 8, 3, 3)),
     RuntimeError, "Given transposed=1, weight of size [4, 8, 3, 3], expected input[2, 3, 5, 5] to have 4 channels, "
                   "but got 3 channels instead"),
    ("conv_transpose_output_padding", lambda l: l.nn.functional.conv_transpose2d(
        l.randn(2, 4, 5, 5), l.randn(4, 8, 3, 3), stride=2, output_padding=2), RuntimeError,
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 "
     "output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1"),
    ("max_pool_pad", lambda l: l.nn.functional.max_pool2d(l.randn(2, 4, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    ("max_pool_too_small", lambda l: l.nn.functional.max_pool2d(l.randn(2, 4, 8, 8), 9), RuntimeError,
     "Given input size: (4x8x8). Calculated output size: (4x0x0). Output size is too small"),
    ("max_pool_dims", lambda l: l.nn.functional.max_pool2d(l.randn(8, 8), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    ("avg_pool_pad", lambda l: l.nn.functional.avg_pool2d(l.randn(2, 4, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    ("embedding_index", lambda l: l.nn.Embedding(5, 2)(l.tensor([1, 5])), IndexError, "index out of range in self"),
    ("embedding_dtype", lambda l: l.nn.Embedding(5, 2)(l.tensor([1.0, 2.0])), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
     "torch.FloatTensor instead (while checking arguments for embedding)"),
    ("dropout_p", lambda l: l.nn.Dropout(1.5), ValueError, "dropout probability has to be between 0 and 1, but got 1.5"),
    ("functional_dropout_p", lambda l: l.nn.functional.dropout(l.randn(2), -0.1), ValueError,
     "dropout probability has to be between 0 and 1, but got -0.1"),
    ("one_hot_classes", lambda l: l.nn.functional.one_hot(l.tensor([0, 3]), 3), RuntimeError,
     "Class values must be smaller than num_classes."),
    ("one_hot_negative", lambda l: l.nn.functional.one_hot(l.tensor([0, -1])), RuntimeError,
     "Class values must be non-negative."),
    ("pad_odd", lambda l: l.nn.functional.pad(l.randn(2, 3), (1, 2, 3)), RuntimeError,
     "Padding length must be divisible by 2"),
    ("pad_too_long", lambda l: l.nn.functional.pad(l.randn(2), (1, 1, 1, 1)), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got padding length 4 and input "
     "of dimension 1"),
    ("interpolate_both", lambda l: l.nn.functional.interpolate(l.randn(1, 1, 4, 4), size=2, scale_factor=2.0),
     ValueError, "only one of size or scale_factor should be defined"),
    ("interpolate_align_nearest", lambda l: l.nn.functional.interpolate(l.randn(1, 1, 4, 4), size=2,
                                                                        align_corners=True),
     ValueError, "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                 "trilinear"),
    ("softmax_int", lambda l: l.nn.functional.softmax(l.tensor([1, 2]), 0), RuntimeError,
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    ("group_norm_groups", lambda l: l.nn.functional.group_norm(l.randn(2, 6, 4), 4), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 4] and "
     "num_groups=4"),
    ("bce_range", lambda l: l.nn.functional.binary_cross_entropy(l.tensor([1.5]), l.tensor([1.0])), RuntimeError,
     "all elements of input should be between 0 and 1"),
    ("mha_divisible", lambda l: l.nn.MultiheadAttention(7, 2), AssertionError, "embed_dim must be divisible by num_heads"),
    ("groups_module", lambda l: l.nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    ("padding_mode", lambda l: l.nn.Conv2d(3, 4, 3, padding_mode="foo"), ValueError, "padding_mode must be one of"),
    # Floating-point-only activations refuse integer and bool input (no silent cast to float)
    ("mish_long", lambda l: l.nn.functional.mish(l.tensor([1, 2])), NotImplementedError,
     "\"mish_cpu\" not implemented for 'Long'"),
    ("silu_bool", lambda l: l.nn.functional.silu(l.tensor([True])), NotImplementedError,
     "\"silu_cpu\" not implemented for 'Bool'"),
    ("gelu_int", lambda l: l.nn.functional.gelu(l.tensor([1, 2], dtype=l.int32)), NotImplementedError,
     "\"GeluKernelImpl\" not implemented for 'Int'"),
    ("selu_long", lambda l: l.nn.functional.selu(l.tensor([1, 2])), NotImplementedError,
     "\"elu_cpu\" not implemented for 'Long'"),
    ("logsigmoid_byte", lambda l: l.nn.functional.logsigmoid(l.tensor([1, 2], dtype=l.uint8)), NotImplementedError,
     "\"log_sigmoid_cpu\" not implemented for 'Byte'"),
    ("softshrink_long", lambda l: l.nn.functional.softshrink(l.tensor([1, 2])), NotImplementedError,
     "\"softshrink_check\" not implemented for 'Long'"),
    ("hardswish_long", lambda l: l.nn.functional.hardswish(l.tensor([1, 2])), NotImplementedError,
     "\"hardswish_cpu\" not implemented for 'Long'"),
    ("hardtanh_bool", lambda l: l.nn.functional.hardtanh(l.tensor([True])), RuntimeError,
     "Bool inputs not supported for hardtanh"),
    ("hardtanh_unsigned_negative", lambda l: l.nn.functional.hardtanh(l.tensor([1, 2], dtype=l.uint8)), RuntimeError,
     "cannot do hardtanh on an unsigned type with negative limits"),
]


@pytest.mark.parametrize("name,fn,exc,msg", CASES, ids=[c[0] for c in CASES])
def test_bad_input_error(name, fn, exc, msg):
    with pytest.raises(exc) as info:
        fn(npgrad)
    assert msg in str(info.value), f"{name}: {info.value!s}"


if HAS_TORCH:
    @pytest.mark.parametrize("name,fn,exc,msg", CASES, ids=[c[0] for c in CASES])
    def test_expected_messages_are_torchs(name, fn, exc, msg):
        # Guards the table above: each expected message is what PyTorch itself says.
        with pytest.raises(exc) as info:
            fn(torch)
        assert msg in str(info.value), f"{name}: torch says {info.value!s}"


def test_hardtanh_and_relu6_clip_integers_in_their_own_dtype():
    F = npgrad.nn.functional
    x = npgrad.tensor([-3, 0, 2, 9])
    for out, want in ((F.hardtanh(x), [-1, 0, 1, 1]), (F.relu6(x), [0, 0, 2, 6]),
                      (F.hardtanh(x, -0.5, 2.7), [0, 0, 2, 2])):  # bounds truncated to the integer type
        assert out.dtype == npgrad.int64 and out.tolist() == want
    if HAS_TORCH:
        t = torch.tensor([-3, 0, 2, 9])
        assert torch.nn.functional.hardtanh(t, -0.5, 2.7).tolist() == [0, 0, 2, 2]
        assert torch.nn.functional.relu6(t).tolist() == [0, 0, 2, 6]
