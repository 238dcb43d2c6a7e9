"""Op table: nn.functional's volumetric and pooling-family functions (npgrad/nn/_functional/conv.py, pooling.py,
unpooling.py, fractional.py, shuffle.py): conv3d, conv_transpose3d, max_pool3d (and the *_with_indices forms of
the max pools), avg_pool3d, lp_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d, max_unpool1d/2d/3d,
fractional_max_pool2d/3d and channel_shuffle.

tests/nn/test_volumetric_functional.py runs the samples against PyTorch (float32 and float64, outputs and the
gradients of every input that needs one), finite differences, PyTorch's double backward, and the expected
errors. Random normal inputs keep the max pools' windows free of ties, so their gradients are smooth there.
The fractional pools take ``_random_samples`` as an input (no gradient), which fixes their windows in both
libraries.
"""
import numpy as np

from oracle import In
from _record import DOUBLE_BACKWARD, PARITY, ROW2, OpInfo, Sample

VOLUMETRIC = "volumetric"


def F_(lib):
    return lib.nn.functional


def _normal(*shape):
    return In(shape, values=lambda rng: rng.standard_normal(shape))


def _uniform01(*shape):
    return In(shape, 0.0, 1.0, grad=False)


def _ints(*shape):
    return In(shape, -50, 50, dtype=np.int64, grad=False)


def _exact(name, fn, inputs):
    """Integer inputs: the values and dtype equal PyTorch's (no gradient to check)."""
    return Sample(name, fn, inputs, checks=frozenset({PARITY}))


def _s(name, fn, inputs, checks=ROW2, **kw):
    return Sample(name, fn, inputs, checks=checks, fd_tol=1e-5, **kw)


X5 = _normal(2, 4, 5, 6, 5)
X4 = _normal(4, 5, 6, 5)        # unbatched volume (C, D, H, W)


