"""Property-based tests of reductions and scans: random shapes (0-d to 5-d, empty dimensions included),
dims (None, negative, tuples) and keepdim, compared with PyTorch (values, indices, dtypes, errors on empty
reductions, gradients) and with NumPy references and float64 finite differences on every machine.
"""
import pytest
from hypothesis import given, strategies as st

from _fuzz import FLOAT_DTYPES, MODES, check, dims_for, per_op, seeds, shapes, values
from _op_tables import REDUCTIONS

FD_NUMEL = 24
NONEMPTY = (1, 2, 3, 4)


def _dim(data, op, ndim):
    if op.dims == "required":
        return data.draw(dims_for(ndim, allow_tuple=False, allow_none=False), label="dim")
    return data.draw(dims_for(ndim, allow_tuple=op.dims == "tuple"), label="dim")


def _ref(op):
    def ref(x):
        d = dim_of[0] if x.ndim else None  # NumPy has no axis 0 of a 0-d array; PyTorch accepts it
        return op.ref(x, d, keep_of[0])
    dim_of, keep_of = [None], [False]
    return ref, dim_of, keep_of


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", REDUCTIONS, ids=str)
@per_op(0.5)
@given(data=st.data(), seed=seeds)
def test_reduction(op, mode, data, seed):
    if mode == "fd" and not op.fd:
        return
    if mode == "fd":  # empty reductions are compared with PyTorch's errors in torch mode
        shape = data.draw(shapes(sides=NONEMPTY, max_numel=FD_NUMEL), label="shape")
    else:
        shape = data.draw(shapes(), label="shape")
    dtype = "float64" if mode == "fd" else data.draw(st.sampled_from(FLOAT_DTYPES), label="dtype")
    dim = _dim(data, op, len(shape))
    keepdim = data.draw(st.booleans(), label="keepdim")
    x = values(seed, shape, dtype, op.low, op.high)
    ref, dim_of, keep_of = _ref(op)
    dim_of[0], keep_of[0] = dim, keepdim
    check(lambda lib, t: op.fn(lib, t, dim, keepdim), [x], mode, ref=ref,
          what=f"{op.name}{shape} {dtype} dim={dim} keepdim={keepdim}")
