"""bfloat16 and float8 (ml_dtypes): dtype facts, promotion, arithmetic computed in float32 and rounded once,
gradients, conversions and checkpoints; against PyTorch where installed, against NumPy/ml_dtypes always."""
import os

import ml_dtypes
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
    HAS_TORCH = True
except ImportError:  # pragma: no cover - depends on the machine
    torch = TF = None
    HAS_TORCH = False

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
LOW = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
       "complex128"] + LOW
BF = ml_dtypes.bfloat16
rng = np.random.default_rng(0)


def _bf(a):
    return npgrad.tensor(a).bfloat16()


def _f32(t):
    return np.asarray(t.detach().float())


@pytest.mark.parametrize("name", LOW)
def test_dtype_facts(name):
    d = getattr(npgrad, name)
    assert d.is_floating_point and not d.is_complex
    assert d.itemsize == np.dtype(getattr(ml_dtypes, name)).itemsize
    x = npgrad.zeros(2, dtype=d)
    assert x.dtype is d and x.is_floating_point() and x.element_size() == d.itemsize
    if HAS_TORCH:
        td = getattr(torch, name)
        assert (d.itemsize, d.is_signed) == (td.itemsize, td.is_signed)
        assert repr(npgrad.finfo(d)) == repr(torch.finfo(td))
        assert x.type() == torch.zeros(2, dtype=td).type()


@needs_torch
def test_promotion_table_matches_torch():
    for a in ALL:
        for b in ALL:
            try:
                want = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).replace("torch.", "")
            except RuntimeError as e:
                with pytest.raises(RuntimeError, match=str(e)):
                    npgrad.promote_types(getattr(npgrad, a), getattr(npgrad, b))
                continue
            assert npgrad.promote_types(getattr(npgrad, a), getattr(npgrad, b)).name == want, (a, b)


@pytest.mark.parametrize("other, want", [(lambda: npgrad.ones(3, dtype=npgrad.float16), "float32"),
                                         (lambda: npgrad.ones(3), "float32"),
                                         (lambda: npgrad.tensor(2.0), "bfloat16"),
                                         (lambda: npgrad.tensor(2.0, dtype=npgrad.float64), "bfloat16"),
                                         (lambda: npgrad.ones(3, dtype=npgrad.int64), "bfloat16"),
                                         (lambda: 1.5, "bfloat16"), (lambda: 2, "bfloat16")])
def test_category_rules(other, want):
    # a 0-d tensor or a Python number decides only the category; dimensioned floats decide the width
    o = other()
    assert (npgrad.ones(3, dtype=npgrad.bfloat16) + o).dtype.name == want
    if HAS_TORCH:
        to = torch.tensor(np.asarray(o)) if isinstance(o, npgrad.Tensor) and o.dtype != npgrad.float16 else \
            (torch.ones(3, dtype=torch.float16) if isinstance(o, npgrad.Tensor) else o)
        if isinstance(o, npgrad.Tensor) and o.dim() == 0:
            to = torch.tensor(o.item(), dtype=getattr(torch, o.dtype.name))
        assert str((torch.ones(3, dtype=torch.bfloat16) + to).dtype) == "torch." + want


def _round_once(fn, *arrs):
    """The NumPy oracle: compute in float32 from the bfloat16 values, round once."""
    return fn(np, *[a.astype(BF).astype(np.float32) for a in arrs]).astype(BF).astype(np.float32)


@pytest.mark.parametrize("fn", [lambda L, a, b: a + b, lambda L, a, b: a * b, lambda L, a, b: a / b,
                                lambda L, a, b: L.exp(a), lambda L, a, b: L.tanh(a), lambda L, a, b: a @ b.T,
                                lambda L, a, b: a.sum(1), lambda L, a, b: a.sum(), lambda L, a, b: a[0].sum(0)])
def test_computed_in_float32_rounded_once(fn):
    a, b = rng.standard_normal((6, 40)).astype(np.float32), rng.standard_normal((6, 40)).astype(np.float32) + 3
    got = fn(npgrad, _bf(a), _bf(b))
    assert got.dtype is npgrad.bfloat16
    np.testing.assert_array_equal(_f32(got), _round_once(fn, a, b))


