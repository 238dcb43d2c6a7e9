"""The legacy typed-tensor classes (torch.FloatTensor, torch.LongTensor, ..., torch.cuda.FloatTensor),
Tensor.type(str | type) and set_default_tensor_type with them, each against PyTorch where installed."""
import warnings

import numpy as np
import pytest

import npgrad

try:
    import torch
    HAS_TORCH = True
except ImportError:  # pragma: no cover
    torch = None
    HAS_TORCH = False

LIBS = ["npgrad"] + (["torch"] if HAS_TORCH else [])
NAMES = {"DoubleTensor": "float64", "FloatTensor": "float32", "HalfTensor": "float16", "LongTensor": "int64",
         "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8", "ByteTensor": "uint8",
         "BoolTensor": "bool"}


def _lib(name):
    return npgrad if name == "npgrad" else torch


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e), str(e).split("\n")[0]
    return None


def test_types_exist_with_their_dtypes():
    for name, dt in NAMES.items():
        cls = getattr(npgrad, name)
        assert cls.dtype is getattr(npgrad, dt) and not cls.is_cuda and not cls.is_sparse
        assert cls.layout is npgrad.strided and isinstance(cls, type)
        assert getattr(npgrad.cuda, name).is_cuda and getattr(npgrad.cuda, name).dtype is cls.dtype
    assert hasattr(npgrad, "BFloat16Tensor") == hasattr(npgrad, "bfloat16")
    assert npgrad.FloatTensor.zero_ is npgrad.Tensor.zero_


