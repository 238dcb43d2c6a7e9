"""PyTorch's calling conventions: NumPy's keyword spellings (axis/keepdims), sizes by keyword, the index forms
PyTorch accepts, view(dtype). Each case runs the same call on npgrad and (when installed) PyTorch; without
PyTorch it is checked against the canonical spelling of the same call."""
import re
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.ops import _registry

try:
    import torch  # optional: the oracle
except ImportError:  # pragma: no cover
    torch = None

A = np.arange(12.0).reshape(3, 4)


def _t(lib):
    return lib.tensor(A)


# (id, call with the convention, the same call spelled canonically)
SPELLINGS = [
    ("sum_axis_keepdims", lambda L: _t(L).sum(axis=1, keepdims=True), lambda L: _t(L).sum(1, True)),
    ("torch_sum_axis", lambda L: L.sum(_t(L), axis=0), lambda L: L.sum(_t(L), 0)),
    ("mean_keepdims", lambda L: L.mean(_t(L), 1, keepdims=True), lambda L: L.mean(_t(L), 1, True)),
    ("prod_axis", lambda L: _t(L).prod(axis=1), lambda L: _t(L).prod(1)),
    ("max_axis", lambda L: L.max(_t(L), axis=0)[0], lambda L: L.max(_t(L), 0)[0]),
    ("amax_axis_keepdims", lambda L: L.amax(_t(L), axis=0, keepdims=True), lambda L: L.amax(_t(L), 0, True)),
    ("argmax_axis", lambda L: _t(L).argmax(axis=1), lambda L: _t(L).argmax(1)),
    ("std_axis", lambda L: _t(L).std(axis=0), lambda L: _t(L).std(0)),
    ("var_mean_axis", lambda L: L.var_mean(_t(L), axis=1)[0], lambda L: L.var_mean(_t(L), 1)[0]),
    ("logsumexp_axis", lambda L: L.logsumexp(_t(L), axis=1), lambda L: L.logsumexp(_t(L), 1)),
    ("all_axis", lambda L: (_t(L) > 2).all(axis=1), lambda L: (_t(L) > 2).all(1)),
    ("cumsum_axis", lambda L: _t(L).cumsum(axis=1), lambda L: _t(L).cumsum(1)),
    ("stack_axis", lambda L: L.stack([_t(L), _t(L)], axis=1), lambda L: L.stack([_t(L), _t(L)], 1)),
    ("cat_axis", lambda L: L.cat([_t(L), _t(L)], axis=1), lambda L: L.cat([_t(L), _t(L)], 1)),
    ("squeeze_axis", lambda L: _t(L)[None].squeeze(axis=0), lambda L: _t(L)[None].squeeze(0)),
    ("unsqueeze_axis", lambda L: L.unsqueeze(_t(L), axis=1), lambda L: L.unsqueeze(_t(L), 1)),
    ("softmax_axis", lambda L: L.softmax(_t(L), axis=1), lambda L: L.softmax(_t(L), 1)),
    ("sort_axis", lambda L: L.sort(_t(L), axis=0, descending=True)[0], lambda L: L.sort(_t(L), 0, True)[0]),
    ("topk_axis", lambda L: _t(L).topk(2, axis=0)[0], lambda L: _t(L).topk(2, 0)[0]),
    ("median_axis_keepdims", lambda L: L.median(_t(L), axis=1, keepdims=True)[0],
     lambda L: L.median(_t(L), 1, True)[0]),
    ("gather_axis", lambda L: L.gather(_t(L), axis=1, index=L.tensor([[0], [1], [2]])),
     lambda L: L.gather(_t(L), 1, L.tensor([[0], [1], [2]]))),
    ("index_select_axis", lambda L: L.index_select(_t(L), axis=1, index=L.tensor([0, 3])),
     lambda L: L.index_select(_t(L), 1, L.tensor([0, 3]))),
    ("diff_axis", lambda L: L.diff(_t(L), axis=0), lambda L: L.diff(_t(L), 1, 0)),
    ("reshape_shape_kw", lambda L: _t(L).reshape(shape=(4, 3)), lambda L: _t(L).reshape(4, 3)),
    ("torch_reshape_shape_kw", lambda L: L.reshape(_t(L), shape=(2, 6)), lambda L: L.reshape(_t(L), (2, 6))),
    ("view_size_kw", lambda L: _t(L).view(size=(6, 2)), lambda L: _t(L).view(6, 2)),
    ("permute_dims_kw", lambda L: _t(L).permute(dims=(1, 0)), lambda L: _t(L).permute(1, 0)),
    ("flip_dims_kw", lambda L: L.flip(_t(L), dims=(0,)), lambda L: _t(L).flip(0)),
    ("repeat_repeats_kw", lambda L: _t(L).repeat(repeats=(2, 1)), lambda L: _t(L).repeat(2, 1)),
    ("expand_size_kw", lambda L: _t(L)[:1].expand(size=(3, 4)), lambda L: _t(L)[:1].expand(3, 4)),
    ("broadcast_to_size_kw", lambda L: L.broadcast_to(_t(L)[:1], size=(2, 4)), lambda L: _t(L)[:1].expand(2, 4)),
    # the methods take sizes as varargs as well (torch.tile / torch.broadcast_to do not: CONFLICTS)
    ("tile_method_varargs", lambda L: _t(L).tile(2, 1), lambda L: L.tile(_t(L), (2, 1))),
    ("tile_method_varargs_more_dims", lambda L: _t(L).tile(1, 2, 1), lambda L: L.tile(_t(L), (1, 2, 1))),
    ("tile_method_dims_kw", lambda L: _t(L).tile(dims=(2, 1)), lambda L: L.tile(_t(L), (2, 1))),
    ("broadcast_to_method_varargs", lambda L: _t(L)[:1].broadcast_to(2, 4), lambda L: _t(L)[:1].expand(2, 4)),
    ("broadcast_to_method_size_kw", lambda L: _t(L)[:1].broadcast_to(size=(2, 4)), lambda L: _t(L)[:1].expand(2, 4)),
    ("zeros_size_kw", lambda L: L.zeros(size=(2, 3)), lambda L: L.zeros(2, 3)),
    ("ones_size_kw", lambda L: L.ones(size=[2]), lambda L: L.ones(2)),
    ("empty_size_kw_shape", lambda L: L.empty(size=(2, 5)).shape, lambda L: L.empty(2, 5).shape),
    ("view_dtype_kw", lambda L: _t(L).float().view(dtype=L.int32), lambda L: _t(L).float().view(L.int32)),
]


