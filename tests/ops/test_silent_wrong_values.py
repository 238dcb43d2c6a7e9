"""Inputs that used to give a silently wrong answer (or an error where PyTorch answers): empty dim lists,
negative pads, an int beside an advanced index, sequences nested in an index, scatter(reduce=) with a scalar,
activations of 0-d tensors, bool ranges and roll's argument checks. Each is checked against a NumPy oracle
written here, and against PyTorch when it is installed."""
import itertools
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

F = npgrad.nn.functional
X = np.arange(24.0).reshape(2, 3, 4)


def _both(call, *arrays):
    """``call(lib, *tensors)`` in npgrad, and in PyTorch when installed (None otherwise), as NumPy arrays."""
    ours = call(npgrad, *(npgrad.tensor(a) for a in arrays))
    theirs = call(torch, *(torch.tensor(a) for a in arrays)) if HAS_TORCH else None
    return ours.numpy(), None if theirs is None else theirs.numpy()


def _raises_as_torch(call, exc, message):
    with pytest.raises(exc, match=message):
        call(npgrad)
    if HAS_TORCH:
        with pytest.raises(exc, match=message):
            call(torch)


# -- an empty list of dims: nothing to flip or squeeze, each element's truth for all/any ---------------------------

@pytest.mark.parametrize("call, oracle", [
    (lambda lib, x: x.flip(()), lambda a: a),
    (lambda lib, x: lib.flip(x, []), lambda a: a),
    (lambda lib, x: lib.flip(x, dims=()), lambda a: a),
    (lambda lib, x: lib.squeeze(x.reshape(1, 2, 1, 12), ()), lambda a: a.reshape(1, 2, 1, 12)),
    (lambda lib, x: x.reshape(1, 24).squeeze(dim=[]), lambda a: a.reshape(1, 24)),
    (lambda lib, x: lib.any(x, ()), lambda a: a != 0),
    (lambda lib, x: x.all(dim=[]), lambda a: a != 0),
    (lambda lib, x: lib.any(x > 5, (), keepdim=True), lambda a: a > 5),
    (lambda lib, x: lib.flip(x, [0, -1]), lambda a: a[::-1, :, ::-1]),
], ids=["flip_method", "flip_list", "flip_kw", "squeeze", "squeeze_kw", "any", "all", "any_keepdim", "flip_two"])
def test_empty_dims_mean_none(call, oracle):
    ours, theirs = _both(call, X - 3)
    np.testing.assert_array_equal(ours, oracle(X - 3))
    if theirs is not None:
        np.testing.assert_array_equal(ours, theirs)


def test_flip_of_nothing_keeps_the_gradient_and_copies():
    x = npgrad.tensor(X, requires_grad=True)
    y = x.flip(())
    assert y.grad_fn.name() == "FlipBackward0"
    y.backward(npgrad.tensor(X * 2))
    np.testing.assert_array_equal(x.grad.numpy(), X * 2)
    y.detach()[0, 0, 0] = 100.0
    assert x[0, 0, 0].item() == 0.0


def test_flip_needs_dims():
    _raises_as_torch(lambda lib: lib.zeros(2).flip(), TypeError, 'missing 1 required positional arguments: "dims"')


# -- roll's shifts and dims, and bool ranges ------------------------------------------------------------------