@pytest.mark.parametrize("libname", LIBS)
def test_construction_from_sizes_and_data(libname):
    lib = _lib(libname)
    assert lib.LongTensor(3, 4).shape == (3, 4) and lib.LongTensor(3, 4).dtype == lib.int64
    assert lib.FloatTensor().shape == (0,) and lib.FloatTensor(0).shape == (0,)
    assert lib.FloatTensor(lib.Size([2, 3])).shape == (2, 3) and lib.IntTensor(np.int64(2), 0).shape == (2, 0)
    assert lib.FloatTensor(size=(2, 3)).shape == (2, 3)
    assert lib.ShortTensor(np.array(3)).shape == (3,)  # a 0-d integer array is a size
    assert lib.FloatTensor(lib.zeros(2, dtype=lib.int64).sum() + 2, 3).shape == (2, 3)
    assert lib.FloatTensor((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data, a Size is a shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyTorch: "a list of numpy.ndarrays is extremely slow"
        t = lib.FloatTensor([np.array([1, 2]), np.array([3, 4])])
    assert _dtype_name(t) == "float32" and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert lib.LongTensor(np.array([1.7, -2.5])).tolist() == [1, -2]
    assert lib.BoolTensor([0, 2]).tolist() == [False, True]
    assert lib.DoubleTensor(range(3)).tolist() == [0.0, 1.0, 2.0] and lib.DoubleTensor(data=[1]).tolist() == [1.0]
    assert lib.HalfTensor([70000]).tolist() == [float("inf")]
    assert lib.FloatTensor([lib.tensor(1.0), lib.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert type(lib.FloatTensor(2)) is lib.Tensor


@pytest.mark.parametrize("libname", LIBS)
def test_from_a_tensor_or_array_shares_memory(libname):
    lib = _lib(libname)
    x = lib.ones(2, requires_grad=True)
    y = lib.FloatTensor(x)
    assert y is not x and y.requires_grad
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    a = np.ones(2, np.float32)
    t = lib.FloatTensor(a)
    a[0] = 5
    assert t[0].item() == 5.0  # same dtype: the array's memory
    b = np.ones(2)
    u = lib.FloatTensor(b)
    b[0] = 5
    assert u[0].item() == 1.0  # converted: a copy


# Each refusal, with PyTorch's exception type and first line (the signature list that follows is the same).
BAD = [
    ("F(3.5)", lambda lib: lib.FloatTensor(3.5)),
    ("F(True)", lambda lib: lib.FloatTensor(True)),
    ("F(None)", lambda lib: lib.FloatTensor(None)),
    ("F(np.float64)", lambda lib: lib.FloatTensor(np.float64(3))),
    ("F(gen)", lambda lib: lib.FloatTensor(x for x in [1])),
    ("F(set)", lambda lib: lib.FloatTensor({1, 2})),
    ("F(str)", lambda lib: lib.FloatTensor("a")),
    ("F(bytes)", lambda lib: lib.FloatTensor(b"a")),
    ("F(-1)", lambda lib: lib.FloatTensor(-1)),
    ("F(3, 4.0)", lambda lib: lib.FloatTensor(3, 4.0)),
    ("F(1, [2])", lambda lib: lib.FloatTensor(1, [2])),
    ("F([1], [2])", lambda lib: lib.FloatTensor([1], [2])),
    ("F(t, 3)", lambda lib: lib.FloatTensor(lib.ones(2), 3)),
    ("F(2, dtype)", lambda lib: lib.FloatTensor(2, dtype=lib.float64)),
    ("F(size=2)", lambda lib: lib.FloatTensor(size=2)),
    ("F(f64 tensor)", lambda lib: lib.FloatTensor(lib.ones(2, dtype=lib.float64))),
    ("L(0-d f tensor)", lambda lib: lib.LongTensor(lib.tensor(3.0))),
    ("F(t, device)", lambda lib: lib.FloatTensor(lib.ones(2), device="cpu")),
    ("F(2, cuda)", lambda lib: lib.FloatTensor(2, device="cuda")),
    ("F([[1], [2, 3]])", lambda lib: lib.FloatTensor([[1], [2, 3]])),
    ("B([-1, 300])", lambda lib: lib.ByteTensor([-1, 300])),
    ("I([1e10])", lambda lib: lib.IntTensor([1e10])),
    ("L([nan])", lambda lib: lib.LongTensor([float("nan")])),
    ("F([1+2j])", lambda lib: lib.FloatTensor([1 + 2j])),
    ("cuda.F(2)", lambda lib: lib.cuda.FloatTensor(2)),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_refusals(case):
    got = _raises(lambda: case[1](npgrad))
    assert got is not None
    if HAS_TORCH:
        want = _raises(lambda: case[1](torch))
        assert got[0] is want[0] and got[1] == want[1].replace("torch.", "torch.")


@pytest.mark.parametrize("libname", LIBS)
def test_isinstance_and_issubclass(libname):
    lib = _lib(libname)
    f32, f64 = lib.ones(2), lib.ones(2, dtype=lib.float64)
    assert isinstance(f32, lib.FloatTensor) and not isinstance(f64, lib.FloatTensor)
    assert isinstance(f64, lib.DoubleTensor) and isinstance(lib.nn.Parameter(f32), lib.FloatTensor)
    assert isinstance(lib.tensor([1]), lib.LongTensor) and isinstance(lib.tensor([True]), lib.BoolTensor)
    assert not isinstance(np.ones(2, np.float32), lib.FloatTensor) and not isinstance(3.0, lib.FloatTensor)
    assert not isinstance(f32, lib.cuda.FloatTensor)
    assert isinstance(f32, (lib.cuda.FloatTensor, lib.FloatTensor))
    assert issubclass(lib.FloatTensor, lib.FloatTensor) and not issubclass(lib.FloatTensor, lib.Tensor)
    assert not issubclass(lib.Tensor, lib.FloatTensor) and not issubclass(lib.FloatTensor, lib.DoubleTensor)
    assert {lib.FloatTensor: 1}[lib.FloatTensor] == 1


@pytest.mark.parametrize("libname", LIBS)
def test_tensor_type_casts(libname):
    lib = _lib(libname)
    t = lib.ones(2)
    assert t.type() == "torch.FloatTensor" and t.type(lib.FloatTensor) is t and t.type("torch.FloatTensor") is t
    for target in (lib.DoubleTensor, "torch.DoubleTensor", lib.float64):
        assert t.type(target).dtype == lib.float64
    assert t.type(dtype=lib.LongTensor).dtype == lib.int64 and t.type(lib.IntTensor, True).dtype == lib.int32
    assert t.type("torch.ComplexFloatTensor").dtype == lib.complex64
    assert t.double().type(lib.Tensor).dtype == lib.float32 and t.double().type("torch.Tensor").dtype == lib.float32
    x = lib.ones(2, requires_grad=True)
    (x.type(lib.DoubleTensor) * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and x.grad.dtype == lib.float32


TYPE_BAD = [lambda lib: lib.ones(1).type("foo"), lambda lib: lib.ones(1).type("torch.FooTensor"),
            lambda lib: lib.ones(1).type(int), lambda lib: lib.ones(1).type(np.float32),
            lambda lib: lib.ones(1).type(lib.nn.Parameter), lambda lib: lib.ones(1).type(3),
            lambda lib: lib.ones(1).type("torch.cuda.FloatTensor"), lambda lib: lib.ones(1).type(lib.cuda.LongTensor)]


@pytest.mark.parametrize("i", range(len(TYPE_BAD)))
def test_type_refusals(i):
    got = _raises(lambda: TYPE_BAD[i](npgrad))
    assert got is not None and got[0] in (ValueError, TypeError, RuntimeError)
    if HAS_TORCH:
        assert got == _raises(lambda: TYPE_BAD[i](torch))


@pytest.mark.parametrize("libname", LIBS)
def test_set_default_tensor_type(libname):
    lib = _lib(libname)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # deprecated since PyTorch 2.1
            lib.set_default_tensor_type(lib.DoubleTensor)
            assert lib.get_default_dtype() == lib.float64 and lib.tensor([1.0]).dtype == lib.float64
            assert lib.ones(1).type() == "torch.DoubleTensor"
            lib.set_default_tensor_type(lib.HalfTensor)
            assert lib.get_default_dtype() == lib.float16
            lib.set_default_tensor_type("torch.FloatTensor")
            assert lib.get_default_dtype() == lib.float32
        for bad, msg in [(lib.LongTensor, "only floating-point types are supported as the default type"),
                         (lib.cuda.FloatTensor, "type torch.cuda.FloatTensor not available. Torch not compiled "
                                                "with CUDA enabled."),
                         (lib.Tensor, "invalid type object: only floating-point types are supported as the "
                                      "default type")]:
            with pytest.raises(TypeError, match="^" + msg.replace(".", r"\.") + "$"):
                lib.set_default_tensor_type(bad)
    finally:
        lib.set_default_dtype(lib.float32)
