"""npgrad.onnx.export round trips: each model is exported, checked by onnx's checker, run in onnxruntime and
compared with npgrad's own outputs (rtol 1e-5)."""
import numpy as np
import pytest

import npgrad as torch
from npgrad import nn

onnx = pytest.importorskip("onnx", reason="npgrad.onnx.export writes through the optional onnx package")
ort = pytest.importorskip("onnxruntime", reason="the exported files are run in the optional onnxruntime")

RTOL, ATOL = 1e-5, 1e-5


def roundtrip(model, args, tmp_path, run_args=None, **kw):
    """Export, check, run in onnxruntime on ``run_args`` (default: ``args``), compare; returns the ModelProto."""
    path = str(tmp_path / "model.onnx")
    args = args if isinstance(args, tuple) else (args,)
    torch.onnx.export(model, args, path, **kw)
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    run_args = args if run_args is None else run_args
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), [a for a in run_args if isinstance(a, torch.Tensor)])}
    got = sess.run(None, feeds)
    if isinstance(model, nn.Module):
        model.eval()  # the export ran the forward in eval mode (TrainingMode.EVAL) and gave the mode back
    with torch.no_grad():
        want = model(*run_args)
    want = [want] if isinstance(want, torch.Tensor) else _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=RTOL, atol=ATOL)
    return proto


def _flat(out):
    return [t for o in out for t in ([o] if isinstance(o, torch.Tensor) else _flat(o))]


def op_types(proto):
    return {n.op_type for n in proto.graph.node}


def test_mlp(tmp_path):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(), nn.Dropout(0.3), nn.Linear(16, 4))
    proto = roundtrip(m, torch.randn(3, 6), tmp_path)
    assert op_types(proto) >= {"Gemm", "Tanh", "Gelu"}
    assert "Dropout" not in op_types(proto)  # eval mode: dropout is the identity
    assert {i.name for i in proto.graph.initializer} == {k for k in m.state_dict()}


class _CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=2, dilation=2, groups=4)
        self.bn2 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(2, stride=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout2d(0.5)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.avg(nn.functional.leaky_relu(self.bn2(self.conv2(x)), 0.1))
        x = self.gap(self.drop(x))
        return self.fc(torch.flatten(x, 1))


def _trained_bn(model, x):
    """A few training-mode passes so the running statistics are not the initial 0/1."""
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(x + torch.randn(*x.shape))
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return model


def test_cnn_batchnorm_pooling_dropout_eval(tmp_path):
    torch.manual_seed(1)
    x = torch.randn(2, 3, 16, 16)
    m = _trained_bn(_CNN(), x)
    proto = roundtrip(m, x, tmp_path)
    assert op_types(proto) >= {"Conv", "MaxPool", "AveragePool", "Gemm"}
    conv2 = next(n for n in proto.graph.node if n.op_type == "Conv" and any(a.name == "group" and a.i == 4
                                                                             for a in n.attribute))
    assert conv2 is not None


def test_cnn_keeps_training_mode_after_export(tmp_path):
    m = _CNN()
    m.train()
    torch.onnx.export(m, (torch.randn(2, 3, 8, 8),), str(tmp_path / "m.onnx"))
    assert m.training and m.bn1.training  # exported in eval mode, and the module's own mode comes back


def test_conv1d_pooling(tmp_path):
    torch.manual_seed(2)
    m = nn.Sequential(nn.Conv1d(4, 6, 5, stride=2, padding=2), nn.ELU(), nn.MaxPool1d(3, stride=2, padding=1),
                      nn.AvgPool1d(2), nn.Conv1d(6, 6, 3, groups=3, dilation=2), nn.SiLU(), nn.AdaptiveAvgPool1d(1),
                      nn.Flatten())
    roundtrip(m, torch.randn(2, 4, 40), tmp_path)


def test_dynamic_batch(tmp_path):
    torch.manual_seed(3)
    x = torch.randn(2, 3, 16, 16)
    m = _trained_bn(_CNN(), x).eval()
    proto = roundtrip(m, x, tmp_path, run_args=(torch.randn(5, 3, 16, 16),), input_names=["image"],
                      output_names=["logits"], dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_input_output_names(tmp_path):
    class Two(nn.Module):
        def forward(self, a, b):
            return a * b + 1.0, (a - b).exp()
    proto = roundtrip(Two(), (torch.randn(3), torch.randn(3)), tmp_path, input_names=["left", "right"],
                      output_names=["prod", "diff"])
    assert [i.name for i in proto.graph.input] == ["left", "right"]
    assert [o.name for o in proto.graph.output] == ["prod", "diff"]


def test_default_names_follow_forward_signature(tmp_path):
    class One(nn.Module):
        def forward(self, tokens):
            return tokens.sqrt()
    path = str(tmp_path / "m.onnx")
    torch.onnx.export(One(), (torch.rand(4),), path)
    proto = onnx.load(path)
    assert [i.name for i in proto.graph.input] == ["tokens"]
    assert [o.name for o in proto.graph.output] == ["output"]


def test_transformer_encoder_layer_key_padding_mask(tmp_path):
    torch.manual_seed(4)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.1, batch_first=True)
    x = torch.randn(2, 5, 16)
    pad = torch.tensor([[False, False, False, True, True], [False, False, False, False, True]])

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, src, src_key_padding_mask):
            return self.layer(src, src_key_padding_mask=src_key_padding_mask)

    other = torch.tensor([[False, True, False, False, True], [False, False, False, False, False]])
    proto = roundtrip(Block(), (x, pad), tmp_path, run_args=(torch.randn(2, 5, 16), other),
                      input_names=["src", "mask"])
    assert op_types(proto) >= {"LayerNormalization", "Softmax", "MatMul", "Where", "Relu"}
    assert proto.graph.input[1].type.tensor_type.elem_type == onnx.TensorProto.BOOL


