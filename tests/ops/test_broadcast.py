"""broadcast_to and broadcast_tensors against PyTorch and finite differences (gradients sum back to each
input's shape), and their shape errors in PyTorch's words."""
from oracle import HAS_TORCH
from opinfo import DOUBLE_BACKWARD, FD, NO_UPCAST, PARITY, grad_samples, raised, samples
from _table_tests import (double_backward_test, expected_errors_test, finite_difference_test, no_upcast_test,
                          torch_parity_test)

# The rows live in the op table: tests/opinfo/family_broadcast.py.
if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "broadcast"))
    test_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, "broadcast")))
test_finite_differences = finite_difference_test(grad_samples(samples(FD, "broadcast")))
test_float32_gradients_stay_float32 = no_upcast_test(samples(NO_UPCAST, "broadcast"))
test_expected_errors = expected_errors_test(raised("broadcast"))