# (name, torch/npgrad function, input shapes, exact: elementwise ops are bit-exact; reductions within bf16 ulps)
OPS = [("add", lambda L, F_, a, b: a + b, [(5, 7), (5, 7)], True),
       ("mul", lambda L, F_, a, b: a * b * 1.5, [(5, 7), (5, 7)], True),
       ("div", lambda L, F_, a, b: a / (b.abs() + 1), [(5, 7), (5, 7)], True),
       ("exp", lambda L, F_, a: a.exp(), [(5, 7)], True),
       ("tanh", lambda L, F_, a: a.tanh(), [(5, 7)], True),
       ("softmax", lambda L, F_, a: F_.softmax(a, -1), [(5, 7)], False),
       ("sum", lambda L, F_, a: a.sum(1), [(5, 64)], False),
       ("mean", lambda L, F_, a: a.mean(), [(5, 64)], False),
       ("matmul", lambda L, F_, a, b: a @ b, [(5, 32), (32, 6)], False),
       ("linear", lambda L, F_, a, w, b: F_.linear(a, w, b), [(5, 32), (6, 32), (6,)], False),
       ("conv2d", lambda L, F_, a, w: F_.conv2d(a, w, padding=1), [(2, 3, 6, 6), (4, 3, 3, 3)], False),
       ("layer_norm", lambda L, F_, a: F_.layer_norm(a, (16,)), [(5, 16)], False)]


@needs_torch
@pytest.mark.parametrize("name, fn, shapes, exact", OPS, ids=[o[0] for o in OPS])
def test_ops_match_torch_bfloat16(name, fn, shapes, exact):
    arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    xs = [_bf(a).requires_grad_() for a in arrs]
    ts = [torch.tensor(a).bfloat16().requires_grad_() for a in arrs]
    y, ty = fn(npgrad, F, *xs), fn(torch, TF, *ts)
    assert y.dtype is npgrad.bfloat16 and ty.dtype == torch.bfloat16
    tol = dict(rtol=0, atol=0) if exact else dict(rtol=2 ** -6, atol=2 ** -7)  # exact, or ~2 bf16 ulps
    np.testing.assert_allclose(_f32(y), ty.detach().float().numpy(), **tol)
    up = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    (y.float() * npgrad.tensor(up)).sum().backward()
    (ty.float() * torch.tensor(up)).sum().backward()
    for x, t in zip(xs, ts):
        assert x.grad.dtype is npgrad.bfloat16
        scale = max(1.0, float(np.abs(t.grad.float().numpy()).max()))
        np.testing.assert_allclose(_f32(x.grad), t.grad.float().numpy(), rtol=2 ** -5, atol=2 ** -5 * scale)


def test_cross_entropy_and_gradients_without_torch():
    # float64 reference of the same bfloat16 inputs: the loss rounded once, the gradient in bfloat16
    a = rng.standard_normal((6, 5)).astype(np.float32)
    tgt = rng.integers(0, 5, 6)
    x = _bf(a).requires_grad_()
    loss = F.cross_entropy(x, npgrad.tensor(tgt))
    v = a.astype(BF).astype(np.float64)
    p = np.exp(v - v.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    assert loss.dtype is npgrad.bfloat16
    assert abs(loss.item() - (-np.log(p[np.arange(6), tgt]).mean())) <= 2 ** -7 * abs(loss.item())
    loss.backward()
    p[np.arange(6), tgt] -= 1
    assert x.grad.dtype is npgrad.bfloat16
    np.testing.assert_allclose(_f32(x.grad), p / 6, atol=2 ** -9)


def test_conversions_and_printing():
    x = npgrad.tensor([1.0, 2.5, 3.3], dtype=npgrad.bfloat16)
    assert x.tolist() == [1.0, 2.5, float(np.float32(3.3).astype(BF))]
    assert type(x[0].item()) is float and x[1].item() == 2.5 and float(x[2]) == x.tolist()[2]
    assert repr(x) == "tensor([1.0000, 2.5000, 3.2969], dtype=npgrad.bfloat16)"
    assert x.to(npgrad.float32).dtype is npgrad.float32 and x.float().bfloat16().dtype is npgrad.bfloat16
    assert x.type(npgrad.bfloat16) is x and x.type() == "torch.BFloat16Tensor"
    for fn in (lambda: x.numpy(), lambda: np.asarray(x)):
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            fn()
    if HAS_TORCH:
        t = torch.tensor([1.0, 2.5, 3.3], dtype=torch.bfloat16)
        assert repr(x).replace("npgrad", "torch") == repr(t) and x.tolist() == t.tolist()
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            t.numpy()


def test_float8_storage_and_refused_promotion():
    x = npgrad.tensor([0.5, 1.0, 300.0], dtype=npgrad.float8_e4m3fn)
    assert x.float().tolist() == np.array([0.5, 1.0, 300.0], np.float32).astype(ml_dtypes.float8_e4m3fn).astype(
        np.float32).tolist()
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported, attempted to promote "
                                           "Float8_e4m3fn and Float"):
        npgrad.promote_types(npgrad.float8_e4m3fn, npgrad.float32)


