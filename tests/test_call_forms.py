"""Call forms found by tools/overload_coverage.py: PyTorch's keyword names of the split family and of the
in-place view methods, and the Module dtype/sharing methods, each against PyTorch and by value."""
import pytest

import npgrad
from oracle import HAS_TORCH, torch

SPLITS = [  # (function, positional args, keyword args, the same call by position)
    ("tensor_split", (), dict(sections=3), (3,)), ("tensor_split", (), dict(indices=[1, 4]), ([1, 4],)),
    ("tensor_split", ((1, 4),), dict(dim=0), ((1, 4), 0)), ("tensor_split", (), dict(sections=2, dim=1), (2, 1)),
    ("hsplit", (), dict(sections=2), (2,)), ("hsplit", (), dict(indices=[1]), ([1],)),
    ("vsplit", (), dict(indices=[1, 3]), ([1, 3],)),
]
BAD_SPLITS = [("tensor_split", (), dict(sections=[1])), ("tensor_split", (), dict(indices_or_sections=2)),
              ("tensor_split", (), dict(indices=2)), ("hsplit", (), dict(tensor_indices_or_sections=[1])),
              ("tensor_split", (2, 1), dict(dim=1))]


def _shapes(lib, name, args, kwargs):
    x = lib.arange(24.0).reshape(6, 4)
    return [(tuple(p.shape), p.sum().item()) for p in getattr(lib, name)(x, *args, **kwargs)]


@pytest.mark.parametrize("name,args,kwargs,positional", SPLITS)
def test_split_keywords(name, args, kwargs, positional):
    got = _shapes(npgrad, name, args, kwargs)
    assert sum(n for _, n in got) == sum(range(24)) and len(got) > 1   # the pieces tile the tensor
    assert got == _shapes(npgrad, name, positional, {})
    if HAS_TORCH:
        assert got == _shapes(torch, name, args, kwargs)


@pytest.mark.parametrize("name,args,kwargs", BAD_SPLITS)
def test_split_refuses_other_combinations(name, args, kwargs):
    with pytest.raises(TypeError) as mine:
        _shapes(npgrad, name, args, kwargs)
    assert "received an invalid combination of arguments - got (Tensor" in str(mine.value)
    if HAS_TORCH:
        with pytest.raises(TypeError) as theirs:
            _shapes(torch, name, args, kwargs)
        assert str(mine.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("call,shape", [("squeeze_(dim=1)", (2, 3)), ("unsqueeze_(dim=0)", (1, 2, 1, 3)),
                                        ("transpose_(dim0=0, dim1=2)", (3, 1, 2))])
def test_inplace_view_methods_take_their_keywords(call, shape):
    for lib in (npgrad, torch) if HAS_TORCH else (npgrad,):
        x = lib.ones(2, 1, 3)
        assert eval(f"x.{call}", {"x": x}) is x and tuple(x.shape) == shape


def test_module_bfloat16_and_share_memory():
    m = npgrad.nn.Linear(3, 2)
    weight = m.weight
    assert m.bfloat16() is m and m.weight.dtype == npgrad.bfloat16 and m.bias.dtype == npgrad.bfloat16
    assert m(npgrad.ones(1, 3, dtype=npgrad.bfloat16)).dtype == npgrad.bfloat16
    m.float()
    assert m.share_memory() is m and m.weight is weight and m.weight.is_shared() and m.bias.is_shared()
    if HAS_TORCH:
        t = torch.nn.Linear(3, 2).bfloat16()
        assert str(t.weight.dtype).split(".")[1] == str(m.bfloat16().weight.dtype).split(".")[1]


@pytest.mark.parametrize("name", ["new_zeros", "new_ones", "new_empty"])
def test_new_factories_take_size_by_keyword(name):
    # **kw used to swallow size=, silently giving a 0-d tensor
    x = npgrad.ones(2, dtype=npgrad.float64)
    out = getattr(x, name)(size=(3, 2))
    assert tuple(out.shape) == (3, 2) and out.dtype == npgrad.float64
    assert tuple(getattr(x, name)((3, 2)).shape) == tuple(getattr(x, name)(3, 2).shape) == (3, 2)
    with pytest.raises(TypeError):
        getattr(x, name)(3, sizes=2)
    if HAS_TORCH:
        assert tuple(getattr(torch.ones(2), name)(size=(3, 2)).shape) == (3, 2)


@pytest.mark.parametrize("target", [[1.0, -1.0, 0.5, 2.0], [0.0, 0.0, 1.0, -1.0]])
def test_hinge_embedding_loss_for_any_target(target):
    # PyTorch's formula holds for every target value: x where y != -1, plus max(0, margin - x) where y != 1
    x = [0.3, 0.7, 1.5, -0.2]
    want = sum((xi if yi != -1 else 0.0) + (max(0.0, 1.0 - xi) if yi != 1 else 0.0) for xi, yi in zip(x, target)) / 4
    got = npgrad.nn.functional.hinge_embedding_loss(npgrad.tensor(x, dtype=npgrad.float64),
                                                     npgrad.tensor(target, dtype=npgrad.float64)).item()
    assert got == pytest.approx(want, rel=1e-12)
    if HAS_TORCH:
        ref = torch.nn.functional.hinge_embedding_loss(torch.tensor(x, dtype=torch.float64),
                                                       torch.tensor(target, dtype=torch.float64)).item()
        assert got == pytest.approx(ref, rel=1e-12)
