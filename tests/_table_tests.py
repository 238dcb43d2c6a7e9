"""The standard tests of an operator table, made once for every table.

A test module lists its rows (``OpCase``s, or a dict of calls that must fail) and assigns the tests it wants
to names pytest collects::

    if HAS_TORCH:  # without PyTorch the finite-difference test is the oracle
        test_matches_torch = torch_parity_test(CASES)
        test_double_backward = double_backward_test(GRAD_CASES)
    test_finite_differences = finite_difference_test(GRAD_CASES)

Each maker returns a new test function parametrized over the rows it is given (ids: the row names).
"""
import numpy as np
import pytest

import npgrad
from oracle import check_against_torch, check_finite_differences, torch
from _elementwise_parity import check_error, check_no_upcast
from _second_order import check_double_backward


def torch_parity_test(cases):
    """test(case, dtype): forward value, dtype and gradients equal PyTorch's, in float32 and float64."""
    @pytest.mark.parametrize("case", cases, ids=str)
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test(case, dtype):
        check_against_torch(case, dtype)
    return test


def _per_case(check, cases):
    @pytest.mark.parametrize("case", cases, ids=str)
    def test(case):
        check(case)
    return test


def double_backward_test(cases):
    """test(case): gradients taken with create_graph=True differentiate like PyTorch's (float64)."""
    return _per_case(check_double_backward, cases)


def finite_difference_test(cases):
    """test(case): float64 gradients equal central finite differences (needs no PyTorch)."""
    return _per_case(check_finite_differences, cases)


def no_upcast_test(cases):
    """test(case): no backward formula answers a float32 input with a float64 gradient (rows with an input that
    needs grad: the others have no backward to check)."""
    return _per_case(check_no_upcast, [c for c in cases if any(i.grad for i in c.inputs)])


def expected_errors_test(rows):
    """test(name): ``fn(npgrad)`` raises the row's exception class with its message, as PyTorch does when
    installed (``rows``: the op table's ``(id, fn, exception class, message)``, see opinfo.raised)."""
    @pytest.mark.parametrize("fn, exc, message", [pytest.param(*r[1:], id=r[0]) for r in rows])
    def test(fn, exc, message):
        check_error(fn, exc, message)
    return test


def errors_like_torch_test(errors):
    """test(name): ``errors[name](lib)`` raises in npgrad the exception class PyTorch raises, with the same
    message (``errors`` maps a name to a call taking the library)."""
    @pytest.mark.parametrize("name", sorted(errors))
    def test(name):
        with pytest.raises(Exception) as et:
            errors[name](torch)
        with pytest.raises(type(et.value)) as en:
            errors[name](npgrad)
        assert str(en.value) == str(et.value)
    return test