@needs_torch
def test_checkpoints_both_ways(tmp_path):
    from safetensors.torch import load_file, save_file
    vals = [1.5, -2.25, 3.3, 1e-3]
    x, t = npgrad.tensor(vals, dtype=npgrad.bfloat16), torch.tensor(vals, dtype=torch.bfloat16)
    torch.save({"w": t}, os.path.join(tmp_path, "t.pt"))
    got = npgrad.load(os.path.join(tmp_path, "t.pt"))["w"]
    assert got.dtype is npgrad.bfloat16 and got.tolist() == t.tolist()
    npgrad.save({"w": x}, os.path.join(tmp_path, "n.pt"), format="torch")
    back = torch.load(os.path.join(tmp_path, "n.pt"))["w"]
    assert back.dtype == torch.bfloat16 and back.tolist() == x.tolist()
    npgrad.serialization.save_safetensors({"w": x}, os.path.join(tmp_path, "n.safetensors"))
    assert load_file(os.path.join(tmp_path, "n.safetensors"))["w"].tolist() == x.tolist()
    save_file({"w": t}, os.path.join(tmp_path, "t.safetensors"))
    got = npgrad.serialization.load_safetensors(os.path.join(tmp_path, "t.safetensors"))["w"]
    assert got.dtype is npgrad.bfloat16 and got.tolist() == t.tolist()


SPECIAL = [0.0, -0.0, 1e-9, 0.3, 1.7, 300.0, 1000.0, 1e5, float("inf"), -float("inf"), float("nan"), 1e-40, -7.5]


@pytest.mark.parametrize("name", LOW)
def test_conversions_round_as_torch(name):
    # float8_e4m3fn saturates at +-448 and float8_e8m0fnu keeps |x|'s exponent (0 -> 2**-127) in PyTorch
    got = [npgrad.tensor(SPECIAL).to(getattr(npgrad, name)).float().tolist(),
           npgrad.tensor(SPECIAL, dtype=getattr(npgrad, name)).float().tolist()]
    np.testing.assert_array_equal(got[0], got[1])
    if name == "float8_e4m3fn":
        assert got[0][6:10] == [448.0, 448.0, 448.0, -448.0]
    if name == "float8_e8m0fnu":
        assert got[0][0] == 2.0 ** -127 and got[0][12] == 8.0
    if HAS_TORCH:
        want = torch.tensor(SPECIAL).to(getattr(torch, name)).float().tolist()
        for g in got:
            np.testing.assert_array_equal(g, want)


def test_onnx_export_keeps_bfloat16(tmp_path):
    onnx = pytest.importorskip("onnx")
    m = npgrad.nn.Linear(4, 3).to(npgrad.bfloat16)
    path = os.path.join(tmp_path, "m.onnx")
    npgrad.onnx.export(m, (npgrad.randn(2, 4).bfloat16(),), path)
    model = onnx.load(path)
    onnx.checker.check_model(model)
    g = model.graph
    bf = onnx.TensorProto.BFLOAT16
    assert [i.type.tensor_type.elem_type for i in g.input] == [bf] and {i.data_type for i in g.initializer} == {bf}
    assert [o.type.tensor_type.elem_type for o in g.output] == [bf]
    w = onnx.numpy_helper.to_array([i for i in g.initializer if i.name == "weight"][0])
    np.testing.assert_array_equal(w.astype(np.float32), np.asarray(m.weight.detach().float()))


MORE = {"max_pool2d": lambda L, F_, x: F_.max_pool2d(x[None, None], 2), "avg_pool2d": lambda L, F_, x: F_.avg_pool2d(
            x[None, None], 2), "lerp": lambda L, F_, x: L.lerp(x, x * 2, 0.3), "round": lambda L, F_, x: (x * 3).round(),
        "erfinv": lambda L, F_, x: (x / 5).erfinv(), "cumsum": lambda L, F_, x: x.cumsum(0),
        "addcdiv": lambda L, F_, x: L.addcdiv(x, x, x.abs() + 1, value=0.5), "sort": lambda L, F_, x: x.sort(1)[0]}


@needs_torch
@pytest.mark.parametrize("name", sorted(MORE))
def test_more_ops_match_torch_forward(name):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    y, ty = MORE[name](npgrad, F, _bf(a)), MORE[name](torch, TF, torch.tensor(a).bfloat16())
    assert str(ty.dtype) == "torch." + y.dtype.name
    np.testing.assert_allclose(_f32(y), ty.float().numpy(), rtol=2 ** -7, atol=2 ** -7)


@needs_torch
def test_linear_algebra_refuses_bfloat16_as_torch():
    for lib in (npgrad, torch):
        with pytest.raises((RuntimeError, NotImplementedError), match="BFloat16"):
            lib.linalg.det(lib.eye(3).bfloat16())


def test_torch_format_round_trip_without_torch(tmp_path):
    x = npgrad.tensor([1.5, -2.25, 3.3, 1e-3], dtype=npgrad.bfloat16)
    path = os.path.join(tmp_path, "n.pt")
    npgrad.save({"w": x, "v": x[1:3]}, path, format="torch")
    back = npgrad.load(path)
    assert back["w"].dtype is npgrad.bfloat16 and back["w"].tolist() == x.tolist()
    assert back["v"].tolist() == x.tolist()[1:3]
