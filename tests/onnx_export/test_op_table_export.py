"""Every operator of the op table (tests/opinfo) through npgrad.onnx.export: each float32 sample either exports
and gives npgrad's result in onnxruntime, or is refused with npgrad.onnx.export's error; never a file that
computes something else. EXPORTED lists the operators whose every sample exports (the coverage claim),
PARTLY those for which some do (the others need an operator with no mapping, e.g. cross_entropy's
class-index form, or a dtype ONNX's kernels lack)."""
import io
import warnings

import numpy as np
import pytest

import npgrad
from opinfo import OP_DB
from oracle import first_output, make_arrays

onnx = pytest.importorskip("onnx", reason="npgrad.onnx.export writes through the optional onnx package")
ort = pytest.importorskip("onnxruntime", reason="the exported files are run in the optional onnxruntime")

EXPORTED = frozenset([
    'F.adaptive_avg_pool1d', 'F.adaptive_avg_pool2d', 'F.adaptive_avg_pool3d', 'F.adaptive_max_pool1d',
    'F.adaptive_max_pool1d_with_indices', 'F.adaptive_max_pool2d', 'F.adaptive_max_pool2d_with_indices',
    'F.adaptive_max_pool3d', 'F.adaptive_max_pool3d_with_indices', 'F.alpha_dropout', 'F.avg_pool1d',
    'F.avg_pool2d', 'F.celu', 'F.channel_shuffle', 'F.conv1d', 'F.conv2d', 'F.conv_transpose1d',
    'F.conv_transpose2d', 'F.cosine_similarity', 'F.dropout', 'F.dropout1d', 'F.dropout2d', 'F.dropout3d',
    'F.elu', 'F.elu_', 'F.embedding', 'F.gelu', 'F.glu', 'F.group_norm', 'F.hardtanh', 'F.hardtanh_',
    'F.instance_norm', 'F.interpolate', 'F.l1_loss', 'F.layer_norm', 'F.leaky_relu', 'F.leaky_relu_',
    'F.linear', 'F.local_response_norm', 'F.log_softmax', 'F.lp_pool1d', 'F.lp_pool2d', 'F.lp_pool3d',
    'F.margin_ranking_loss', 'F.max_pool1d', 'F.max_pool1d_with_indices', 'F.max_pool2d',
    'F.max_pool2d_with_indices', 'F.max_pool3d_with_indices', 'F.multi_head_attention_forward', 'F.normalize',
    'F.pad', 'F.pairwise_distance', 'F.pdist', 'F.pixel_shuffle', 'F.pixel_unshuffle', 'F.poisson_nll_loss',
    'F.relu', 'F.relu6', 'F.relu_', 'F.rrelu', 'F.rrelu_', 'F.scaled_dot_product_attention', 'F.selu',
    'F.selu_', 'F.sigmoid', 'F.silu', 'F.soft_margin_loss', 'F.softmax', 'F.softmin', 'F.softsign', 'F.tanh',
    'F.tanhshrink', 'F.triplet_margin_loss', 'F.triplet_margin_with_distance_loss', 'F.upsample',
    'F.upsample_bilinear', 'F.upsample_nearest', 'abs', 'acos', 'acosh', 'add', 'addbmm', 'addcdiv', 'addcmul',
    'addmm', 'addmv', 'addr', 'amax', 'amin', 'aminmax', 'asin', 'asinh', 'atan', 'atanh', 'atleast_1d',
    'atleast_2d', 'atleast_3d', 'baddbmm', 'block_diag', 'bmm', 'broadcast_tensors', 'broadcast_to',
    'cartesian_prod', 'cat', 'ceil', 'chain_matmul', 'chunk', 'clamp', 'clamp_max', 'clamp_min', 'clone',
    'column_stack', 'combinations', 'concat', 'concatenate', 'cos', 'cosh', 'cov', 'cumsum',
    'cumulative_trapezoid', 'deg2rad', 'diff', 'dist', 'dot', 'dsplit', 'dstack', 'eq', 'erf', 'exp', 'expm1',
    'flatten', 'flip', 'fliplr', 'flipud', 'float_power', 'floor', 'frobenius_norm', 'gather', 'ge', 'ger',
    'gradient', 'gt', 'hsplit', 'hstack', 'index_select', 'le', 'linalg.vander', 'log', 'log1p', 'logical_and',
    'logical_not', 'logical_or', 'logical_xor', 'lt', 'masked_fill', 'matmul', 'maximum', 'mean', 'meshgrid',
    'minimum', 'mm', 'moveaxis', 'movedim', 'mul', 'mv', 'nanmean', 'nansum', 'narrow', 'ne', 'neg', 'norm',
    'ormqr', 'outer', 'permute', 'positive', 'pow', 'prod', 'rad2deg', 'ravel', 'reciprocal', 'relu', 'renorm',
    'reshape', 'rot90', 'row_stack', 'rsqrt', 'rsub', 'select', 'sgn', 'sigmoid', 'sign', 'sin', 'sinh',
    'softmax', 'split', 'split_with_sizes', 'sqrt', 'square', 'squeeze', 'stack', 'std', 'std_mean', 'sub',
    'sum', 'swapaxes', 'swapdims', 't', 'take', 'take_along_dim', 'tan', 'tanh', 'tensor_split', 'tile',
    'transpose', 'trapezoid', 'trapz', 'tril', 'triu', 'unbind', 'unflatten', 'unsafe_chunk',
    'unsafe_split_with_sizes', 'unsqueeze', 'var', 'var_mean', 'vdot', 'vsplit', 'vstack', 'where',
])