@pytest.mark.parametrize("shifts, dims, oracle", [
    ([1], [], lambda a: np.roll(a, 1)),
    ((1,), (), lambda a: np.roll(a, 1)),
    (2, (), lambda a: np.roll(a, 2)),
    ((1, -2), (0, 2), lambda a: np.roll(a, (1, -2), (0, 2))),
    (1, [1], lambda a: np.roll(a, 1, 1)),
])
def test_roll_forms(shifts, dims, oracle):
    ours, theirs = _both(lambda lib, x: lib.roll(x, shifts, dims), X)
    np.testing.assert_array_equal(ours, oracle(X))
    if theirs is not None:
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("shifts, dims, exc, message", [
    ([], [], RuntimeError, "`shifts` required"),
    ((), 1, RuntimeError, "`shifts` required"),
    ([], [0], RuntimeError, "`shifts` required"),
    ((1, 2), 0, RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    ((1, 2), (0,), RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    ([1], [0, 1], RuntimeError, "shifts and dimensions must align. shifts: 1, dims:2"),
    ((1, 2), None, RuntimeError, "shifts and dimensions must align. shifts: 2, dims:0"),
])
def test_roll_refuses_as_pytorch(shifts, dims, exc, message):
    _raises_as_torch(lambda lib: lib.roll(lib.tensor(X), shifts, dims), exc, message)


def test_roll_of_a_0d_tensor_along_a_dim():
    _raises_as_torch(lambda lib: lib.roll(lib.tensor(3.0), 1, 0), IndexError,
                     "Dimension specified as 0 but tensor has no dimensions")


@pytest.mark.parametrize("call, kernel", [
    (lambda lib: lib.linspace(0, 1, 5, dtype=lib.bool), "linspace_cpu"),
    (lambda lib: lib.linspace(lib.tensor(0.0), lib.tensor(1.0), 2, dtype=lib.bool), "linspace_cpu"),
    (lambda lib: lib.logspace(0, 1, 3, dtype=lib.bool), "logspace_cpu"),
    (lambda lib: lib.arange(0, 3, dtype=lib.bool), "arange_cpu"),
    (lambda lib: lib.arange(0.0, 1.0, 0.5, dtype=lib.bool), "arange_cpu"),
])
def test_bool_ranges_have_no_kernel(call, kernel):
    _raises_as_torch(call, NotImplementedError, f'"{kernel}" not implemented for \'Bool\'')


def test_range_bool_has_no_kernel():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.range's own deprecation
        _raises_as_torch(lambda lib: lib.range(0, 3, dtype=lib.bool), NotImplementedError,
                         '"range_cpu" not implemented for \'Bool\'')


def test_one_step_bool_ranges_are_the_start_point():
    # (no kernel runs for 0 or 1 steps: the start point, as bool)
    assert npgrad.linspace(0, 1, 1, dtype=npgrad.bool).tolist() == [False]
    assert npgrad.logspace(0, 1, 1, dtype=npgrad.bool).tolist() == [True]   # 10 ** 0
    assert npgrad.linspace(0, 1, 0, dtype=npgrad.bool).tolist() == []


# -- negative pads --------------------------------------------------------------------------------------------

def _pad_oracle(a, pad, mode):
    """Crop the negative sides first, then pad the positive ones (np.pad's wrap/reflect/edge/constant)."""
    pads = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        pads[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    a = a[tuple(slice(max(-b, 0), s - max(-e, 0)) for s, (b, e) in zip(a.shape, pads))]
    kind = {"circular": "wrap", "reflect": "reflect", "replicate": "edge", "constant": "constant"}[mode]
    return np.pad(a, [(max(b, 0), max(e, 0)) for b, e in pads], mode=kind)


PAD_CASES = [(shape, pad, mode) for mode in ("circular", "reflect", "replicate", "constant")
             for shape, pad in [((1, 2, 6), (-1, 2)), ((1, 2, 6), (2, -1)), ((1, 2, 6), (-2, -1)),
                                ((1, 1, 4, 5), (-1, 0, 1, -1)), ((1, 1, 4, 5), (1, -2, -1, 2)),
                                ((1, 1, 3, 4, 5), (-1, 1, 0, -2, 1, -1))]]


@pytest.mark.parametrize("shape, pad, mode", PAD_CASES, ids=[f"{m}-{p}" for _, p, m in PAD_CASES])
def test_negative_pads_crop_first(shape, pad, mode):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = npgrad.tensor(a, requires_grad=True)
    y = F.pad(x, pad, mode=mode)
    expected = _pad_oracle(a, pad, mode)
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    # the gradient: each input element collects the weights of the outputs that copy it
    w = np.random.RandomState(0).rand(*expected.shape)
    y.backward(npgrad.tensor(w))
    # (positions counted from 1, so that constant mode's pad value, 0, is no input element)
    source = _pad_oracle(np.arange(1, a.size + 1).reshape(shape), pad, mode).ravel()
    grad = np.zeros(a.size)
    np.add.at(grad, source[source > 0] - 1, w.ravel()[source > 0])
    np.testing.assert_allclose(x.grad.numpy().ravel(), grad)
    if HAS_TORCH:
        np.testing.assert_array_equal(y.detach().numpy(), torch.nn.functional.pad(torch.tensor(a), pad, mode=mode))


@pytest.mark.parametrize("shape, pad, mode, message", [
    ((1, 1, 6), (-4, -4), "circular", "Negative padding value is resulting in an empty dimension"),
    ((1, 1, 6), (7, -1), "circular", "Padding value causes wrapping around more than once."),
    ((1, 1, 6), (-4, -4), "reflect", r"input \(W: 6\) is too small. Calculated output W: -2"),
    ((1, 1, 6), (-6, 0), "replicate", r"input \(W: 6\) is too small. Calculated output W: 0"),
    ((1, 1, 4, 5), (-5, 0, -4, 0), "reflect", r"input \(H: 4, W: 5\) is too small. Calculated output H: 0 W: 0"),
    ((1, 1, 4, 5), (-5, 0, -4, 0), "replicate", r"input \(H: 4, W: 5 \) is too small. Calculated output H: 0 W: 0"),
    ((1, 1, 3, 4, 5), (-5, 0, -4, 0, -3, 0), "reflect",
     r"input \(D: 3 H: 4, W: 5\) is too small. Calculated output D: 0 H: 0 W: 0"),
    ((1, 1, 6), (-7, 1), "constant", r"narrow\(\): length must be non-negative."),
    ((1, 1, 6), (-4, -4), "constant", r"narrow\(\): length must be non-negative."),
])
def test_negative_pads_refused_as_pytorch(shape, pad, mode, message):
    _raises_as_torch(lambda lib: lib.nn.functional.pad(lib.zeros(shape), pad, mode=mode), RuntimeError, message)


@pytest.mark.parametrize("pad", [(3, -5), (5, -2), (-2, 6), (-6, 1)])
def test_circular_pad_wrapping_the_cropped_dim_twice_is_refused(pad):
    # (PyTorch reads memory it never wrote here: its values are not an oracle, so npgrad refuses)
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once."):
        F.pad(npgrad.zeros(1, 2, 6), pad, mode="circular")


# -- an integer beside an advanced index: PyTorch applies the ints first ------------------------------------------

SHAPE = (2, 3, 4, 5, 6)
IDX, MASK = np.array([[0, 1], [1, 0], [0, 0]]), np.array([True, False, True])


def _index_oracle(a, index):
    """PyTorch's rule in NumPy: select with the ints (a view), then apply the rest of the index to that."""
    consumed = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype == bool else 1
                   for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool))
    first, rest = [], []
    for i in index:
        if isinstance(i, int) and not isinstance(i, bool):
            first.append(i)
            continue
        if i is Ellipsis:
            first += [slice(None)] * (a.ndim - consumed)
        elif isinstance(i, np.ndarray):
            first += [slice(None)] * (i.ndim if i.dtype == bool else 1)
        elif i is not None and not isinstance(i, bool):
            first.append(slice(None))
        rest.append(i)
    return a[tuple(first)][tuple(rest)]


INDICES = [
    (1, slice(None), slice(1, 4, 2), IDX, slice(0, 2)),
    (1, slice(None), IDX),
    (slice(None), IDX, slice(None), 0),
    (slice(None), 1, slice(None), IDX, 0),
    (0, slice(None), IDX, IDX),
    (slice(None), IDX, 0, IDX),
    (0, None, IDX),
    (Ellipsis, 1, slice(None), IDX),
    (1, Ellipsis, IDX),
    (slice(None), 0, slice(None), np.array([0, 2]), 1),
    (slice(None), MASK, slice(None), 0),
    (1, MASK, slice(None), np.array([1, 0])),
    (slice(None), 1, slice(None), np.array([True, False, True, True, False])),
    (0, slice(None), IDX, True),
    (slice(None), IDX, slice(None), slice(None), IDX),  # separated: first in both
    (IDX, 1),
    (slice(None), 2, IDX),
]


def _lib_index(lib, index):
    return tuple(lib.tensor(i) if isinstance(i, np.ndarray) else i for i in index)


@pytest.mark.parametrize("index", INDICES, ids=[str(k) for k in range(len(INDICES))])
def test_int_beside_advanced_index(index):
    a = np.arange(float(np.prod(SHAPE))).reshape(SHAPE)
    expected = _index_oracle(a, index)
    x = npgrad.tensor(a, requires_grad=True)
    y = x[_lib_index(npgrad, index)]
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    # the gradient scatters back through the same positions, repeats adding up
    w = np.random.RandomState(1).rand(*expected.shape)
    y.backward(npgrad.tensor(w))
    grad = np.zeros(a.size)
    np.add.at(grad, _index_oracle(np.arange(a.size).reshape(SHAPE), index).ravel(), w.ravel())
    np.testing.assert_allclose(x.grad.numpy().ravel(), grad)
    # writing: the value lands where reading found each element (no repeated positions among these writes)
    positions = _index_oracle(np.arange(a.size).reshape(SHAPE), index)
    if np.unique(positions).size == positions.size:
        z = npgrad.tensor(a)
        z[_lib_index(npgrad, index)] = npgrad.tensor(-w)
        want = a.ravel().copy()
        want[positions.ravel()] = -w.ravel()
        np.testing.assert_array_equal(z.numpy().ravel(), want)
    if HAS_TORCH:
        xt = torch.tensor(a, requires_grad=True)
        yt = xt[_lib_index(torch, index)]
        yt.backward(torch.tensor(w))
        np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("index", INDICES[:6], ids=[str(k) for k in range(6)])
def test_setitem_beside_advanced_index_differentiates(index):
    a = np.arange(float(np.prod(SHAPE))).reshape(SHAPE)
    shape = _index_oracle(a, index).shape
    v = np.random.RandomState(2).rand(*shape)
    base, value = npgrad.tensor(a, requires_grad=True), npgrad.tensor(v, requires_grad=True)
    y = base * 1
    y[_lib_index(npgrad, index)] = value * 2
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    (y * npgrad.tensor(a)).sum().backward()
    # the value's gradient reads the weights where it was written; the base's is zero there
    np.testing.assert_allclose(value.grad.numpy(), 2 * _index_oracle(a, index))
    covered = np.zeros(a.size, bool)
    covered[_index_oracle(np.arange(a.size).reshape(SHAPE), index).ravel()] = True
    np.testing.assert_allclose(base.grad.numpy().ravel(), np.where(covered, 0.0, a.ravel()))
    if HAS_TORCH:
        bt, vt = torch.tensor(a, requires_grad=True), torch.tensor(v, requires_grad=True)
        yt = bt * 1
        yt[_lib_index(torch, index)] = vt * 2
        (yt * torch.tensor(a)).sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy())
        np.testing.assert_allclose(value.grad.numpy(), vt.grad.numpy())
        np.testing.assert_allclose(base.grad.numpy(), bt.grad.numpy())


