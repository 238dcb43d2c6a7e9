"""softmax and log_softmax against PyTorch, finite differences and PyTorch's double backward."""
from oracle import HAS_TORCH
from opinfo import DOUBLE_BACKWARD, FD, NO_UPCAST, PARITY, samples
from _table_tests import double_backward_test, finite_difference_test, no_upcast_test, torch_parity_test


# The rows live in the op table: tests/opinfo/family_softmax.py.
if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "softmax"))
    test_double_backward_matches_torch = double_backward_test(samples(DOUBLE_BACKWARD, "softmax"))
test_finite_differences = finite_difference_test([c for c in samples(FD, "softmax") if c.fd])
test_float32_gradients_stay_float32 = no_upcast_test(samples(NO_UPCAST, "softmax"))
