"""Second derivatives through npgrad.nn.functional (softmax, losses, activations, norms, conv, pooling,
attention): the create_graph gradients and their derivatives equal PyTorch's, and gradgradcheck passes."""
import pytest

from oracle import HAS_TORCH, In, OpCase
from _second_order import check_double_backward, gradgradcheck_case


def F(lib):
    return lib.nn.functional


CASES = [
    # (softmax, the activation and loss functions: tests/opinfo/family_softmax.py, family_activation.py,
    # family_loss.py)
    OpCase("linear", lambda lib, x, w, b: F(lib).linear(x, w, b).tanh(), [In((2, 3)), In((4, 3)), In((4,))]),
    OpCase("layer_norm", lambda lib, x, w, b: F(lib).layer_norm(x, (3,), w, b), [In((2, 3)), In((3,)), In((3,))]),
    OpCase("batch_norm", lambda lib, x, w, b: F(lib).batch_norm(x, None, None, w, b, training=True),
           [In((4, 3)), In((3,)), In((3,))]),
    OpCase("normalize", lambda lib, x: F(lib).normalize(x, dim=1), [In((2, 3))]),
    OpCase("conv2d", lambda lib, x, w: F(lib).conv2d(x, w, padding=1), [In((1, 2, 4, 4)), In((3, 2, 3, 3))]),
    OpCase("max_pool2d", lambda lib, x: F(lib).max_pool2d(x * x, 2), [In((1, 1, 4, 4))]),
    OpCase("avg_pool2d", lambda lib, x: F(lib).avg_pool2d(x * x, 2), [In((1, 1, 4, 4))]),
    OpCase("sdpa", lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
           [In((1, 2, 3)), In((1, 2, 3)), In((1, 2, 3))]),
    OpCase("embedding", lambda lib, w: F(lib).embedding(lib.tensor([0, 2, 0]), w) ** 2, [In((3, 2))]),
]


if HAS_TORCH:
    @pytest.mark.parametrize("case", CASES, ids=str)
    def test_second_order_matches_torch(case):
        check_double_backward(case, tol=dict(rtol=1e-9, atol=1e-10))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_gradgradcheck(case):
    assert gradgradcheck_case(case, atol=1e-6, rtol=1e-4)