def test_setitem_with_an_ellipsis_and_an_index_tensor_records():
    # (finding the Ellipsis compared the index arrays with it: a ValueError reported as a shape mismatch)
    y = npgrad.zeros(3, 4, requires_grad=True) * 1
    y[npgrad.tensor([[0], [2]]), ...] = npgrad.ones(2, 1, 4, requires_grad=True)
    assert y.sum().item() == 8


@pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch (the NumPy-oracle tests above run without it)")
def test_int_beside_advanced_index_sweep_against_torch():
    """Every arrangement of up to 3 entries (ints, slices, None, ..., an index tensor, a mask) agrees."""
    a = np.arange(float(np.prod(SHAPE))).reshape(SHAPE)
    items = [0, slice(None), slice(1, 3), None, Ellipsis, IDX[:, :1], MASK, True]
    checked = 0
    for n in (2, 3):
        for index in itertools.product(items, repeat=n):
            if sum(i is Ellipsis for i in index) > 1 or not any(isinstance(i, np.ndarray) for i in index):
                continue
            try:
                expected = torch.tensor(a)[_lib_index(torch, index)].numpy()
            except IndexError:
                continue
            np.testing.assert_array_equal(npgrad.tensor(a)[_lib_index(npgrad, index)].numpy(), expected,
                                          err_msg=str(index))
            checked += 1
    assert checked > 100


