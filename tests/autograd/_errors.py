"""Compare an error with PyTorch's: same exception type, and a message fragment both libraries share."""
import pytest

import npgrad
from oracle import HAS_TORCH, torch


def same_error(fn, exc_type, fragment):
    """``fn(lib)`` must raise ``exc_type`` whose message contains ``fragment``, in npgrad and in torch.

    Checking the fragment against torch too keeps the expected text honest (it is PyTorch's wording,
    not ours); without torch only npgrad is checked.
    """
    libs = [npgrad] + ([torch] if HAS_TORCH else [])
    for lib in libs:
        with pytest.raises(exc_type) as info:
            fn(lib)
        assert fragment in str(info.value), f"{lib.__name__}: {str(info.value)!r} lacks {fragment!r}"