def test_transformer_causal_mask_and_gelu(tmp_path):
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, activation="gelu", norm_first=True)
    mask = nn.Transformer.generate_square_subsequent_mask(6)

    class Causal(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, src):
            return self.layer(src, src_mask=mask, is_causal=True)

    roundtrip(Causal(), torch.randn(6, 3, 8), tmp_path, run_args=(torch.randn(6, 3, 8),))


def test_transformer_dynamic_batch(tmp_path):
    torch.manual_seed(6)
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    roundtrip(layer, torch.randn(2, 4, 8), tmp_path, run_args=(torch.randn(5, 4, 8),), input_names=["src"],
              dynamic_axes={"src": [0]})


def test_scaled_dot_product_attention_bool_mask(tmp_path):
    def attend(q, k, v, m):
        return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)
    torch.manual_seed(7)
    q, k, v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8)
    m = torch.rand(4, 6) > 0.3
    m[:, 0] = True
    roundtrip(attend, (q, k, v, m), tmp_path)


def test_multihead_attention_with_masks(tmp_path):
    torch.manual_seed(8)
    mha = nn.MultiheadAttention(12, 3, batch_first=True, kdim=10, vdim=6)
    q, k, v = torch.randn(2, 4, 12), torch.randn(2, 5, 10), torch.randn(2, 5, 6)
    kpm = torch.tensor([[False] * 4 + [True], [False] * 5])
    am = torch.randn(4, 5)
    roundtrip(lambda q, k, v, kpm: mha(q, k, v, key_padding_mask=kpm, attn_mask=am), (q, k, v, kpm), tmp_path)


class _Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 12, num_layers=2, batch_first=True)
        self.head = nn.Linear(12, 3)

    def forward(self, tokens):
        y, (h, c) = self.lstm(self.emb(tokens))
        return self.head(y[:, -1]), h, c


def test_lstm_two_layers_batch_first(tmp_path):
    torch.manual_seed(9)
    m = _Seq()
    tokens = torch.randint(0, 20, (2, 7))
    proto = roundtrip(m, tokens, tmp_path, run_args=(torch.randint(0, 20, (2, 7)),))
    assert [n.op_type for n in proto.graph.node].count("LSTM") == 2
    assert "Gather" in op_types(proto)


def test_lstm_dynamic_batch_and_initial_state(tmp_path):
    torch.manual_seed(10)
    lstm = nn.LSTM(5, 6, num_layers=2, batch_first=True)
    x, h0, c0 = torch.randn(2, 4, 5), torch.randn(2, 2, 6), torch.randn(2, 2, 6)
    roundtrip(lambda x, h, c: lstm(x, (h, c)), (x, h0, c0), tmp_path,
              run_args=(torch.randn(5, 4, 5), torch.randn(2, 5, 6), torch.randn(2, 5, 6)),
              input_names=["x", "h0", "c0"], dynamic_axes={"x": [0], "h0": [1], "c0": [1]})


def test_lstm_plain_dynamic_batch(tmp_path):
    torch.manual_seed(11)
    lstm = nn.LSTM(5, 6, num_layers=2, batch_first=True)
    roundtrip(lstm, torch.randn(2, 4, 5), tmp_path, run_args=(torch.randn(5, 4, 5),), input_names=["x"],
              dynamic_axes={"x": {0: "batch"}})