# -- sequences nested in an index ---------------------------------------------------------------------------------

NESTED = [
    (([[0, 1], [1, 2]], Ellipsis), lambda a: a[np.array([[0, 1], [1, 2]])]),
    (((0, 1), Ellipsis), lambda a: a[[0, 1]]),
    (((0, 1), (1, 2)), lambda a: a[[0, 1], [1, 2]]),
    ((((0, 1), (1, 2)),), lambda a: a[np.array([[0, 1], [1, 2]])]),
    ((slice(None), (0, 1, 2)), lambda a: a[:, [0, 1, 2]]),
    (((0, 1), [[1], [2]]), lambda a: a[[0, 1], [[1], [2]]]),
    (((2, 0), slice(1, 3), (0, 1)), lambda a: a[[2, 0], 1:3, [0, 1]]),
    (([0, 1], None, (1, 2)), lambda a: a[[0, 1], None, [1, 2]]),
]


@pytest.mark.parametrize("index, oracle", NESTED, ids=[str(k) for k in range(len(NESTED))])
def test_sequences_nested_in_an_index(index, oracle):
    a = np.arange(60.0).reshape(3, 4, 5)
    x = npgrad.tensor(a, requires_grad=True)
    y = x[index]
    expected = oracle(a)
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    w = np.random.RandomState(3).rand(*expected.shape)
    y.backward(npgrad.tensor(w))
    grad = np.zeros(a.size)
    np.add.at(grad, oracle(np.arange(a.size).reshape(a.shape)).ravel(), w.ravel())
    np.testing.assert_allclose(x.grad.numpy().ravel(), grad)
    z = npgrad.tensor(a)
    z[index] = -1.0
    want = a.ravel().copy()
    want[oracle(np.arange(a.size).reshape(a.shape)).ravel()] = -1.0
    np.testing.assert_array_equal(z.numpy().ravel(), want)
    if HAS_TORCH:
        xt = torch.tensor(a, requires_grad=True)
        xt[index].backward(torch.tensor(w))
        np.testing.assert_array_equal(y.detach().numpy(), torch.tensor(a)[index].numpy())
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("index", [[0, [1, 2]], [0, (1, 2)], [[0, 1], [1, 2]]])
def test_a_list_holding_sequences_is_a_tuple_with_a_warning(index):
    a = np.arange(60.0).reshape(3, 4, 5)
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing"):
        y = npgrad.tensor(a)[index]
    np.testing.assert_array_equal(y.numpy(), a[tuple(np.array(i) if isinstance(i, (list, tuple)) else i
                                                      for i in index)])