PARTLY = frozenset([
    'F.affine_grid', 'F.avg_pool3d', 'F.batch_norm', 'F.conv3d', 'F.conv_transpose3d', 'F.cross_entropy',
    'F.embedding_bag', 'F.kl_div', 'F.linear_cross_entropy', 'F.max_pool3d', 'F.multi_margin_loss',
    'F.smooth_l1_loss', 'bitwise_and', 'bitwise_not', 'bitwise_or', 'div', 'inner', 'ldexp', 'log_softmax',
    'matrix_power', 'max', 'min', 'orgqr', 'repeat_interleave', 'round', 'unsafe_split',
])


def _outcomes(op):
    out = []
    for sample in op.samples:
        if "complex_grad" in sample.checks:
            continue  # the complex table's samples (inputs as (shape, kind)): ONNX has no complex tensors
        if np.float32 not in tuple(sample.dtypes):
            continue
        if not all(hasattr(spec, "dtype") for spec in sample.inputs):
            continue  # the complex family's samples (ONNX Runtime has no complex kernels to compare with)
        fn = sample.fn or op.fn
        ts = [npgrad.tensor(a) for a in make_arrays(sample, np.float32)]
        try:
            with npgrad.no_grad():
                want = first_output(fn(npgrad, *ts))
        except Exception:
            continue  # a sample that only makes sense with gradients or that checks an error
        if not isinstance(want, npgrad.Tensor) or not ts:
            continue
        buf = io.BytesIO()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                npgrad.onnx.export(lambda *xs: first_output(fn(npgrad, *xs)), tuple(ts), buf)
        except RuntimeError as e:
            assert str(e).startswith("npgrad.onnx.export: "), f"{sample.name}: {e!r}"
            out.append("refused")
            continue
        sess = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
        got = sess.run(None, {i.name: t.numpy() for i, t in zip(sess.get_inputs(), ts)})[0]
        assert got.shape == tuple(want.shape), sample.name
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=sample.name)
        out.append("ok")
    return out


@pytest.mark.parametrize("op", OP_DB, ids=lambda op: op.name)
def test_exports_right_or_refuses(op):
    outcomes = _outcomes(op)
    if op.name in EXPORTED:
        assert outcomes and set(outcomes) == {"ok"}, outcomes
    elif op.name in PARTLY:
        assert "ok" in outcomes, outcomes


def test_coverage_lists_name_table_operators():
    names = {op.name for op in OP_DB}
    assert EXPORTED <= names and PARTLY <= names and not EXPORTED & PARTLY
