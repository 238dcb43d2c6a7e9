"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from collections import OrderedDict

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from oracle import HAS_TORCH, torch


def test_sequential_indexing_slicing_and_mutation():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c] and list(sub._modules) == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    x = npgrad.randn(4, 2)
    np.testing.assert_allclose(s(x).detach().numpy(), c(b(a(x))).detach().numpy())
    s.append(nn.Sigmoid())
    assert len(s) == 4 and list(s._modules) == ["0", "1", "2", "3"]
    del s[1]
    assert list(s._modules) == ["0", "1", "2"] and s[1] is c
    s[1] = nn.Tanh()
    assert isinstance(s[1], nn.Tanh)
    s.insert(0, nn.Identity())
    assert isinstance(s[0], nn.Identity) and len(s) == 4
    s.extend([nn.ReLU()])
    assert len(s) == 5
    assert isinstance(s.pop(0), nn.Identity) and len(s) == 4
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert named.fc is named[0] and list(named.state_dict()) == ["fc.weight", "fc.bias"]
    doubled = named + named
    assert len(doubled) == 4
    assert len(named * 2) == 4


def test_module_list():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.ReLU())
    layers.extend([nn.Tanh()])
    layers.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in layers] == ["Linear", "Sigmoid", "Linear", "Linear", "ReLU", "Tanh"]
    assert isinstance(layers[-1], nn.Tanh)
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    del layers[1]
    assert list(layers._modules) == [str(i) for i in range(5)]
    layers += nn.ModuleList([nn.GELU()])
    assert len(layers) == 6
    assert isinstance(layers.pop(-1), nn.GELU)
    with pytest.raises(IndexError, match="index 10 is out of range"):
        layers[10]
    with pytest.raises(TypeError):
        layers.extend(3)


def test_module_dict():
    d = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    assert list(d.keys()) == ["a", "b"] and "a" in d and len(d) == 2
    d["c"] = nn.Tanh()
    assert list(d) == ["a", "b", "c"]
    assert isinstance(d.pop("b"), nn.ReLU) and list(d) == ["a", "c"]
    d.update([("e", nn.Identity())])
    assert list(d.state_dict()) == ["a.weight", "a.bias"]
    assert [k for k, _ in d.items()] == ["a", "c", "e"]
    d.clear()
    assert len(d) == 0


def test_parameter_list_and_dict():
    pl = nn.ParameterList([nn.Parameter(npgrad.ones(2)), npgrad.zeros(3)])
    assert len(pl) == 2 and all(isinstance(p, nn.Parameter) for p in pl)  # plain tensors are wrapped
    pl.append(npgrad.ones(1))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert pl[-1].shape == (1,)
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl(1)
    pd = nn.ParameterDict({"b": npgrad.ones(2), "a": nn.Parameter(npgrad.zeros(1))})
    assert list(pd.keys()) == ["a", "b"]  # a plain dict is sorted, as in PyTorch
    pd["c"] = npgrad.ones(3)
    assert isinstance(pd["c"], nn.Parameter) and "c" in pd and len(pd) == 3
    assert list(pd.state_dict()) == ["a", "b", "c"]
    del pd["a"]
    assert list(pd) == ["b", "c"]
    assert pd.get("zz") is None and isinstance(pd.pop("b"), nn.Parameter)

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([npgrad.ones(2) for _ in range(2)])
    assert [n for n, _ in Holder().named_parameters()] == ["ps.0", "ps.1"]


if HAS_TORCH:
    def test_container_reprs_match_torch():
        for make in [lambda l: l.nn.ModuleList([l.nn.Linear(2, 2), l.nn.Linear(2, 2), l.nn.ReLU(), l.nn.Linear(2, 2)]),
                     lambda l: l.nn.ModuleList(),
                     lambda l: l.nn.Sequential(l.nn.Linear(2, 2), l.nn.Linear(2, 2)),
                     lambda l: l.nn.ModuleDict({"x": l.nn.Linear(1, 1)})]:
            assert repr(make(npgrad)) == repr(make(torch))
        sd_keys = lambda l: list(l.nn.Sequential(l.nn.ModuleList([l.nn.Linear(2, 2)]),
                                                 l.nn.ModuleDict({"k": l.nn.Linear(2, 1)})).state_dict())
        assert sd_keys(npgrad) == sd_keys(torch)


def _container_ops(L):
    """Container edits whose outcome (keys, types, reprs, errors) is compared with PyTorch's."""
    nn_ = L.nn
    out = []

    def attempt(fn):
        try:
            out.append(fn())
        except Exception as e:
            out.append(f"{type(e).__name__}: {e}")

    ml = nn_.ModuleList([nn_.ReLU(), nn_.Tanh()])
    ml.insert(5, nn_.Sigmoid())
    out.append(list(ml._modules))
    attempt(lambda: nn_.ModuleList([nn_.ReLU()]).insert(-1, nn_.Tanh()))
    out.append(repr(nn_.ModuleList([nn_.ReLU(), nn_.ReLU(), nn_.Tanh(), nn_.ReLU(), nn_.ReLU(), nn_.ReLU()])))
    seq = nn_.Sequential(OrderedDict([("a", nn_.ReLU()), ("b", nn_.Tanh()), ("c", nn_.Sigmoid())]))
    out += [list(seq[1:]._modules), list((seq * 2)._modules), repr(seq[::2])]
    del seq[0:2]
    out.append(list(seq._modules))
    attempt(lambda: seq.insert(3, nn_.ReLU()))
    attempt(lambda: seq + [nn_.ReLU()])
    attempt(lambda: seq * 0)
    out.append([k for k in dir(nn_.Sequential(nn_.ReLU())) if k.isdigit()])
    md = nn_.ModuleDict()
    attempt(lambda: md.update([("x", nn_.ReLU()), ("y",)]))
    out.append(list(md))
    attempt(lambda: md.update([("z", nn_.ReLU()), 3]))
    attempt(lambda: md.update(5))
    md.update(nn_.ModuleDict({"w": nn_.Tanh()}))
    out.append(list(md))
    pd = nn_.ParameterDict({"b": L.ones(1), "a": L.zeros(2)})
    out.append(pd.popitem()[0])
    pd.setdefault("c", L.ones(3))
    out += [list(pd.copy()), list(pd.fromkeys(["p", "q"])), repr(pd)]
    attempt(lambda: pd.update(7))
    attempt(lambda: pd.update([("k", L.ones(1), 1)]))
    pl = nn_.ParameterList([L.ones(2), L.zeros(1, 3), L.ones(4)])
    out += [repr(pl[1:]), len(pl[::2])]
    attempt(lambda: pl[3])
    attempt(lambda: pl.extend(L.ones(2)))
    return out


def test_container_edits_without_torch():
    got = _container_ops(npgrad)
    assert got[0] == ["0", "1", "5"] and got[1].startswith("KeyError") and "(3-5): 3 x ReLU()" in got[2]
    assert got[3] == ["b", "c"] and got[4] == [str(i) for i in range(6)]


if HAS_TORCH:
    def test_container_edits_match_torch():
        ours = [o.replace("npgrad.", "torch.") if isinstance(o, str) else o for o in _container_ops(npgrad)]
        assert ours == _container_ops(torch)
