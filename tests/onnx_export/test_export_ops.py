"""npgrad.onnx.export operator by operator: small functions of tensors exported and run in onnxruntime; the
options (opset, constant folding, export_params); the refusal of an operator with no mapping."""
import numpy as np
import pytest

import npgrad as torch
from npgrad import nn
from npgrad.nn import functional as F

onnx = pytest.importorskip("onnx", reason="npgrad.onnx.export writes through the optional onnx package")
pytest.importorskip("onnxruntime", reason="the exported files are run in the optional onnxruntime")

from test_export_models import op_types, roundtrip  # noqa: E402


def _x(*shape, seed=0):
    torch.manual_seed(seed)
    return torch.randn(*shape)


ELEMENTWISE = {
    "arith": lambda x: (x + 2.0) * x - x / 3.0 + (-x) ** 2 - 1.5 / (x.abs() + 1),
    "pow_tensor": lambda x: x.abs() ** (x * 0.5),
    "exp_log_sqrt": lambda x: x.exp().log() + (x * x + 1).sqrt() + (x * x + 1).rsqrt(),
    "tanh_sigmoid_relu": lambda x: x.tanh() + x.sigmoid() + x.relu() + torch.sigmoid(x),
    "gelu_erf": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu_leaky_elu": lambda x: F.silu(x) + F.leaky_relu(x, 0.2) + F.elu(x, 0.7) + F.selu(x) + F.celu(x, 1.3),
    "hardtanh_relu6_clamp": lambda x: F.hardtanh(x, -0.5, 0.5) + F.relu6(x * 4) + x.clamp(-0.3, 0.8) + x.clamp(min=0.1),
    "softmax": lambda x: F.softmax(x, -1) + F.log_softmax(x, 1) + torch.softmax(x, 0),
    "trig": lambda x: x.sin() + x.cos() + torch.erf(x) + x.floor() + x.ceil() + x.neg() + x.log1p(),
    "reductions": lambda x: x.mean() + x.sum(1, keepdim=True) + x.mean((0, 1)) + x.amax(-1, keepdim=True)
    + x.amin(0) + x.sum(),
    "minmax": lambda x: torch.maximum(x, x * 0.5) - torch.minimum(x, -x),
    "cast": lambda x: (x * 3).long().float() + x.double().float(),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_and_reductions(name, tmp_path):
    x = _x(3, 4, seed=hash(name) % 100)
    if name == "trig":
        x = x.abs() + 0.1
    roundtrip(ELEMENTWISE[name], x, tmp_path)


MOVEMENT = {
    "view_permute": lambda x: x.view(2, 3, 4).permute(2, 0, 1).reshape(4, 6).t(),
    "transpose_unsqueeze_squeeze": lambda x: x.transpose(0, 1).unsqueeze(0).unsqueeze(-1).squeeze(0).squeeze(-1),
    "flatten": lambda x: x.view(2, 3, 4).flatten(1) + 0,
    "cat_stack": lambda x: torch.cat([x, x * 2], 1) + torch.stack([x, x], 0).sum(0).repeat(1, 2),
    "split_chunk": lambda x: sum(p.sum(1, keepdim=True) for p in x.split([1, 3, 2], 1)) + x.chunk(2, 0)[1].sum(0),
    "slicing": lambda x: x[1:, ::2] * 2 + x[:-1, 1::2] + x[-1, :3] + x[1:, 3][:, None] + x[None, 0, 2:4].sum(),
    "narrow_select": lambda x: x.narrow(1, 2, 3) + x.select(0, 1)[1:4],
    "expand": lambda x: x[:, :1].expand(6, 6) + x,
}


@pytest.mark.parametrize("name", sorted(MOVEMENT))
def test_shape_and_movement(name, tmp_path):
    roundtrip(MOVEMENT[name], _x(6, 6) if name != "view_permute" and name != "flatten" else _x(4, 6), tmp_path)


def test_comparisons_where_masked_fill(tmp_path):
    def f(x, y):
        m = (x > 0) & (y <= 0.5) | (x == y) | ~(x != x)
        return torch.where(m, x, y) + x.masked_fill(x < -0.5, 0.25) + (x >= y).float() + torch.lt(x, 0.1).float()
    roundtrip(f, (_x(3, 5), _x(3, 5, seed=1)), tmp_path)


def test_embedding_and_index_tensor(tmp_path):
    emb = nn.Embedding(10, 4)
    idx = torch.tensor([[1, 2, 9], [0, 0, 3]])
    roundtrip(lambda i: emb(i).sum(-1) + emb.weight[i][..., 0], idx, tmp_path, run_args=(torch.tensor([[4, 5, 6],
                                                                                                          [7, 8, 1]]),))


def test_matmul_and_linear_3d_folds_the_transposed_weight(tmp_path):
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(5, 3)

        def forward(self, x):
            return self.lin(x) @ torch.ones(3, 2) + torch.matmul(x, x.transpose(1, 2)).sum(-1, keepdim=True)
    m = M()
    proto = roundtrip(m, _x(2, 4, 5), tmp_path)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in proto.graph.initializer}
    np.testing.assert_array_equal(inits["lin.weight_t"], m.lin.weight.detach().numpy().T)  # folded, no Transpose node
    assert all("lin.weight" not in n.input for n in proto.graph.node)  # only the folded copy is read