def test_a_ragged_nested_index_is_refused_as_pytorch():
    _raises_as_torch(lambda lib: lib.zeros(3, 4)[(((0, 1), (2,)),)], ValueError,
                     r"expected sequence of length 2 at dim 1 \(got 1\)")


# -- scatter(reduce=) ---------------------------------------------------------------------------------------------

def _scatter_oracle(a, dim, index, src, reduce):
    out = a.copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        v = src if np.ndim(src) == 0 else src[pos]
        if reduce == "add":
            out[tuple(target)] += v
        else:
            out[tuple(target)] *= v
    return out


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("dtype, value", [("float64", 3.0), ("float32", -1.5), ("int64", 2.5), ("int64", 4)])
def test_scatter_reduce_with_a_scalar(reduce, dtype, value):
    a = np.full((2, 3), 2, dtype)
    index = np.array([[0, 0, 1]])
    ours = npgrad.tensor(a).scatter(1, npgrad.tensor(index), value, reduce=reduce)
    cast = np.asarray(value).astype(dtype)   # the scalar in the target's dtype (2.5 -> 2), as PyTorch casts it
    np.testing.assert_array_equal(ours.numpy(), _scatter_oracle(a, 1, index, cast, reduce))
    inplace = npgrad.tensor(a)
    inplace.scatter_(1, npgrad.tensor(index), value=value, reduce=reduce)
    np.testing.assert_array_equal(inplace.numpy(), ours.numpy())
    if HAS_TORCH:
        theirs = torch.tensor(a).scatter(1, torch.tensor(index), value, reduce=reduce)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert ours.numpy().dtype == theirs.numpy().dtype


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_with_a_tensor_src_warns_as_pytorch(reduce):
    a, index, src = np.full((2, 3), 2.0), np.array([[0, 0, 1]]), np.array([[3.0, 4.0, 5.0]])
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"):
        ours = npgrad.tensor(a).scatter(1, npgrad.tensor(index), npgrad.tensor(src), reduce=reduce)
    np.testing.assert_array_equal(ours.numpy(), _scatter_oracle(a, 1, index, src, reduce))


