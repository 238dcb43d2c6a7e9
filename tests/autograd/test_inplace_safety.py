"""In-place safety: version counters catch saved values modified after they were saved, leaves that
require grad refuse in-place ops, and in-place ops that are safe give PyTorch's gradients."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch
from _errors import same_error

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])
by_name = dict(ids=lambda l: l.__name__)

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation: "


def _x(lib, values=(1.0, 2.0)):
    return lib.tensor(np.array(values, dtype=np.float32), requires_grad=True)


def test_saved_output_modified():
    def f(lib):
        y = _x(lib).exp()
        z = y * 2  # does not save y
        y.add_(1)
        z.sum().backward()
    same_error(f, RuntimeError, MODIFIED + "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 1; "
                                "expected version 0 instead. Hint: enable anomaly detection")


def test_saved_input_modified():
    def f(lib):
        a = _x(lib) * 1
        y = a * a
        a.mul_(2)
        y.sum().backward()
    same_error(f, RuntimeError, MODIFIED + "[torch.FloatTensor [2]], which is output 0 of Mul, is at version 1; "
                                "expected version 0 instead.")


def test_saved_leaf_modified_under_no_grad():
    def f(lib):
        x, w = _x(lib), _x(lib)
        y = x * w
        with lib.no_grad():
            x.mul_(2)
        y.sum().backward()
    same_error(f, RuntimeError, MODIFIED + "[torch.FloatTensor [2]] is at version 1; expected version 0 instead.")


def test_modified_through_detached_alias():
    def f(lib):
        y = _x(lib).sigmoid()
        y.detach().zero_()  # detach() shares the version counter
        y.sum().backward()
    same_error(f, RuntimeError, MODIFIED + "[torch.FloatTensor [2]], which is output 0 of Sigmoid, is at version 1")


def test_modified_twice_reports_versions():
    def f(lib):
        a = _x(lib) * 1
        y = a.sin()
        a.add_(1)
        a.add_(1)
        y.sum().backward()
    same_error(f, RuntimeError, "is at version 2; expected version 0 instead.")


def test_modified_between_retained_backwards():
    def f(lib):
        a = _x(lib) * 1
        y = (a * a).sum()
        y.backward(retain_graph=True)
        a.mul_(3)
        y.backward()
    same_error(f, RuntimeError, MODIFIED)


def test_in_place_with_itself_as_argument():
    # Mul saves the tensor being modified, so PyTorch refuses this backward; so does npgrad.
    def f(lib):
        a = _x(lib) * 1
        a.mul_(a)
        a.sum().backward()
    same_error(f, RuntimeError, MODIFIED + "[torch.FloatTensor [2]], which is output 0 of Mul, is at version 1")


def test_leaf_in_place_error():
    same_error(lambda lib: _x(lib).add_(1), RuntimeError,
               "a leaf Variable that requires grad is being used in an in-place operation.")

    def setitem(lib):
        x = _x(lib)
        x[0] = 3.0
    same_error(setitem, RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.")


def test_view_of_leaf_in_place_error():
    def f(lib):
        x = _x(lib)
        x[0:1].mul_(2)
    same_error(f, RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place operation.")


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_leaf_in_place_allowed_under_no_grad(lib):
    x = _x(lib)
    with lib.no_grad():
        x.mul_(2)
    assert x._version == 1 and x.is_leaf and x.requires_grad
    (x * x).sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_version_counter_counts_in_place_ops(lib):
    t = lib.zeros(3)
    assert t._version == 0
    t.add_(1)
    t.mul_(2)
    t[0] = 5.0
    assert t._version == 3
    v = t[1:]
    v.add_(1)  # a view shares its base's counter
    assert t._version == 4 and v._version == 4




@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_safe_in_place_gradients(lib):
    x = lib.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    y = x * 2
    y.add_(1)
    z = (y * y).sum()
    z.backward()
    xd = np.array([0.5, -1.0, 2.0])
    assert_close(x.grad.numpy(), 2 * (2 * xd + 1) * 2, 1e-12, 0)


if HAS_TORCH:
    def _view_chain(lib):
        x = lib.tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]]), requires_grad=True)
        y = x * 1.5
        v = y[:, 1:]
        v.mul_(x[0, :2])     # in place on a view: the base y is rewritten through CopySlices
        y[0, 0] = x[1, 2] * 4
        out = (y.sin() * x).sum()
        out.backward()
        return x.grad.numpy(), y.detach().numpy()

    def test_in_place_on_views_matches_torch():
        (g_n, y_n), (g_t, y_t) = _view_chain(npgrad), _view_chain(torch)
        assert_close(y_n, y_t, 1e-12, 0)
        assert_close(g_n, g_t, 1e-12, 1e-14)

    def _double_backward_after_in_place(lib):
        x = lib.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
        y = x * x
        y.mul_(x)  # y = x^3, recorded in place
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return g.detach().numpy(), h.numpy()

    def test_double_backward_through_in_place_matches_torch():
        for a, b in zip(_double_backward_after_in_place(npgrad), _double_backward_after_in_place(torch)):
            assert_close(a, b, 1e-12, 1e-14)


CHAINS = [
    "y.sigmoid_(); y.pow_(2)",       # sigmoid_ saved its output, which pow_ then changes
    "y.exp_(); y.mul_(2)",
    "y.relu_(); y.sin_()",
    "y.exp_(); y.detach().mul_(2)",
    "y.exp_(); y[0] = 2.0",
    "y.sin_(); y.mul_(3)",           # sin_ saved its input (the old value): later changes are fine
    "y.mul_(2); y.sin_()",
    "y.tanh_()",
    "y[0] = 2.0; y.exp_()",
]


def _chain_result(lib, chain):
    x = lib.tensor(np.array([0.3, -0.5]), requires_grad=True)
    y = x * 1.0
    try:
        exec(chain)
        (y * x).sum().backward()
    except RuntimeError as e:
        return str(e)
    return x.grad.numpy().tolist()


if HAS_TORCH:
    @pytest.mark.parametrize("chain", CHAINS)
    def test_in_place_chains_match_torch(chain):
        ours, theirs = _chain_result(npgrad, chain), _chain_result(torch, chain)
        if isinstance(theirs, str):
            assert ours == theirs
        else:
            assert_close(ours, theirs, 1e-12, 0)