def test_layer_norm_decomposed_before_opset_17(tmp_path):
    ln = nn.LayerNorm(6)
    ln.weight.data.uniform_(0.5, 2)
    proto = roundtrip(lambda x: ln(x) + F.layer_norm(x, (4, 6)), _x(3, 4, 6), tmp_path, opset_version=16)
    assert "LayerNormalization" not in op_types(proto) and "ReduceMean" in op_types(proto)
    proto = roundtrip(ln, _x(3, 4, 6), tmp_path, opset_version=17)
    assert "LayerNormalization" in op_types(proto)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_decomposed_before_opset_20(approximate, tmp_path):
    proto = roundtrip(lambda x: F.gelu(x, approximate=approximate), _x(4, 5) * 3, tmp_path, opset_version=18)
    assert "Gelu" not in op_types(proto)


def test_no_constant_folding_keeps_parameter_subgraphs(tmp_path):
    lin = nn.Linear(5, 3)
    proto = roundtrip(lin, _x(2, 4, 5), tmp_path, do_constant_folding=False)
    assert "Transpose" in op_types(proto)
    assert {i.name for i in proto.graph.initializer} == {"weight", "bias"}


def test_export_params_false_makes_parameters_inputs(tmp_path):
    lin = nn.Linear(5, 3)
    path = str(tmp_path / "m.onnx")
    torch.onnx.export(lin, (_x(2, 5),), path, export_params=False, input_names=["x"])
    proto = onnx.load(path)
    onnx.checker.check_model(proto)
    assert [i.name for i in proto.graph.input] == ["x", "weight", "bias"] and not proto.graph.initializer
    import onnxruntime as ort
    x = _x(2, 5)
    got = ort.InferenceSession(path).run(None, {"x": x.numpy(), "weight": lin.weight.detach().numpy(),
                                                 "bias": lin.bias.detach().numpy()})[0]
    np.testing.assert_allclose(got, lin(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_unmapped_operator_is_refused_by_name(tmp_path):
    with pytest.raises(RuntimeError, match=r"npgrad.onnx.export: no ONNX mapping for operator 'cummax'"):
        torch.onnx.export(lambda x: torch.cummax(x, 0).values * 2, (_x(3, 4),), str(tmp_path / "m.onnx"))
    with pytest.raises(RuntimeError, match=r"no ONNX mapping for operator 'einsum'"):
        torch.onnx.export(lambda x: torch.einsum("ij,kj->ik", x, x), (_x(2, 3),), str(tmp_path / "m.onnx"))


def test_constants_are_folded_not_refused(tmp_path):
    # cummax of a constant is computed while recording and written as an initializer
    c = torch.cummax(_x(3, 4), 0).values
    roundtrip(lambda x: x + c, _x(3, 4, seed=2), tmp_path)


def test_constant_built_from_a_dynamic_size_is_refused(tmp_path):
    def f(x):
        return x + torch.zeros(x.shape[0], 1)   # a factory: its size is fixed at export time
    with pytest.raises(RuntimeError, match="changes with the dynamic axes"):
        torch.onnx.export(f, (_x(2, 3),), str(tmp_path / "m.onnx"), input_names=["x"], dynamic_axes={"x": [0]})


@pytest.mark.parametrize("f", [lambda x: x * x.sum().item(), lambda x: x + torch.tensor(x.numpy().max()),
                               lambda x: x * float(x.numpy().argmax())],
                         ids=["item", "numpy", "numpy_argmax"])
def test_values_computed_outside_the_recording_are_refused(f, tmp_path):
    with pytest.raises(RuntimeError, match="npgrad.onnx.export: .*depends on the inputs"):
        torch.onnx.export(f, (_x(3, 4),), str(tmp_path / "m.onnx"))


def test_opset_out_of_range_and_missing_file():
    with pytest.raises(ValueError, match="Unsupported ONNX opset version: 9"):
        torch.onnx.export(nn.Linear(2, 2), (_x(1, 2),), "unused.onnx", opset_version=9)
    with pytest.raises(ValueError, match="f"):
        torch.onnx.export(nn.Linear(2, 2), (_x(1, 2),))


def test_is_in_onnx_export_and_file_object(tmp_path):
    import io
    seen = []

    def f(x):
        seen.append(torch.onnx.is_in_onnx_export())
        return x * 2
    buf = io.BytesIO()
    torch.onnx.export(f, _x(2), buf)
    assert seen and all(seen) and not torch.onnx.is_in_onnx_export()
    assert onnx.load_model_from_string(buf.getvalue()).graph.node[0].op_type == "Mul"


def test_recording_leaves_tensor_methods_as_they_were(tmp_path):
    before = (torch.Tensor.__eq__, torch.Tensor.logical_not, torch.gt, F.scaled_dot_product_attention)
    with pytest.raises(RuntimeError):
        torch.onnx.export(lambda x: torch.cummax(x > 0, 0).values, (_x(3),), str(tmp_path / "m.onnx"))
    assert (torch.Tensor.__eq__, torch.Tensor.logical_not, torch.gt, F.scaled_dot_product_attention) == before
    from npgrad.autograd import record
    assert record._tracer is None


def test_torch_alias_reaches_npgrad_onnx():
    import subprocess
    import sys
    code = ("import npgrad; npgrad.alias_torch(); import torch, torch.onnx; "
            "assert torch.onnx.export is npgrad.onnx.export; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


def test_same_operator_set_as_pytorch_for_an_mlp(tmp_path):
    real = pytest.importorskip("torch", reason="PyTorch (the oracle) is not installed")
    m = real.nn.Sequential(real.nn.Linear(4, 8), real.nn.ReLU(), real.nn.Linear(8, 2), real.nn.Softmax(-1))
    path = str(tmp_path / "torch.onnx")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's notice that its TorchScript-based exporter is the legacy one
        real.onnx.export(m, (real.randn(2, 4),), path, dynamo=False)
    theirs = op_types(onnx.load(path))
    ours = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Softmax(-1))
    mine = op_types(roundtrip(ours, _x(2, 4), tmp_path)) - {"Identity"}
    assert mine == theirs


def test_inplace_operations(tmp_path):
    def f(x):
        y = x * 2
        y.add_(1.0)
        y *= x
        y.relu_()
        z = x.clone()
        z.masked_fill_(x > 0.5, 0.0)
        z -= 0.25
        return y + z, y.sigmoid()
    m = nn.Sequential(nn.Linear(4, 6), nn.ReLU(inplace=True), nn.Linear(6, 3), nn.LeakyReLU(0.1, inplace=True))
    roundtrip(f, _x(3, 4), tmp_path)
    roundtrip(m, _x(3, 4), tmp_path)
    x = _x(3, 4)
    before = x.clone()
    roundtrip(lambda x: x.mul_(2).exp(), x, tmp_path, run_args=(before.clone(),))


@pytest.mark.parametrize("f", [lambda x: x.clone().copy_(x * 2), lambda x: x.clone().copy_(x[0] * 3),
                               lambda x: x.clone().fill_(3.0) + x, lambda x: (x * 1).zero_() + x,
                               lambda x: torch.fill(x, 2.5) * x], ids=["copy_", "copy_broadcast", "fill_", "zero_",
                                                                    "fill"])
def test_copy_and_fill_are_recorded(f, tmp_path):
    """Outside a graph these write the array directly; an export must still see the write (they were exported as
    if nothing had been written, silently)."""
    roundtrip(f, _x(3, 4), tmp_path)


def test_assignment_into_a_tensor_is_refused(tmp_path):
    def f(x):
        y = x * 1
        y[:, 0] = 5.0
        return y
    with pytest.raises(RuntimeError, match=r"^npgrad.onnx.export: assignment into a tensor \(x\[index\] = value\)"):
        torch.onnx.export(f, (_x(3, 4),), str(tmp_path / "m.onnx"))
    y = _x(3, 4)
    y[:, 0] = 5.0  # outside an export, as before
    assert (y[:, 0] == 5.0).all()


def test_inplace_on_a_view_is_refused(tmp_path):
    def f(x):
        y = x * 1
        y[0].add_(1.0)
        return y
    with pytest.raises(RuntimeError, match="in-place operation on a view"):
        torch.onnx.export(f, (_x(3, 4),), str(tmp_path / "m.onnx"))


@pytest.mark.parametrize("kw", [dict(padding=1, count_include_pad=False), dict(padding=1, ceil_mode=True, stride=2),
                                dict(divisor_override=3), dict(padding=1, count_include_pad=True, stride=2)])
def test_avg_pool_divisors(kw, tmp_path):
    roundtrip(lambda x: F.avg_pool2d(x, 3, **kw), _x(2, 3, 7, 8), tmp_path)


def test_mixed_dtype_comparison_and_bool_sum(tmp_path):
    def f(i, j):
        return (i > j).sum(-1) + (i == 3).sum() + (i.float() < 2.5).sum(0, keepdim=True).sum()
    roundtrip(f, (torch.tensor([[1, 5, 3], [4, 2, 3]]), torch.tensor([[2, 2, 2], [5, 1, 3]], dtype=torch.int32)),
              tmp_path)


def test_output_not_computed_by_recorded_operators_is_refused(tmp_path):
    with pytest.raises(RuntimeError, match="output 'output' does not depend on the inputs"):
        torch.onnx.export(lambda x: torch.tensor(x.numpy() > 0).all(), (_x(3),), str(tmp_path / "m.onnx"))


def test_zero_dim_tensors_and_clamp_bounds(tmp_path):
    roundtrip(lambda x: (x.log1p() * 2).clamp_max(0.5) + x.clamp(0.6, 0.2) + x.clamp(max=torch.tensor(0.3)),
              torch.tensor(0.7), tmp_path)


@pytest.mark.parametrize("cell", ["GRU", "RNN_TANH", "RNN_RELU"])
def test_gru_and_rnn(cell, tmp_path):
    torch.manual_seed(12)
    kind = {"GRU": nn.GRU, "RNN_TANH": nn.RNN, "RNN_RELU": lambda *a, **k: nn.RNN(*a, nonlinearity="relu", **k)}
    m = kind[cell](5, 6, num_layers=2, batch_first=True)
    roundtrip(m, _x(2, 4, 5), tmp_path, run_args=(_x(3, 4, 5, seed=1),), input_names=["x"],
              dynamic_axes={"x": [0]})


def test_more_layers_and_reductions(tmp_path):
    torch.manual_seed(13)
    up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
    gn, inorm = nn.GroupNorm(2, 4), nn.InstanceNorm2d(4, affine=True)

    def f(x):
        y = up(gn(x) + inorm(x))
        y = F.pad(y, (1, 2, 0, 1), value=0.5).flip(-1)
        return (y.var(1, keepdim=True) + y.std((2, 3), keepdim=True) + y.norm(dim=1, keepdim=True)
                + y.max(1, keepdim=True).values + y.cumsum(2) + y.triu(1) + y.tril())
    roundtrip(f, _x(2, 4, 5, 6), tmp_path)


def test_index_select_and_gather(tmp_path):
    def f(x, i, j):
        return x.index_select(1, i).sum() + torch.gather(x, 1, j)
    roundtrip(f, (_x(3, 5), torch.tensor([0, 4, 2]), torch.tensor([[0, 1], [4, 4], [2, 0]])), tmp_path)
