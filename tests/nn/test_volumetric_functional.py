"""nn.functional's volumetric and pooling-family functions (conv3d, the 3-D pools, unpooling, fractional max
pooling, channel_shuffle) against PyTorch, finite differences and PyTorch's double backward, and their errors."""
from oracle import HAS_TORCH
from opinfo import DOUBLE_BACKWARD, FD, PARITY, raised, samples
from _table_tests import double_backward_test, expected_errors_test, finite_difference_test, torch_parity_test

# The rows live in the op table: tests/opinfo/family_volumetric.py.
if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "volumetric"))
    test_double_backward_matches_torch = double_backward_test(samples(DOUBLE_BACKWARD, "volumetric"))
test_finite_differences = finite_difference_test([c for c in samples(FD, "volumetric") if c.fd])
test_expected_errors = expected_errors_test(raised("volumetric"))
