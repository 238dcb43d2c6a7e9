"""Property-based tests of elementwise operators: random shapes (0-d to 5-d, with size-0 and size-1
dimensions), broadcast-compatible pairs, dtypes and values, compared with PyTorch (values, dtypes,
every gradient) and, on every machine, with NumPy references and float64 finite differences.
"""
import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from _fuzz import ALL_DTYPES, FLOAT_DTYPES, MODES, broadcast_pair, check, per_op, seeds, shapes, values
from _op_tables import BINARY, PROMOTION, UNARY
from oracle import HAS_TORCH

# The finite-difference oracle evaluates the function twice per input element: small tensors only.
FD_NUMEL = 24


def _op_modes(table):
    """(op, mode) pairs: a piecewise-constant op has no finite-difference case (its zero gradient is checked
    against PyTorch)."""
    return [pytest.param(op, mode, id=f"{op}-{mode}") for mode in MODES for op in table if mode != "fd" or op.fd]


@pytest.mark.parametrize("op, mode", _op_modes(UNARY))
@per_op(0.34)
@given(data=st.data(), seed=seeds)
def test_unary(op, mode, data, seed):
    shape = data.draw(shapes(max_numel=FD_NUMEL if mode == "fd" else None), label="shape")
    dtype = "float64" if mode == "fd" else data.draw(st.sampled_from(FLOAT_DTYPES), label="dtype")
    x = values(seed, shape, dtype, op.low, op.high, op.away)
    check(op.fn, [x], mode, ref=op.ref, what=f"{op.name}{shape} {dtype}")


if HAS_TORCH:
    @pytest.mark.parametrize("op", UNARY, ids=str)
    @per_op(0.34)
    @given(data=st.data(), seed=seeds)
    def test_unary_integer_and_half_inputs(op, data, seed):
        """Integer and bool inputs promote as in PyTorch (or fail the same way); float16 computes in float16."""
        shape = data.draw(shapes(max_dims=3), label="shape")
        dtype = data.draw(st.sampled_from([d for d in ALL_DTYPES if d not in FLOAT_DTYPES]), label="dtype")
        low, high = (max(op.low, 0.1), op.high) if dtype == "float16" else (op.low, op.high)
        x = values(seed, shape, dtype, low, high, op.away)
        check(op.fn, [x], "torch", what=f"{op.name}{shape} {dtype}")


@pytest.mark.parametrize("op, mode", _op_modes(BINARY))
@per_op(0.5)
@given(data=st.data(), seed=seeds)
def test_binary_broadcasting(op, mode, data, seed):
    sa, sb = data.draw(broadcast_pair(max_numel=FD_NUMEL if mode == "fd" else None), label="shapes")
    dtype = "float64" if mode == "fd" else data.draw(st.sampled_from(FLOAT_DTYPES), label="dtype")
    a = values(seed, sa, dtype, *op.a)
    b = values(seed + 1, sb, data.draw(st.sampled_from([dtype, "float64", "float32"]), label="dtype b")
               if mode == "torch" else dtype, *op.b, away_from=op.b_away)
    check(op.fn, [a, b], mode, ref=op.ref, what=f"{op.name} {sa}{a.dtype} {sb}{b.dtype}")


if HAS_TORCH:
    # Float scalars stay within float32's normal range: PyTorch keeps a Python exponent in double
    # precision (False ** 1e-145 is 0 there, 1 in npgrad, whose float32 rounds it to 0).
    _SCALARS = st.one_of(st.integers(-5, 5), st.booleans(),
                         st.floats(-3, 3, allow_nan=False, allow_subnormal=False).filter(lambda v: v == 0 or
                                                                                         abs(v) > 1e-6),
                         st.sampled_from([0, 0.0, -0.0, 127, 255, 256, -129, 2 ** 31, 1e10]))

    @pytest.mark.parametrize("name,fn,scalars", PROMOTION, ids=[p[0] for p in PROMOTION])
    @per_op(0.5)
    @given(data=st.data(), seed=seeds)
    def test_binary_dtype_pairs(name, fn, scalars, data, seed):
        """Every dtype pair (and Python scalars where PyTorch takes them): PyTorch's result type and
        values, integer wraparound and division-by-zero errors included."""
        sa, sb = data.draw(broadcast_pair(max_dims=3), label="shapes")
        da = data.draw(st.sampled_from(ALL_DTYPES), label="dtype a")
        full = data.draw(st.booleans(), label="full integer range")
        a = values(seed, sa, da, full_int_range=full)
        if scalars != "none" and data.draw(st.booleans(), label="scalar operand"):
            b = data.draw(_SCALARS, label="scalar")
            first = scalars == "both" and data.draw(st.booleans(), label="scalar first")
            args = [b, a] if first else [a, b]
        else:
            db = data.draw(st.sampled_from(ALL_DTYPES), label="dtype b")
            args = [a, values(seed + 1, sb, db, full_int_range=full)]
        # INT_MIN / -1 is undefined behaviour in PyTorch's kernels (SIGFPE): no oracle, so no example
        dividing = name in ("div_trunc", "div_floor", "floordiv", "remainder", "fmod")
        assume(not (dividing and _int_min_by_minus_one(args)))
        check(fn, args, "torch", no_grad_inputs=(0, 1),
              what=f"{name} {args[0]!r} {args[1]!r}")


def _int_min_by_minus_one(args):
    num, den = (np.asarray(a) for a in args)
    if num.dtype not in (np.int32, np.int64):
        return False  # narrower types are computed in int and wrap, as NumPy does
    return bool(np.any(num == np.iinfo(num.dtype).min)) and bool(np.any(den == -1))
