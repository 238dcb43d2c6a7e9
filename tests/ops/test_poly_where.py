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
                                  "row-cond", "noncontig", "bcast-cond,0.0,a", "bcast-cond,a,0.0", "bcast-cond,a,-0.0",
                                  "bcast-cond,2,a", "col-cond,a,-1.5"])
def test_where_equals_numpy_bit_for_bit(dtype, case):
    a, b, c = _arrays(dtype, 0)
    args = {"a,b": (c, a, b), "a,0.0": (c, a, 0.0), "a,-0.0": (c, a, -0.0), "a,0": (c, a, 0),
            "a,2.5": (c, a, 2.5), "0.0,a": (c, 0.0, a), "-1,a": (c, -1, a), "a,b64": (c, a, b.astype(np.float64)),
            "a,b.T.T": (c, a, b.T.T), "row-cond": (c[0], a, b),
            "noncontig": (c[:, ::2], a[:, ::2], b[:, ::2]),
            # a mask broadcast over the array with a scalar on the other side (masked_fill's backward): fill_where
            "bcast-cond,0.0,a": (c[0], 0.0, a), "bcast-cond,a,0.0": (c[0], a, 0.0), "bcast-cond,a,-0.0": (c[0], a, -0.0),
            "bcast-cond,2,a": (c[0], 2, a), "col-cond,a,-1.5": (c[:, :1], a, -1.5)}[case]
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


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("mask_shape", [(5, 6), (1, 6), (5, 1), (3, 5, 6), (6,), ()])
@pytest.mark.parametrize("value", [float("-inf"), 0.0, -0.0, float("nan"), 2.5])
def test_fill_where_matches_np_where_bit_for_bit(dtype, mask_shape, value):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 6)).astype(dtype)
    x[0, 0, 0, :3] = [np.nan, np.inf, -0.0]
    mask = np.asarray(rng.random(mask_shape) < 0.5)
    got = P.fill_where(x, mask, value)
    want = np.where(mask, np.asarray(value, dtype), x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))  # the bits, signed zeros and NaNs too
    xt = x[:, ::-1, :, ::-1]  # a non-contiguous input
    np.testing.assert_array_equal(P.fill_where(xt, mask, value).view(np.uint8),
                                  np.where(mask, np.asarray(value, dtype), xt).view(np.uint8))


def test_fill_where_declines_what_it_cannot_do():
    x = np.zeros((4, 5), np.float32)
    assert P.fill_where(x, np.ones((3, 4, 5), bool), 1.0) is None  # the mask would broadcast x up
    assert P.fill_where(x, np.ones((4, 5), np.int8), 1.0) is None  # not a boolean mask
    assert P.fill_where(x.astype(np.complex64), np.ones((4, 5), bool), 1.0) is None
    assert P.fill_where(x, np.ones((2, 5), bool), 1.0) is None  # not broadcastable
