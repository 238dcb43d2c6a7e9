"""Targeted fixes checked against PyTorch: expand is a view (in-place changes to its base invalidate saved
values), mul/div save only what their backward reads, mT/mH/H on low-rank tensors, expand's error
wording, the CopySlices node of ``x[basic] = v``, and the print-options exports."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _table_tests import errors_like_torch_test

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])


def _outcome(fn, lib):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the outcome itself is what is compared
        return type(e).__name__, str(e).split(" Hint:")[0].split(", which is output")[0]
    return "ok", None if r is None else np.asarray(r.detach().numpy() if hasattr(r, "detach") else r)


# -- expand is a view of its input ----------------------------------------------------------------------------

def _expand_then_modify_base(lib):
    x = lib.ones(1, 3, requires_grad=True)
    y = x * 1
    e = y.expand(2, 3)
    z = e * e
    y.add_(1)
    z.sum().backward()
    return x.grad


def test_inplace_on_base_after_expand_raises():
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _expand_then_modify_base(npgrad)


def test_expand_shares_version_with_base_and_grads_still_flow():
    x = npgrad.ones(1, 3, requires_grad=True)
    y = x * 2
    e = y.expand(4, 3)
    assert e._version == y._version
    y.mul_(3)
    assert e._version == y._version
    (e * 1.0).sum().backward()  # e itself is not saved by a multiplication by a constant
    np.testing.assert_array_equal(x.grad.numpy(), [[24.0, 24.0, 24.0]])


if HAS_TORCH:
    def test_inplace_after_expand_matches_torch():
        assert _outcome(_expand_then_modify_base, npgrad)[0] == _outcome(_expand_then_modify_base, torch)[0]

    EXPAND_ERRORS = {
        "mismatch_last_dim_reported": lambda L: L.ones(3, 3).expand(2, 2),
        "too_few_sizes": lambda L: L.ones(2, 3).expand(3),
        "mismatch_first_dim": lambda L: L.ones(3, 1).expand(2, 4),
        "leading_minus_one": lambda L: L.ones(3).expand(-1, 3),
        "two_mismatches": lambda L: L.ones(2, 3).expand(3, 4),
    }

    test_expand_errors_match_torch = errors_like_torch_test(EXPAND_ERRORS)


# -- mul/div save only what their backward needs ---------------------------------------------------------------

SAVE_CASES = {
    "mul_const_other_row_modified": lambda L: _modify_other_row(L, lambda r: r * 3.0),
    "const_mul_row_modified": lambda L: _modify_other_row(L, lambda r: 3.0 * r),
    "div_by_const_row_modified": lambda L: _modify_other_row(L, lambda r: r / 3.0),
    "const_div_row_modified": lambda L: _modify_other_row(L, lambda r: 3.0 / r),
    "mul_by_detached_other_modified": lambda L: _modify_detached(L, lambda a, d: a * d),
    "div_by_detached_modified": lambda L: _modify_detached(L, lambda a, d: a / d),
    "detached_div_modified": lambda L: _modify_detached(L, lambda a, d: d / a),
}


def _modify_other_row(lib, f):
    x = lib.ones(3, 4, requires_grad=True)
    y = x * 1
    z = f(y[1])
    y[0] = 1.0
    z.sum().backward()
    return x.grad


def _modify_detached(lib, f):
    a = lib.full((3,), 2.0, requires_grad=True)
    d = lib.full((3,), 4.0)
    z = f(a, d)
    d.add_(1.0)  # `d` needs no gradient, but a's gradient may need it
    z.sum().backward()
    return a.grad


def test_mul_by_constant_survives_inplace_on_unused_operand():
    g = _modify_other_row(npgrad, lambda r: r * 3.0)
    np.testing.assert_array_equal(g.numpy(), [[0.0] * 4, [3.0] * 4, [0.0] * 4])


def test_mul_still_detects_modified_needed_operand():
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _modify_detached(npgrad, lambda a, d: a * d)


if HAS_TORCH:
    @pytest.mark.parametrize("name", sorted(SAVE_CASES))
    def test_saved_operands_match_torch(name):
        n, t = _outcome(SAVE_CASES[name], npgrad), _outcome(SAVE_CASES[name], torch)
        assert n[0] == t[0], (n, t)
        if n[0] == "ok":
            np.testing.assert_allclose(n[1], t[1], rtol=1e-6)


if HAS_TORCH:
    def test_scalar_over_tensor_rounds_as_torch():
        # PyTorch computes `scalar / tensor` as reciprocal(tensor) * scalar; float32 results differ in the last bit
        # from a true division for some values.
        vals = np.random.default_rng(0).uniform(0.5, 20.0, 200).astype(np.float32)
        for s in (3.0, 7, np.float64(0.1)):
            np.testing.assert_array_equal((s / npgrad.tensor(vals)).numpy(), (s / torch.tensor(vals)).numpy())
        assert (3 / npgrad.tensor([2, 4])).dtype == npgrad.float32


def test_mul_div_gradients_unchanged():
    for f in (lambda a, b: a * b, lambda a, b: a / b):
        a = npgrad.tensor([1.0, 2.0, 3.0], dtype=npgrad.float64, requires_grad=True)
        b = npgrad.tensor([0.5, -2.0, 4.0], dtype=npgrad.float64, requires_grad=True)
        f(a, b).sum().backward()
        an, bn = a.detach().numpy(), b.detach().numpy()
        eps = 1e-6
        ga = (f(an + eps, bn) - f(an - eps, bn)) / (2 * eps)
        gb = (f(an, bn + eps) - f(an, bn - eps)) / (2 * eps)
        np.testing.assert_allclose(a.grad.numpy(), ga, rtol=1e-7)
        np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-7)


# -- matrix transposes on 0-d / 1-d tensors ---------------------------------------------------------------------

def test_mT_of_0d_is_identity_with_warning():
    x = npgrad.tensor(1.5)
    with pytest.warns(UserWarning, match="Tensor.mT is deprecated on 0-D tensors"):
        y = x.mT
    assert y is x
    with pytest.warns(UserWarning, match="Tensor.mH is deprecated on 0-D tensors"):
        assert x.mH is x


if HAS_TORCH:
    TRANSPOSE_ERRORS = {
        "mT_1d": lambda L: L.ones(3).mT,
        "mH_1d": lambda L: L.ones(3).mH,
        "H_1d": lambda L: L.ones(3).H,
        "H_3d": lambda L: L.ones(2, 3, 4).H,
    }

    test_transpose_errors_match_torch = errors_like_torch_test(TRANSPOSE_ERRORS)

    def test_transposes_match_torch():
        a = np.arange(24.0).reshape(2, 3, 4)
        for attr in ("mT", "mH"):
            np.testing.assert_array_equal(getattr(npgrad.tensor(a), attr).numpy(),
                                          getattr(torch.tensor(a), attr).numpy())
        np.testing.assert_array_equal(npgrad.tensor(a[0]).H.numpy(), torch.tensor(a[0]).H.numpy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert npgrad.tensor(2.0).H.item() == torch.tensor(2.0).H.item()


# -- the node of x[index] = v ----------------------------------------------------------------------------------

SETITEM_INDICES = {
    "int": 0,
    "slice_int": (slice(None), 1),
    "int_list": (0, [0, 1]),
    "list": [0, 1],
    "partial_slice": (slice(1, None),),
    "ellipsis_int": (Ellipsis, 0),
    "slice_list": (slice(None), [0, 1]),
    "none": None,
}


def _setitem_node(lib, key):
    x = lib.ones(3, 4, requires_grad=True)
    y = x.clone()
    y[SETITEM_INDICES[key]] = 2.0
    y.sum().backward()
    return y.grad_fn.name(), x.grad.numpy()


def test_basic_setitem_node_is_copyslices():
    y = npgrad.ones(3, requires_grad=True).clone()
    y[0] = 2.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert "grad_fn=<CopySlices>" in repr(y)
    z = npgrad.ones(3, requires_grad=True).clone()
    z[[0, 2]] = 2.0
    assert z.grad_fn.name() == "IndexPutBackward0"


if HAS_TORCH:
    @pytest.mark.parametrize("key", sorted(SETITEM_INDICES))
    def test_setitem_node_and_grad_match_torch(key):
        (nn_, gn), (nt, gt) = _setitem_node(npgrad, key), _setitem_node(torch, key)
        assert nn_ == nt
        np.testing.assert_array_equal(gn, gt)


# -- print options -----------------------------------------------------------------------------------------------

def test_printoptions_exported():
    old = npgrad.get_printoptions()
    try:
        npgrad.set_printoptions(precision=2)
        assert npgrad.get_printoptions()["precision"] == 2
        assert "1.23" in repr(npgrad.tensor([1.23456]))
    finally:
        npgrad.set_printoptions(**{k: v for k, v in old.items() if k in ("precision", "threshold", "edgeitems",
                                                                         "linewidth", "sci_mode")})
    assert npgrad.get_printoptions() == old


# -- return_types ------------------------------------------------------------------------------------------------

def test_return_types_are_named_tuples_like_torch():
    import pickle
    rt = npgrad.return_types
    x = npgrad.tensor([[1.0, 5.0], [7.0, 2.0]])
    r = x.max(1)
    assert isinstance(r, rt.max) and isinstance(r, tuple) and type(r).__module__ == "npgrad.return_types"
    assert isinstance(npgrad.aminmax(x), rt.aminmax) and isinstance(x.min(0), rt.min)
    built = rt.max((r.values, r.indices))  # PyTorch's structseq form: one sequence
    assert built.values is r.values and built.indices is r.indices and rt.max.n_fields == 2
    again = pickle.loads(pickle.dumps(r))
    assert type(again) is rt.max and again.indices.tolist() == [1, 0]
    for name in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin", "slogdet", "qr",
                 "svd", "linalg_qr", "linalg_svd", "linalg_eigh", "linalg_slogdet", "linalg_lstsq"):
        assert getattr(rt, name).__name__ == name
    if HAS_TORCH:
        for name in ("max", "min", "sort", "topk", "aminmax", "slogdet", "linalg_svd", "linalg_lstsq", "svd"):
            assert getattr(rt, name)._fields == tuple(
                f for f in _torch_field_order(name)), name
        t = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
        assert repr(x.max(1)) == repr(t.max(1)) and repr(npgrad.aminmax(x)) == repr(torch.aminmax(t))


def _torch_field_order(name):
    """PyTorch's field order, read from an instance's repr (structseq types have no _fields)."""
    import re
    cls = getattr(torch.return_types, name)
    n = cls.n_fields
    inst = cls(tuple(range(n)))
    return re.findall(r"(\w+)=", repr(inst))