def test_scatter_reduce_other_than_add_or_multiply():
    _raises_as_torch(lambda lib: lib.zeros(3).scatter(0, lib.tensor([0]), 1.0, reduce="mean"), RuntimeError,
                     "reduce argument must be either add or multiply.")


# -- 0-d tensors through the activations ------------------------------------------------------------------------

ACTIVATIONS = ["relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "hardsigmoid", "hardswish",
               "hardtanh", "hardshrink", "softshrink", "tanhshrink", "softsign", "softplus", "leaky_relu",
               "logsigmoid", "sigmoid", "tanh"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_of_a_0d_tensor(name, dtype):
    """The 0-d result and gradient are the 1-element tensor's (and PyTorch's), at points on each branch."""
    points = np.array([-3.5, -1.3, 0.0, 0.7, 3.5], dtype)
    fn = getattr(F, name)
    x1 = npgrad.tensor(points, requires_grad=True)
    fn(x1).sum().backward()
    for k, p in enumerate(points):
        x0 = npgrad.tensor(p, requires_grad=True)
        y0 = fn(x0)
        assert y0.shape == ()
        y0.backward()
        np.testing.assert_allclose(y0.item(), fn(npgrad.tensor(points)).numpy()[k], rtol=1e-6)
        np.testing.assert_allclose(x0.grad.item(), x1.grad.numpy()[k], rtol=1e-6)
        if HAS_TORCH:
            t0 = torch.tensor(p, requires_grad=True)
            yt = getattr(torch.nn.functional, name)(t0)
            yt.backward()
            tol = 1e-5 if dtype == "float32" else 1e-7  # (PyTorch's float64 hardsigmoid slope is float32's 1/6)
            np.testing.assert_allclose(y0.item(), yt.item(), rtol=tol, atol=tol)
            np.testing.assert_allclose(x0.grad.item(), t0.grad.item(), rtol=tol, atol=tol)


@pytest.mark.parametrize("cls", ["Hardsigmoid", "Hardswish", "GELU"])
def test_activation_modules_take_0d_tensors(cls):
    y = getattr(npgrad.nn, cls)()(npgrad.tensor(0.7))
    assert y.shape == () and np.isfinite(y.item())
    assert y.item() == getattr(npgrad.nn, cls)()(npgrad.tensor([0.7])).item()


def test_prelu_refuses_to_promote_as_pytorch():
    _raises_as_torch(lambda lib: lib.nn.functional.prelu(lib.ones(2, 3, dtype=lib.float64), lib.ones(1)),
                     RuntimeError, "prelu: Type promoting not supported. Got Double and Float")


def test_other_0d_inputs():
    with pytest.warns(UserWarning, match=r"adjoint\(\) is deprecated on 0-D tensors"):
        assert npgrad.tensor(2.0).adjoint().item() == 2.0
    with pytest.warns(UserWarning, match=r"adjoint\(\) is deprecated on 0-D tensors"):
        assert npgrad.tensor(1 + 2j).adjoint().item() == 1 - 2j
    draw = npgrad.poisson(npgrad.tensor(3.0))
    assert draw.shape == () and draw.dtype == npgrad.float32 and draw.item() >= 0
    assert npgrad.poisson(npgrad.tensor(0.0)).item() == 0.0


# -- factories writing into out= ----------------------------------------------------------------------------

OUT_FACTORIES = [
    ("zeros", lambda lib, o: lib.zeros(3, out=o), lambda: np.zeros(3)),
    ("ones", lambda lib, o: lib.ones(3, out=o), lambda: np.ones(3)),
    ("arange", lambda lib, o: lib.arange(3, out=o), lambda: np.arange(3)),
    ("arange_float", lambda lib, o: lib.arange(0.0, 3.0, out=o), lambda: np.arange(3.0)),
    ("linspace", lambda lib, o: lib.linspace(0, 2, 3, out=o), lambda: np.linspace(0, 2, 3)),
    ("full", lambda lib, o: lib.full((3,), 2.5, out=o), lambda: np.full(3, 2.5)),
]


@pytest.mark.parametrize("out_dtype", ["int64", "float64", "float32"])
@pytest.mark.parametrize("name, call, oracle", OUT_FACTORIES, ids=[r[0] for r in OUT_FACTORIES])
def test_factories_write_in_outs_dtype(name, call, oracle, out_dtype):
    out = npgrad.empty(3, dtype=getattr(npgrad, out_dtype))
    r = call(npgrad, out)
    assert r is out and r.dtype == getattr(npgrad, out_dtype)  # (out was silently retyped to the default dtype)
    np.testing.assert_array_equal(r.numpy(), oracle().astype(out_dtype))
    if HAS_TORCH:
        np.testing.assert_array_equal(r.numpy(), call(torch, torch.empty(3, dtype=getattr(torch, out_dtype))).numpy())


def test_factory_dtype_differing_from_out_is_refused():
    _raises_as_torch(lambda lib: lib.zeros(3, dtype=lib.float32, out=lib.empty(3, dtype=lib.int64)), RuntimeError,
                     r"dtype Float does not match dtype of out parameter \(Long\)")
    _raises_as_torch(lambda lib: lib.rand(3, dtype=lib.float64, out=lib.empty(3)), RuntimeError,
                     r"dtype Double does not match dtype of out parameter \(Float\)")


@pytest.mark.parametrize("index", INDICES[:4], ids=[str(k) for k in range(4)])
def test_int_beside_advanced_index_forward_ad_and_vmap(index):
    a, t = (np.random.RandomState(k).rand(*SHAPE) for k in (4, 5))
    fw = npgrad.autograd.forward_ad
    with fw.dual_level():
        y = fw.make_dual(npgrad.tensor(a), npgrad.tensor(t))[_lib_index(npgrad, index)]
        np.testing.assert_array_equal(fw.unpack_dual(y).tangent.numpy(), _index_oracle(t, index))
        z = fw.make_dual(npgrad.zeros(SHAPE, dtype=npgrad.float64), npgrad.zeros(SHAPE, dtype=npgrad.float64))
        shape = _index_oracle(a, index).shape
        z[_lib_index(npgrad, index)] = fw.make_dual(npgrad.ones(shape, dtype=npgrad.float64),
                                                    npgrad.full(shape, 2.0, dtype=npgrad.float64))
        want = np.zeros(a.size)
        want[_index_oracle(np.arange(a.size).reshape(SHAPE), index).ravel()] = 2.0
        np.testing.assert_array_equal(fw.unpack_dual(z).tangent.numpy().ravel(), want)
    # vmap prepends the batch dim's slice: the per-example index must still place its dims as PyTorch does
    per_example = index[1:]  # (on one example: a dim fewer)
    out = npgrad.func.vmap(lambda v: v[_lib_index(npgrad, per_example)])(npgrad.tensor(a))
    np.testing.assert_array_equal(out.numpy(), np.stack([_index_oracle(v, per_example) for v in a]))


@pytest.mark.parametrize("index, message", [
    (lambda L: (0, L.tensor([True, False])),
     r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed tensor \[3, 4, 5\] at "
     "index 0"),
    (lambda L: (None, 0, L.tensor([True] * 4)),
     r"The shape of the mask \[4\] at index 0 does not match the shape of the indexed tensor \[1, 3, 4, 5\] at "
     "index 1"),
    (lambda L: (slice(0, 1), L.tensor([True, False])),
     r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed tensor \[1, 3, 4, 5\] at "
     "index 1"),
    (lambda L: (L.tensor([True, False]), 9), "index 9 is out of bounds for dimension 1 with size 3"),
    (lambda L: (L.tensor([[True, False, True]] * 2), 1, L.tensor([0, 7])),
     r"shape mismatch: indexing tensors could not be broadcast together with shapes \[4\], \[4\], \[2\]"),
    (lambda L: (slice(None), L.tensor([0, 3]), L.tensor([9, 0])),
     "index 9 is out of bounds for dimension 1 with size 4"),
])
def test_index_errors_in_pytorchs_order(index, message):
    # (PyTorch applies the basic part, ints, slices and None, first, then checks masks, broadcast and bounds)
    _raises_as_torch(lambda lib: lib.zeros(2, 3, 4, 5)[index(lib)], IndexError, message)
