"""Property-based tests of movement and indexing operators: random shapes (empty and size-1 dimensions,
0-d to 5-d) and random arguments (negative dims, slices with steps, repeated and negative indices,
masks), compared with PyTorch (values, shapes, errors, gradients) and with NumPy references and finite
differences without it.
"""
import pytest
from hypothesis import given, strategies as st

from _fuzz import FLOAT_DTYPES, MODES, check, per_op, seeds, shapes, values
from _shape_ops import INDEXING, MOVEMENT

FD_NUMEL = 24


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", MOVEMENT + INDEXING, ids=str)
@per_op(0.34)
@given(data=st.data(), seed=seeds)
def test_shape_op(op, mode, data, seed):
    if mode == "fd":  # the finite-difference oracle needs elements to perturb
        shape = data.draw(shapes(sides=(1, 2, 3, 4), max_numel=FD_NUMEL), label="shape")
    else:
        shape = data.draw(shapes(max_numel=256), label="shape")
    args = op.draw(data, shape)
    if args is None:
        return  # the operator does not apply to this shape (e.g. tril of a vector)
    dtype = "float64" if mode == "fd" else data.draw(st.sampled_from(FLOAT_DTYPES), label="dtype")
    x = values(seed, shape, dtype)
    check(lambda lib, t: op.fn(lib, t, args), [x], mode, ref=(lambda a: op.ref(a, args)) if op.ref else None,
          what=f"{op.name}{shape} {dtype} {args}")
