"""PyTorch's type promotion: result dtypes of every dtype pair (dimensioned and 0-d tensors, Python and
NumPy scalars), the promote_types/result_type/can_cast functions, and the default dtype."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _elementwise_parity import check_forward, dtype_name

NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _arr(name, shape):
    base = np.array([1, 0, 1, 1, 0, 1][:int(np.prod(shape)) or 1]).reshape(shape)
    return base.astype(np.dtype(name))


@pytest.fixture
def default_float64():
    npgrad.set_default_dtype(npgrad.float64)
    if HAS_TORCH:
        torch.set_default_dtype(torch.float64)
    yield
    npgrad.set_default_dtype(npgrad.float32)
    if HAS_TORCH:
        torch.set_default_dtype(torch.float32)


def test_dtype_objects():
    for name in NAMES:
        d = getattr(npgrad, name)
        assert repr(d) == f"npgrad.{name}" and d.is_floating_point == (name.startswith("float"))
        assert d.itemsize == np.dtype(name).itemsize
    assert npgrad.float is npgrad.float32 and npgrad.double is npgrad.float64 and npgrad.half is npgrad.float16
    assert npgrad.long is npgrad.int64 and npgrad.int is npgrad.int32 and npgrad.short is npgrad.int16
    assert npgrad.uint8.is_signed is False and npgrad.int8.is_signed and npgrad.float16.is_signed
    assert npgrad.float32 == np.float32 and npgrad.int64 != npgrad.int32


def test_python_type_defaults():
    assert npgrad.tensor(1.5).dtype is npgrad.float32
    assert npgrad.tensor(2).dtype is npgrad.int64
    assert npgrad.tensor(True).dtype is npgrad.bool
    assert npgrad.tensor([1, 2.5]).dtype is npgrad.float32
    assert npgrad.tensor([True, 2]).dtype is npgrad.int64
    assert npgrad.tensor(np.array([1.0, 2.0])).dtype is npgrad.float64  # NumPy's float64 is kept
    assert npgrad.tensor(np.array([1, 2], np.int32)).dtype is npgrad.int32
    assert npgrad.zeros(2, dtype=float).dtype is npgrad.float64  # dtype=float means double, as in PyTorch
    assert npgrad.zeros(2, dtype=int).dtype is npgrad.int64 and npgrad.zeros(2, dtype=bool).dtype is npgrad.bool


def test_default_dtype_roundtrip(default_float64):
    assert npgrad.get_default_dtype() is npgrad.float64
    assert npgrad.tensor(1.5).dtype is npgrad.float64
    assert npgrad.zeros(2).dtype is npgrad.float64 and npgrad.rand(2).dtype is npgrad.float64
    assert npgrad.arange(0.0, 1.0, 0.5).dtype is npgrad.float64
    assert (npgrad.tensor([1, 2]) / 2).dtype is npgrad.float64
    assert (npgrad.tensor([1, 2]) * 1.5).dtype is npgrad.float64
    assert (npgrad.tensor([1.0], dtype=npgrad.float32) * 1.5).dtype is npgrad.float32


def test_set_default_dtype_rejects_integers():
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        npgrad.set_default_dtype(npgrad.int64)
    assert npgrad.get_default_dtype() is npgrad.float32


if HAS_TORCH:
    PAIRS = [(a, b) for a in NAMES for b in NAMES]

    @pytest.mark.parametrize("a, b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
    def test_promote_types_and_can_cast_match_torch(a, b):
        assert npgrad.promote_types(getattr(npgrad, a), getattr(npgrad, b)).name == \
            dtype_name(torch.empty(0, dtype=torch.promote_types(getattr(torch, a), getattr(torch, b))))
        assert npgrad.can_cast(getattr(npgrad, a), getattr(npgrad, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b))

    SHAPES = {"dim-dim": ((2, 3), (3,)), "dim-0d": ((2, 3), ()), "0d-dim": ((), (3,)), "0d-0d": ((), ())}
    BINARY = {
        "add": lambda lib, x, y: x + y, "mul": lambda lib, x, y: x * y, "div": lambda lib, x, y: x / y,
        "eq": lambda lib, x, y: x == y, "maximum": lambda lib, x, y: lib.maximum(x, y),
        "where": lambda lib, x, y: lib.where(lib.ones((), dtype=lib.bool), x, y),
    }

    @pytest.mark.parametrize("shapes", list(SHAPES), ids=str)
    @pytest.mark.parametrize("a, b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
    def test_binary_result_dtype_matches_torch(a, b, shapes):
        # 0-d tensors only decide the category (bool < int < float), never the width of dimensioned ones.
        sa, sb = SHAPES[shapes]
        xa, xb = _arr(a, sa), _arr(b, sb)
        for name, fn in BINARY.items():
            if name in ("add", "mul") and a == b == "bool":
                continue  # same-dtype bool add/mul are logical: covered in the arithmetic tests
            check_forward(fn, xa, xb, what=f"{name} {a}[{sa}] {b}[{sb}]")
        assert npgrad.result_type(npgrad.tensor(xa), npgrad.tensor(xb)).name == \
            dtype_name(torch.empty(0, dtype=torch.result_type(torch.tensor(xa), torch.tensor(xb))))

    # (np.bool_ is left out: PyTorch reads it as a float, which looks like an accident of its argument parser)
    SCALARS = [2, -3, 2.5, True, np.float64(0.5), np.float32(1.5), np.int64(3), np.int8(2)]

    @pytest.mark.parametrize("scalar", SCALARS, ids=repr)
    @pytest.mark.parametrize("a", NAMES)
    @pytest.mark.parametrize("zero_d", [False, True], ids=["dim", "0d"])
    def test_scalar_operands_match_torch(a, scalar, zero_d):
        # A Python or NumPy scalar is weaker still than a 0-d tensor.
        x = _arr(a, () if zero_d else (2, 3))
        for name, fn in {"add": lambda lib, t: t + scalar, "radd": lambda lib, t: scalar + t,
                         "mul": lambda lib, t: t * scalar, "truediv": lambda lib, t: t / scalar,
                         "rtruediv": lambda lib, t: scalar / t, "lt": lambda lib, t: t < scalar,
                         "where": lambda lib, t: lib.where(t != 0, t, scalar)}.items():
            if isinstance(scalar, (bool, np.bool_)) and a == "bool" and name in ("truediv", "rtruediv"):
                continue  # 1/False: same values, covered by the float division tests
            check_forward(fn, x, what=f"{name} {a} {scalar!r}")
        assert npgrad.result_type(npgrad.tensor(x), scalar).name == \
            dtype_name(torch.empty(0, dtype=torch.result_type(torch.tensor(x), scalar)))

    @pytest.mark.parametrize("a", NAMES)
    def test_result_type_of_scalars_and_defaults(a, default_float64):
        x = _arr(a, (2,))
        for fn in (lambda lib, t: t + 1.5, lambda lib, t: t / 2, lambda lib, t: t.exp() if t.dtype != lib.bool else t * 1.0,
                   lambda lib, t: lib.where(t != 0, t, 0.5)):
            check_forward(fn, x, what=a)

    @pytest.mark.filterwarnings("ignore:__array_wrap__ must accept context:DeprecationWarning")  # torch.Tensor's
    def test_numpy_array_operands_act_as_tensors():  # __array_wrap__ has NumPy 1's signature (PyTorch's warning)
        x = np.array([1.0, 2.0], np.float32)
        for other in (np.array([1.0, 2.0]), np.array([1.5, 2.5], np.float16)):
            check_forward(lambda lib, t: t * other, x)
            check_forward(lambda lib, t: t + lib.tensor(other), x)


def test_mixed_dtype_gradients_come_back_in_each_inputs_dtype():
    x = npgrad.tensor([1.0, 2.0], requires_grad=True)                         # float32
    y = npgrad.tensor([3.0, 4.0], dtype=npgrad.float64, requires_grad=True)    # float64
    z = npgrad.tensor(2.0, dtype=npgrad.float16, requires_grad=True)           # 0-d float16
    out = x * y + z * x
    assert out.dtype is npgrad.float64
    out.sum().backward()
    assert x.grad.dtype is npgrad.float32 and y.grad.dtype is npgrad.float64 and z.grad.dtype is npgrad.float16
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 6.0])
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(z.grad.numpy(), 3.0)


def test_integer_tensor_with_float_scalar_keeps_float32_graph():
    w = npgrad.tensor([0.5, 1.5], requires_grad=True)
    k = npgrad.tensor([1, 2])
    out = (k * 2.5 + w) * k / 3
    assert out.dtype is npgrad.float32
    out.sum().backward()
    assert w.grad.dtype is npgrad.float32
    np.testing.assert_allclose(w.grad.numpy(), [1 / 3, 2 / 3], rtol=1e-6)


@pytest.mark.parametrize("name, method", [("float32", "float"), ("float64", "double"), ("float16", "half"),
                                          ("int64", "long"), ("int32", "int"), ("int16", "short"),
                                          ("int8", "char"), ("uint8", "byte"), ("bool", "bool")])
def test_conversion_methods(name, method):
    x = npgrad.tensor([-1.7, 0.0, 2.5])
    r = getattr(x, method)()
    assert r.dtype is getattr(npgrad, name)
    assert x.to(getattr(npgrad, name)).dtype is r.dtype
    assert x.to(dtype=getattr(npgrad, name)).dtype is r.dtype
    assert x.type(getattr(npgrad, name)).dtype is r.dtype
    assert x.type_as(npgrad.zeros(1, dtype=getattr(npgrad, name))).dtype is r.dtype
    if HAS_TORCH:
        t = getattr(torch.tensor([-1.7, 0.0, 2.5]), method)()
        np.testing.assert_array_equal(r.numpy(), t.numpy())


def test_conversion_to_same_dtype_returns_self_and_copy_makes_new():
    x = npgrad.tensor([1.0, 2.0])
    assert x.float() is x and x.to(npgrad.float32) is x and x.to("cpu") is x
    y = x.to(npgrad.float32, copy=True)
    assert y is not x and y.tolist() == x.tolist()
    y += 1
    assert x.tolist() == [1.0, 2.0]


def test_cast_is_differentiable_and_grad_keeps_leaf_dtype():
    x = npgrad.tensor([1.0, 2.0], requires_grad=True)
    assert x.double().grad_fn.name() == "ToCopyBackward0"
    y = x.double() * npgrad.tensor([3.0, 4.0], dtype=npgrad.float64)
    assert y.dtype is npgrad.float64
    y.sum().backward()
    assert x.grad.dtype is npgrad.float32 and x.grad.tolist() == [3.0, 4.0]
    # A cast to an integer type leaves the graph, as in PyTorch.
    assert not x.long().requires_grad


def test_legacy_type_names():
    assert npgrad.tensor([1.0]).type() == "torch.FloatTensor"
    assert npgrad.tensor([1]).type() == "torch.LongTensor"
    assert npgrad.tensor([1.0]).type("torch.DoubleTensor").dtype is npgrad.float64