def _value(r):
    if isinstance(r, tuple) and not hasattr(r, "_fields"):
        return tuple(r)
    return r.detach().numpy() if hasattr(r, "detach") else np.asarray(r)


@pytest.mark.parametrize("call, canonical", [c[1:] for c in SPELLINGS], ids=[c[0] for c in SPELLINGS])
def test_spelling(call, canonical):
    got = _value(call(npgrad))
    np.testing.assert_array_equal(got, _value(canonical(npgrad)))
    if torch is not None:
        want = _value(call(torch))
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
        assert np.asarray(got).dtype == np.asarray(want).dtype


# Both spellings at once, or a size twice: a TypeError in both libraries.
CONFLICTS = [
    ("reshape_twice", lambda L: _t(L).reshape(3, 4, shape=(3, 4))),
    ("zeros_twice", lambda L: L.zeros(2, size=(2,))),
    ("sum_dim_and_axis", lambda L: L.sum(_t(L), dim=1, axis=1)),
    ("permute_twice", lambda L: _t(L).permute(1, 0, dims=(1, 0))),
    ("tile_twice", lambda L: _t(L).tile(2, dims=(1,))),
    ("broadcast_to_twice", lambda L: _t(L)[:1].broadcast_to(2, size=(2, 4))),
    ("tile_method_no_dims", lambda L: _t(L).tile()),
    ("broadcast_to_method_no_size", lambda L: _t(L).broadcast_to()),
    ("torch_tile_varargs", lambda L: L.tile(_t(L), 2, 1)),
    ("torch_broadcast_to_varargs", lambda L: L.broadcast_to(_t(L)[:1], 2, 4)),
]


@pytest.mark.parametrize("call", [c[1] for c in CONFLICTS], ids=[c[0] for c in CONFLICTS])
def test_conflicting_spellings_raise_type_error(call):
    with pytest.raises(TypeError):
        call(npgrad)
    if torch is not None:
        with pytest.raises(TypeError):
            call(torch)


def test_python_level_operators_do_not_take_numpy_spellings():
    # PyTorch writes norm/split/unique in Python: no axis there (a script using it fails on PyTorch too).
    for call in (lambda L: _t(L).norm(axis=1), lambda L: L.unique(_t(L), axis=0)):
        with pytest.raises(TypeError):
            call(npgrad)
        if torch is not None:
            with pytest.raises(TypeError):
                call(torch)