def _unpool(lib, x, n, **kw):
    F = F_(lib)
    v, i = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[n - 1](x, 2, return_indices=True)
    return (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[n - 1](v, i, 2, **kw)


def _unpool_strided(lib, x):
    F = F_(lib)
    v, i = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    return F.max_unpool2d(v, i, 3, 2, 1, output_size=x.shape[-2:])


def _raises(name, fn, exc, message):
    return (name, fn, exc, message)


_X = (2, 3, 4, 4, 4)


OPS = [
    OpInfo("F.conv3d", VOLUMETRIC, lambda lib, x, w, b: F_(lib).conv3d(x, w, b), samples=[
        _s("conv3d", None, [X5, _normal(3, 4, 2, 3, 2), _normal(3)]),
        _s("conv3d_stride_pad_dil_groups", lambda lib, x, w, b: F_(lib).conv3d(
            x, w, b, stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1), groups=2),
           [X5, _normal(6, 2, 2, 2, 3), _normal(6)]),
        _s("conv3d_same", lambda lib, x, w: F_(lib).conv3d(x, w, padding="same", dilation=(1, 2, 1)),
           [X5, _normal(2, 4, 3, 2, 3)]),
        _s("conv3d_depthwise", lambda lib, x, w: F_(lib).conv3d(x, w, padding=1, groups=4),
           [X5, _normal(8, 1, 3, 3, 3)]),
        _s("conv3d_unbatched", lambda lib, x, w: F_(lib).conv3d(x, w, stride=2), [X4, _normal(3, 4, 2, 2, 2)]),
        _exact("conv3d_int64", lambda lib, x, w: F_(lib).conv3d(x, w, padding=1), [_ints(2, 3, 3, 4, 3),
                                                                                  _ints(2, 3, 2, 2, 2)]),
        _exact("conv3d_int64_depthwise", lambda lib, x, w: F_(lib).conv3d(x, w, groups=3), [_ints(2, 3, 3, 4, 3),
                                                                                          _ints(3, 1, 2, 2, 2)]),
    ], raises=[
        _raises("conv3d_bool", lambda lib: F_(lib).conv3d(lib.ones(*_X, dtype=lib.bool), lib.ones(
            2, 3, 1, 2, 1, dtype=lib.bool)), NotImplementedError, "\"compute_columns3d\" not implemented for 'Bool'"),
        _raises("conv3d_bool_pointwise", lambda lib: F_(lib).conv3d(lib.ones(*_X, dtype=lib.bool), lib.ones(
            2, 3, 1, 1, 1, dtype=lib.bool)), NotImplementedError, "\"slow_conv3d_cpu\" not implemented for 'Bool'"),
        _raises("conv3d_channels", lambda lib: F_(lib).conv3d(lib.ones(*_X), lib.ones(2, 2, 1, 1, 1)), RuntimeError,
                "Given groups=1, weight of size [2, 2, 1, 1, 1], expected input[2, 3, 4, 4, 4] to have 2 channels, "
                "but got 3 channels instead"),
        _raises("conv3d_2d_input", lambda lib: F_(lib).conv3d(lib.ones(3, 4), lib.ones(2, 3, 1, 1, 1)), RuntimeError,
                "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [3, 4]"),
        _raises("conv3d_kernel_too_big", lambda lib: F_(lib).conv3d(lib.ones(*_X), lib.ones(2, 3, 5, 1, 1)),
                RuntimeError, "Calculated padded input size per channel: (4 x 4 x 4). Kernel size: (5 x 1 x 1). "
                "Kernel size can't be greater than actual input size"),
    ]),
    OpInfo("F.conv_transpose3d", VOLUMETRIC, lambda lib, x, w, b: F_(lib).conv_transpose3d(x, w, b), samples=[
        _s("conv_transpose3d", None, [X5, _normal(4, 3, 2, 3, 2), _normal(3)]),
        _s("conv_transpose3d_stride_opad", lambda lib, x, w, b: F_(lib).conv_transpose3d(
            x, w, b, stride=2, padding=(0, 1, 0), output_padding=(1, 0, 1)),
           [X5, _normal(4, 2, 2, 3, 2), _normal(2)]),
        _s("conv_transpose3d_groups_dilation", lambda lib, x, w: F_(lib).conv_transpose3d(
            x, w, stride=(1, 2, 1), groups=2, dilation=2), [X5, _normal(4, 2, 2, 2, 2)]),
        _s("conv_transpose3d_unbatched", lambda lib, x, w: F_(lib).conv_transpose3d(x, w),
           [X4, _normal(4, 2, 1, 2, 2)]),
        _exact("conv_transpose3d_int64", lambda lib, x, w: F_(lib).conv_transpose3d(x, w, stride=2),
               [_ints(2, 3, 2, 3, 2), _ints(3, 2, 2, 2, 2)]),
    ], raises=[
        _raises("conv_transpose3d_int32", lambda lib: F_(lib).conv_transpose3d(lib.ones(*_X, dtype=lib.int32), lib.ones(
            3, 2, 1, 1, 1, dtype=lib.int32)), NotImplementedError,
            "\"slow_conv_transpose3d_out_cpu\" not implemented for 'Int'"),
        _raises("conv_transpose3d_output_padding", lambda lib: F_(lib).conv_transpose3d(
            lib.ones(*_X), lib.ones(3, 2, 1, 1, 1), output_padding=2), RuntimeError,
            "output padding must be smaller than either stride or dilation, but got output_padding_depth: 2 "
            "output_padding_height: 2 output_padding_width: 2 stride_depth: 1 stride_height: 1 stride_width: 1 "
            "dilation_depth: 1 dilation_height: 1 dilation_width: 1"),
    ]),
    OpInfo("F.max_pool3d", VOLUMETRIC, lambda lib, x: F_(lib).max_pool3d(x, 2), samples=[
        _s("max_pool3d", None, [X5]),
        _s("max_pool3d_ceil_pad", lambda lib, x: F_(lib).max_pool3d(x, 3, 2, 1, ceil_mode=True), [X5]),
        _s("max_pool3d_dilation_indices", lambda lib, x: F_(lib).max_pool3d(x, 2, 1, 0, dilation=(2, 1, 2),
                                                                           return_indices=True), [X5]),
        _s("max_pool3d_unbatched", lambda lib, x: F_(lib).max_pool3d(x, (2, 1, 3), return_indices=True), [X4]),
        _exact("max_pool3d_int64_padded", lambda lib, x: F_(lib).max_pool3d(x, 3, 2, 1, return_indices=True),
               [_ints(2, 3, 4, 5, 4)]),
    ], raises=[
        _raises("max_pool3d_bool", lambda lib: F_(lib).max_pool3d(lib.ones(*_X, dtype=lib.bool), 2),
                NotImplementedError, "\"max_pool3d\" not implemented for 'Bool'"),
        _raises("max_pool3d_3d_input", lambda lib: F_(lib).max_pool3d(lib.ones(3, 4, 4), 2), RuntimeError,
                "non-empty 4D or 5D (batch mode) tensor expected for input"),
        _raises("max_pool3d_stride_zero", lambda lib: F_(lib).max_pool3d(lib.ones(*_X), 2, 0), RuntimeError,
                "stride should not be zero"),
        _raises("max_pool3d_pad", lambda lib: F_(lib).max_pool3d(lib.ones(*_X), 2, 1, 2), RuntimeError,
                "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
        _raises("max_pool3d_too_small", lambda lib: F_(lib).max_pool3d(lib.ones(*_X), 5), RuntimeError,
                "Given input size: (3x4x4x4). Calculated output size: (3x0x0x0). Output size is too small"),
        _raises("max_pool3d_dilation_zero", lambda lib: F_(lib).max_pool3d(lib.ones(*_X), 2, 2, 0, 0), RuntimeError,
                "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0"),
        _raises("max_pool3d_kernel_pair", lambda lib: F_(lib).max_pool3d(lib.ones(*_X), (2, 2)), RuntimeError,
                "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
        _raises("max_pool3d_empty_channels", lambda lib: F_(lib).max_pool3d(lib.ones(2, 0, 4, 4, 4), 2), RuntimeError,
                "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have positive "
                "length, but input has a shape of [2, 0, 4, 4, 4] and non-batch dimension 0 has length zero!"),
    ]),
    OpInfo("F.max_pool1d_with_indices", VOLUMETRIC, lambda lib, x: F_(lib).max_pool1d_with_indices(x, 3, 2, 1),
           samples=[_s("max_pool1d_with_indices", None, [_normal(2, 3, 9)])]),
    OpInfo("F.max_pool3d_with_indices", VOLUMETRIC, lambda lib, x: F_(lib).max_pool3d_with_indices(x, 2, 1),
           samples=[_s("max_pool3d_with_indices", None, [X5])]),
    OpInfo("F.avg_pool3d", VOLUMETRIC, lambda lib, x: F_(lib).avg_pool3d(x, 2), samples=[
        _s("avg_pool3d", None, [X5]),
        _s("avg_pool3d_ceil_pad", lambda lib, x: F_(lib).avg_pool3d(x, 3, 2, 1, ceil_mode=True), [X5]),
        _s("avg_pool3d_exclude_pad", lambda lib, x: F_(lib).avg_pool3d(x, 3, 2, 1, ceil_mode=True,
                                                                      count_include_pad=False), [X5]),
        _s("avg_pool3d_divisor", lambda lib, x: F_(lib).avg_pool3d(x, (2, 3, 2), 1, (1, 0, 1), divisor_override=5),
           [X5]),
        _s("avg_pool3d_unbatched", lambda lib, x: F_(lib).avg_pool3d(x, (1, 2, 2)), [X4]),
        _exact("avg_pool3d_int64_rounds_toward_zero", lambda lib, x: F_(lib).avg_pool3d(x, 3, 1, 1),
               [_ints(2, 3, 4, 5, 4)]),
    ], raises=[
        _raises("avg_pool3d_int32", lambda lib: F_(lib).avg_pool3d(lib.ones(*_X, dtype=lib.int32), 2),
                NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for 'Int'"),
        _raises("avg_pool3d_divisor_zero", lambda lib: F_(lib).avg_pool3d(lib.ones(*_X), 2, divisor_override=0),
                RuntimeError, "divisor must be not zero"),
        _raises("avg_pool3d_too_small", lambda lib: F_(lib).avg_pool3d(lib.ones(*_X), 5), RuntimeError,
                "input image (T: 4 H: 4 W: 4) smaller than kernel size (kT: 5 kH: 5 kW: 5)"),
        _raises("avg_pool3d_kernel_pair", lambda lib: F_(lib).avg_pool3d(lib.ones(*_X), (2, 2)), RuntimeError,
                "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
        _raises("avg_pool3d_empty_channels", lambda lib: F_(lib).avg_pool3d(lib.ones(2, 0, 4, 4, 4), 2), RuntimeError,
                "avg_pool3d(): Expected input's non-batch dimensions to have positive length, but input has a shape "
                "of [2, 0, 4, 4, 4] and non-batch dimension 0 has length zero!"),
    ]),
    OpInfo("F.lp_pool3d", VOLUMETRIC, lambda lib, x: F_(lib).lp_pool3d(x, 2, 2), samples=[
        _s("lp_pool3d", None, [X5]),
        _s("lp_pool3d_p3_ceil", lambda lib, x: F_(lib).lp_pool3d(x, 3, (2, 1, 2), 1, True),
           [In((2, 4, 5, 6, 5), 0.2, 2.0)]),
    ]),
    OpInfo("F.adaptive_avg_pool3d", VOLUMETRIC, lambda lib, x: F_(lib).adaptive_avg_pool3d(x, (3, 2, 4)), samples=[
        _s("adaptive_avg_pool3d", None, [X5]),
        _s("adaptive_avg_pool3d_blocks", lambda lib, x: F_(lib).adaptive_avg_pool3d(x, (5, 3, None)), [X5]),
        _s("adaptive_avg_pool3d_global", lambda lib, x: F_(lib).adaptive_avg_pool3d(x, 1), [X4]),
    ], raises=[
        _raises("adaptive_avg_pool3d_2d", lambda lib: F_(lib).adaptive_avg_pool3d(lib.ones(3, 4), 2), RuntimeError,
                "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [3, 4]"),
        _raises("adaptive_avg_pool3d_size", lambda lib: F_(lib).adaptive_avg_pool3d(lib.ones(*_X), (2, 2)),
                RuntimeError, "adaptive_avg_pool3d: output_size must be 3"),
    ]),
    OpInfo("F.adaptive_max_pool3d", VOLUMETRIC, lambda lib, x: F_(lib).adaptive_max_pool3d(x, (3, 2, 4)), samples=[
        _s("adaptive_max_pool3d", None, [X5]),
        _s("adaptive_max_pool3d_blocks_indices", lambda lib, x: F_(lib).adaptive_max_pool3d(x, (5, 3, 5), True),
           [X5]),
        _s("adaptive_max_pool3d_unbatched_indices", lambda lib, x: F_(lib).adaptive_max_pool3d(x, (4, 3, 2), True),
           [X4]),
    ], raises=[
        _raises("adaptive_max_pool3d_2d", lambda lib: F_(lib).adaptive_max_pool3d(lib.ones(3, 4), 2), RuntimeError,
                "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [3, 4]"),
    ]),
    OpInfo("F.adaptive_max_pool1d_with_indices", VOLUMETRIC,
           lambda lib, x: F_(lib).adaptive_max_pool1d_with_indices(x, 4),
           samples=[_s("adaptive_max_pool1d_with_indices", None, [_normal(2, 3, 7)])]),
    OpInfo("F.adaptive_max_pool2d_with_indices", VOLUMETRIC,
           lambda lib, x: F_(lib).adaptive_max_pool2d_with_indices(x, (4, 3)),
           samples=[_s("adaptive_max_pool2d_with_indices", None, [_normal(2, 3, 6, 7)])]),
    OpInfo("F.adaptive_max_pool3d_with_indices", VOLUMETRIC,
           lambda lib, x: F_(lib).adaptive_max_pool3d_with_indices(x, (2, 3, 2)),
           samples=[_s("adaptive_max_pool3d_with_indices", None, [X5])]),
    OpInfo("F.max_unpool1d", VOLUMETRIC, lambda lib, x: _unpool(lib, x, 1), samples=[
        _s("max_unpool1d", None, [_normal(2, 3, 9)]),
        _s("max_unpool1d_output_size", lambda lib, x: _unpool(lib, x, 1, output_size=[9]), [_normal(2, 3, 9)]),
    ], raises=[
        _raises("max_unpool1d_output_size", lambda lib: F_(lib).max_unpool1d(
            lib.ones(2, 3, 4), lib.zeros(2, 3, 4, dtype=lib.int64), 2, output_size=[11]), ValueError,
            'invalid output_size "[11]" (dim 0 must be between 6 and 10)'),
    ]),
    OpInfo("F.max_unpool2d", VOLUMETRIC, lambda lib, x: _unpool(lib, x, 2), samples=[
        _s("max_unpool2d", None, [_normal(2, 3, 6, 8)]),
        _s("max_unpool2d_output_size", lambda lib, x: _unpool(lib, x, 2, output_size=(6, 7)), [_normal(2, 3, 6, 7)]),
        _s("max_unpool2d_unbatched", None, [_normal(3, 4, 6)]),
        # Overlapping windows can pick one input twice: its gradient then gathers both slots, as in PyTorch,
        # while a finite difference sees one value; so no fd here.
        _s("max_unpool2d_stride_padding", lambda lib, x: _unpool_strided(lib, x), [_normal(2, 3, 7, 6)],
           checks=frozenset({PARITY, DOUBLE_BACKWARD})),
    ], raises=[
        _raises("max_unpool2d_bad_index", lambda lib: F_(lib).max_unpool2d(
            lib.ones(2, 3, 2, 2), lib.full((2, 3, 2, 2), 20, dtype=lib.int64), 2), RuntimeError,
            "Found an invalid max index: 20 (output volumes are of size 4x4)"),
        _raises("max_unpool2d_int32_indices", lambda lib: F_(lib).max_unpool2d(
            lib.ones(2, 3, 2, 2), lib.zeros(2, 3, 2, 2, dtype=lib.int32), 2), RuntimeError,
            "elements in indices should be type int64 but got: Int"),
        _raises("max_unpool2d_shape", lambda lib: F_(lib).max_unpool2d(
            lib.ones(2, 3, 2, 2), lib.zeros(1, 3, 2, 2, dtype=lib.int64), 2), RuntimeError,
            "Expected shape of indices to be same as that of the input tensor ([2, 3, 2, 2]) but got indices tensor "
            "with shape: [1, 3, 2, 2]"),
        _raises("max_unpool2d_output_size_length", lambda lib: F_(lib).max_unpool2d(
            lib.ones(2, 3, 2, 2), lib.zeros(2, 3, 2, 2, dtype=lib.int64), 2, output_size=(3, 4, 4)), ValueError,
            "output_size should be a sequence containing 2 or 4 elements, but it has a length of '3'"),
    ]),
    OpInfo("F.max_unpool3d", VOLUMETRIC, lambda lib, x: _unpool(lib, x, 3), samples=[
        _s("max_unpool3d", None, [_normal(2, 3, 4, 6, 4)]),
        _s("max_unpool3d_output_size", lambda lib, x: _unpool(lib, x, 3, output_size=(5, 6, 5)), [X5]),
    ], raises=[
        _raises("max_unpool3d_3d_input", lambda lib: F_(lib).max_unpool3d(
            lib.ones(3, 4, 4), lib.zeros(3, 4, 4, dtype=lib.int64), 2), RuntimeError,
            "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with 3 dimensions."),
    ]),
    OpInfo("F.fractional_max_pool2d", VOLUMETRIC, lambda lib, x, u: F_(lib).fractional_max_pool2d(
        x, 2, output_size=(3, 4), _random_samples=u), samples=[
        _s("fractional_max_pool2d", None, [_normal(2, 4, 6, 7), _uniform01(2, 4, 2)]),
        _s("fractional_max_pool2d_ratio_indices", lambda lib, x, u: F_(lib).fractional_max_pool2d(
            x, (2, 3), output_ratio=(0.5, 0.5), return_indices=True, _random_samples=u),
           [_normal(2, 4, 6, 7), _uniform01(2, 4, 2)]),
        _s("fractional_max_pool2d_unbatched", None, [_normal(4, 6, 7), _uniform01(1, 4, 2)]),
    ], raises=[
        _raises("fractional_max_pool2d_no_size", lambda lib: F_(lib).fractional_max_pool2d(lib.ones(2, 3, 8, 8), 2),
                ValueError, "fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
        _raises("fractional_max_pool2d_pool_too_large", lambda lib: F_(lib).fractional_max_pool2d(
            lib.ones(2, 3, 8, 8), 2, output_size=8), RuntimeError,
            "fractional_max_pool2d(): pool height 2 too large relative to input height 8"),
        _raises("fractional_max_pool2d_samples_dtype", lambda lib: F_(lib).fractional_max_pool2d(
            lib.ones(2, 3, 8, 8), 2, output_size=3, _random_samples=lib.zeros(2, 3, 2, dtype=lib.float64)),
            RuntimeError, "Expect _random_samples to have the same dtype as input"),
        _raises("fractional_max_pool2d_samples_channels", lambda lib: F_(lib).fractional_max_pool2d(
            lib.ones(2, 3, 8, 8), 2, output_size=3, _random_samples=lib.zeros(2, 2, 2)), RuntimeError,
            "Expect _random_samples.size(1) equals to input channel size."),
    ]),
    OpInfo("F.fractional_max_pool3d", VOLUMETRIC, lambda lib, x, u: F_(lib).fractional_max_pool3d(
        x, 2, output_size=(3, 4, 3), _random_samples=u), samples=[
        _s("fractional_max_pool3d", None, [X5, _uniform01(2, 4, 3)]),
        _s("fractional_max_pool3d_ratio_indices", lambda lib, x, u: F_(lib).fractional_max_pool3d(
            x, (1, 2, 3), output_ratio=0.5, return_indices=True, _random_samples=u), [X5, _uniform01(2, 4, 3)]),
        _s("fractional_max_pool3d_unbatched", None, [X4, _uniform01(1, 4, 3)]),
    ], raises=[
        _raises("fractional_max_pool3d_pool_too_large", lambda lib: F_(lib).fractional_max_pool3d(
            lib.ones(2, 3, 8, 8, 8), (1, 2, 2), output_size=(8, 7, 8)), RuntimeError,
            "fractional_max_pool3d_out(): pool time 1 too large relative to input time 8"),
        _raises("fractional_max_pool3d_samples_width", lambda lib: F_(lib).fractional_max_pool3d(
            lib.ones(2, 3, 8, 8, 8), 2, output_size=3, _random_samples=lib.zeros(2, 3, 2)), RuntimeError,
            "Expect _random_samples.size(2) equals to 3; got 2."),
    ]),
    OpInfo("F.fractional_max_pool2d_with_indices", VOLUMETRIC, lambda lib, x, u: F_(
        lib).fractional_max_pool2d_with_indices(x, 2, output_size=3, _random_samples=u),
        samples=[_s("fractional_max_pool2d_with_indices", None, [_normal(2, 4, 6, 7), _uniform01(2, 4, 2)])]),
    OpInfo("F.fractional_max_pool3d_with_indices", VOLUMETRIC, lambda lib, x, u: F_(
        lib).fractional_max_pool3d_with_indices(x, 2, output_size=3, _random_samples=u),
        samples=[_s("fractional_max_pool3d_with_indices", None, [X5, _uniform01(2, 4, 3)])]),
    OpInfo("F.channel_shuffle", VOLUMETRIC, lambda lib, x: F_(lib).channel_shuffle(x, 2), samples=[
        _s("channel_shuffle", None, [X5]),
        _s("channel_shuffle_3d", lambda lib, x: F_(lib).channel_shuffle(x, 3), [_normal(2, 6, 5)]),
    ], raises=[
        _raises("channel_shuffle_groups_zero", lambda lib: F_(lib).channel_shuffle(lib.ones(*_X), 0), RuntimeError,
                "Number of groups to divide channels in must be positive. Value of groups:0"),
        _raises("channel_shuffle_indivisible", lambda lib: F_(lib).channel_shuffle(lib.ones(*_X), 2), RuntimeError,
                "Number of channels must be divisible by groups. Got 3 channels and 2 groups."),
        _raises("channel_shuffle_1d", lambda lib: F_(lib).channel_shuffle(lib.ones(3), 1), RuntimeError,
                "channel_shuffle expects input with > 2 dims, but got input with sizes [3]"),
    ]),
]
