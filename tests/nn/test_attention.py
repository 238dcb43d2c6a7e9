"""MultiheadAttention (masks, need_weights, averaging, batch_first, kdim/vdim, bias options) and the
Transformer layers against PyTorch with copied weights."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from nn._parity import check_module

R = np.random.default_rng(4)
L, S, N, E = 4, 5, 2, 8
Q, KV = R.standard_normal((L, N, E)), R.standard_normal((S, N, E))
BOOL_ATTN = R.random((L, S)) < 0.3
BOOL_ATTN[:, 0] = False          # True means "may not attend" in MultiheadAttention; keep one key open
KPM = np.zeros((N, S), bool)
KPM[0, 3:] = True
KPM[1, 1] = True


class _MHA:
    """Calls a MultiheadAttention with keyword options (check_module passes tensors positionally)."""

    def __init__(self, lib, kw, masks, self_attn=False, **ctor):
        self.m = lib.nn.MultiheadAttention(E, 2, **ctor)
        self.lib, self.kw, self.masks, self.self_attn = lib, kw, masks, self_attn

    def __getattr__(self, name):
        return getattr(self.m, name)

    def __call__(self, q, k=None, v=None):
        kw = dict(self.kw)
        for name, arr in self.masks.items():
            kw[name] = self.lib.tensor(arr) if arr.dtype == bool else self.lib.tensor(arr).to(q.dtype)
        if self.self_attn:
            return self.m(q, q, q, **kw)
        return self.m(q, k, v, **kw)


def _wrap(m):
    m.double = lambda: (m.m.double(), m)[1]
    m.train = lambda mode=True: (m.m.train(mode), m)[1]
    return m


MHA_CASES = [
    ("plain", {}, {}, {}),
    ("bool_attn_mask", {}, {"attn_mask": BOOL_ATTN}, {}),
    ("float_attn_mask", {}, {"attn_mask": R.standard_normal((L, S))}, {}),
    ("3d_attn_mask", {}, {"attn_mask": R.standard_normal((N * 2, L, S))}, {}),
    ("key_padding_mask", {}, {"key_padding_mask": KPM}, {}),
    ("both_masks", {}, {"attn_mask": BOOL_ATTN, "key_padding_mask": KPM}, {}),
    ("float_kpm", {}, {"key_padding_mask": np.where(KPM, -1e9, 0.0)}, {}),
    ("no_weights", {"need_weights": False}, {"key_padding_mask": KPM}, {}),
    ("per_head_weights", {"average_attn_weights": False}, {}, {}),
    ("no_bias", {}, {}, {"bias": False}),
    ("bias_kv_zero_attn", {}, {"attn_mask": BOOL_ATTN, "key_padding_mask": KPM},
     {"add_bias_kv": True, "add_zero_attn": True}),
]

if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    @pytest.mark.parametrize("name,kw,masks,ctor", MHA_CASES, ids=[c[0] for c in MHA_CASES])
    def test_mha_matches_torch(name, kw, masks, ctor, dtype):
        check_module(lambda l: _wrap(_MHA(l, kw, masks, **ctor)), [Q, KV, KV], dtype=dtype, what=name)

    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    def test_mha_self_attention_batch_first_causal(dtype):
        x = R.standard_normal((N, L, E))
        causal = np.triu(np.ones((L, L), bool), 1)
        check_module(lambda l: _wrap(_MHA(l, {"is_causal": True}, {"attn_mask": causal}, self_attn=True,
                                          batch_first=True)), [x], dtype=dtype, what="causal")

    def test_mha_kdim_vdim_and_unbatched():
        check_module(lambda l: _wrap(_MHA(l, {}, {}, kdim=3, vdim=5, batch_first=True)),
                     [R.standard_normal((N, L, E)), R.standard_normal((N, S, 3)), R.standard_normal((N, S, 5))],
                     what="kdim")
        check_module(lambda l: _wrap(_MHA(l, {}, {"key_padding_mask": KPM[0]})), [Q[:, 0], KV[:, 0], KV[:, 0]],
                     what="unbatched")

    ENCODER_CASES = [
        ("post_norm_relu", dict(), {}),
        ("pre_norm_gelu_batch_first", dict(norm_first=True, activation="gelu", batch_first=True), {}),
        ("gelu_module_activation", dict(activation=None), {}),
        ("no_bias_eps", dict(bias=False, layer_norm_eps=1e-3), {}),
        ("with_masks", dict(), {"src_key_padding_mask": np.array([[False] * 5 + [True], [False] * 6]),
                                "src_mask": np.triu(np.full((6, 6), -np.inf), 1)}),
    ]

    class _Enc:
        def __init__(self, lib, ctor, masks, layers=None):
            ctor = dict(ctor)
            if ctor.get("activation", 1) is None:
                ctor["activation"] = lib.nn.GELU()
            layer = lib.nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, **ctor)
            self.m = layer if layers is None else lib.nn.TransformerEncoder(layer, layers, norm=lib.nn.LayerNorm(E),
                                                                            enable_nested_tensor=False)
            self.lib, self.masks, self.batch_first = lib, masks, ctor.get("batch_first", False)

        def __getattr__(self, name):
            return getattr(self.m, name)

        def __call__(self, x):
            kw = {}
            for k, v in self.masks.items():
                t = self.lib.tensor(v)
                kw[k if not isinstance(self.m, self.lib.nn.TransformerEncoder) else
                   {"src_mask": "mask"}.get(k, k)] = t if v.dtype == bool else t.to(x.dtype)
            return self.m(x, **kw)

    @pytest.mark.parametrize("layers", [None, 2], ids=["layer", "encoder"])
    @pytest.mark.parametrize("name,ctor,masks", ENCODER_CASES, ids=[c[0] for c in ENCODER_CASES])
    def test_transformer_encoder_matches_torch(name, ctor, masks, layers):
        x = R.standard_normal((2, 6, E)) if ctor.get("batch_first") or masks else R.standard_normal((6, 2, E))
        if masks and not ctor.get("batch_first"):
            x = x.transpose(1, 0, 2).copy()
        check_module(lambda l: _wrap(_Enc(l, ctor, masks, layers)), [x], what=name)
        check_module(lambda l: _wrap(_Enc(l, ctor, masks, layers)), [x], train=False, what=name + " eval")

    def test_transformer_decoder_matches_torch():
        make = lambda l: l.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0, norm_first=True)
        check_module(make, [Q, KV], what="decoder layer")

    def test_generate_square_subsequent_mask():
        a = npgrad.nn.Transformer.generate_square_subsequent_mask(4).numpy()
        b = torch.nn.Transformer.generate_square_subsequent_mask(4).numpy()
        np.testing.assert_array_equal(a, b)


def test_mha_shapes_and_errors():
    m = npgrad.nn.MultiheadAttention(E, 2, batch_first=True)
    x = npgrad.randn(N, L, E)
    out, w = m(x, x, x)
    assert out.shape == (N, L, E) and w.shape == (N, L, L)
    out, w = m(x, x, x, need_weights=False)
    assert w is None
    _, w = m(x, x, x, average_attn_weights=False)
    assert w.shape == (N, 2, L, L)
    np.testing.assert_allclose(w.detach().numpy().sum(-1), 1.0, rtol=1e-5)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        npgrad.nn.MultiheadAttention(7, 2)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        m(x, x, x, attn_mask=npgrad.zeros(3, 3))


def test_sdpa_masks_against_reference_formula():
    q, k, v = npgrad.randn(2, 3, 4), npgrad.randn(2, 5, 4), npgrad.randn(2, 5, 6)
    mask = npgrad.tensor(np.tril(np.ones((3, 5), bool)))
    out = npgrad.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    s = (q.numpy() @ k.numpy().transpose(0, 2, 1)) / 2.0
    s = np.where(mask.numpy(), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), p @ v.numpy(), rtol=1e-5, atol=1e-6)
