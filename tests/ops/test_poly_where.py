"""ops._poly.where picks bits for float arrays (bits_select); it must equal np.where bit for bit."""
import numpy as np
import pytest

from npgrad.ops import _poly as P


def _arrays(dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((5, 7)).astype(dtype)
    a.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    b = rng.standard_normal((5, 7)).astype(dtype)
    b.flat[-3:] = [np.nan, -0.0, np.inf]
    return a, b, rng.random((5, 7)) > 0.5


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", ["a,b", "a,0.0", "a,-0.0", "a,0", "a,2.5", "0.0,a", "-1,a", "a,b64", "a,b.T.T",
                                  "row-cond", "noncontig"])
def test_where_equals_numpy_bit_for_bit(dtype, case):
    a, b, c = _arrays(dtype, 0)
    args = {"a,b": (c, a, b), "a,0.0": (c, a, 0.0), "a,-0.0": (c, a, -0.0), "a,0": (c, a, 0),
            "a,2.5": (c, a, 2.5), "0.0,a": (c, 0.0, a), "-1,a": (c, -1, a), "a,b64": (c, a, b.astype(np.float64)),
            "a,b.T.T": (c, a, b.T.T), "row-cond": (c[0], a, b),
            "noncontig": (c[:, ::2], a[:, ::2], b[:, ::2])}[case]
    got, want = P.where(*args), np.where(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), f"{case}: {got} != {want}"


def test_bits_select_overwrite_writes_into_the_temporary():
    a, b, c = _arrays(np.float32, 1)
    tmp = a.copy()
    out = P.bits_select(c, True, tmp, 1.5, overwrite=True)
    assert out is tmp
    assert out.tobytes() == np.where(c, a, np.float32(1.5)).tobytes()
    with np.errstate(invalid="ignore"):  # a holds NaN, whose int cast is undefined (and unused here)
        ints = a.astype(np.int32)
    assert P.bits_select(c, True, ints, 0, False) is None  # not a float array: np.where's job