def test_every_operator_with_dim_takes_axis():
    npgrad.ops.load_lazy_families()
    import inspect
    for rec in _registry.RECORDS:
        try:
            params = inspect.signature(rec.fn).parameters
        except (TypeError, ValueError):
            continue
        if "dim" in params and rec.name not in _registry._PYTHON_LEVEL_IN_TORCH:
            assert "axis" in params or getattr(rec.fn, "__wrapped__", None) is not None, rec.name


# Index forms: (id, index)
INDICES = [
    ("nested_list_as_tuple", [[0, 1], [1, 2]]),
    ("list_with_slice", [0, slice(1, 3)]),
    ("list_with_none", [0, None]),
    ("list_of_one_list", [[0, 2]]),
    ("list_of_0d_tensors", "tensors"),
    ("plain_int_list", [0, 2]),
    ("bool_list", [True, False, True]),
    ("tuple_of_lists", ([0, 1], [1, 2])),
    ("mixed_tensor_and_list", "mixed"),
    ("ellipsis_none", (Ellipsis, None, 1)),
    ("zero_d_int_tensor", "zero_d"),
    ("range_index", range(0, 3, 2)),
]


def _index(lib, spec):
    if spec == "tensors":
        return [lib.tensor(0), lib.tensor(2)]
    if spec == "mixed":
        return (lib.tensor([0, 1]), [1, 2])
    if spec == "zero_d":
        return lib.tensor(1)
    return spec


def _numpy_index(spec):
    return {"tensors": (0, 2), "mixed": ([0, 1], [1, 2]), "zero_d": 1}.get(spec, spec) if isinstance(spec, str) \
        else (tuple(spec) if isinstance(spec, list) and any(isinstance(v, (list, slice)) or v is None for v in spec)
              else spec)


@pytest.mark.parametrize("spec", [c[1] for c in INDICES], ids=[c[0] for c in INDICES])
def test_index_forms(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = _t(npgrad)[_index(npgrad, spec)].numpy()
        np.testing.assert_array_equal(got, A[_numpy_index(spec)])
        x = _t(npgrad).clone()
        x[_index(npgrad, spec)] = -1.0
        expected = A.copy()
        expected[_numpy_index(spec)] = -1.0
        np.testing.assert_array_equal(x.numpy(), expected)
        if torch is not None:
            np.testing.assert_array_equal(got, _t(torch)[_index(torch, spec)].numpy())


def test_sequence_read_as_tuple_warns_like_pytorch():
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing is deprecated"):
        _t(npgrad)[[[0, 1], [1, 2]]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _t(npgrad)[[0, 1]]   # a plain list of ints is an index array: no warning


def test_view_dtype():
    x = npgrad.randn(2, 4, requires_grad=True)
    for dtype, shape in ((npgrad.int32, (2, 4)), (npgrad.float64, (2, 2)), (npgrad.int16, (2, 8)),
                         (npgrad.uint8, (2, 16)), (npgrad.bool, (2, 16))):
        y = x.view(dtype)
        assert y.dtype == dtype and tuple(y.shape) == shape and not y.requires_grad
        np.testing.assert_array_equal(y.numpy(), x.detach().numpy().view(y.numpy().dtype))
    a = npgrad.arange(4, dtype=npgrad.int32)
    a.view(npgrad.float32)[0] = 1.0            # the same memory
    assert a[0].item() == 1065353216
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1 to view Float as Double"):
        npgrad.randn(4, 3).t().view(npgrad.float64)
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view Float as Double"):
        npgrad.randn(3).view(npgrad.float64)
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0 to view Float as Short"):
        npgrad.randn(()).view(npgrad.int16)
    if torch is not None:
        t = torch.tensor(A, dtype=torch.float32)
        np.testing.assert_array_equal(npgrad.tensor(A, dtype=npgrad.float32).view(npgrad.int16).numpy(),
                                      t.view(torch.int16).numpy())


@pytest.mark.parametrize("name, arg", [("tile", "dims"), ("broadcast_to", "size")])
def test_sizes_method_without_sizes_message(name, arg):
    """PyTorch's message for the method called without its sizes (its parser's, not Python's)."""
    msg = f'{name}() missing 1 required positional arguments: "{arg}"'
    with pytest.raises(TypeError, match=re.escape(msg)):
        getattr(_t(npgrad), name)()
    if torch is not None:
        with pytest.raises(TypeError, match=re.escape(msg)):
            getattr(_t(torch), name)()
