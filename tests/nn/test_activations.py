"""nn.functional's activation functions against PyTorch (float32 and float64) and finite differences."""
from oracle import HAS_TORCH
from opinfo import FD, PARITY, samples
from _table_tests import finite_difference_test, torch_parity_test


# The rows live in the op table: tests/opinfo/family_activation.py.
if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "activation"))
test_finite_differences = finite_difference_test([c for c in samples(FD, "activation") if c.fd])
