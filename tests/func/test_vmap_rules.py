"""vmap over the op table: for every operator's first parity sample, vmap(op) over a batch of three inputs
(every tensor input mapped) equals the loop of single calls stacked, with or without a batching rule, and
equals torch.func.vmap where PyTorch can vmap it; an operator the loop gives differently shaped results for
makes vmap raise. Then the rules' own cases: in_dims/out_dims forms, nested vmap, randomness, the fallback."""
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.func import _dispatch
from opinfo import OP_DB
from oracle import HAS_TORCH, make_arrays, torch

B = 3
ROWS = [(op, next(s for s in op.samples if "parity" in s.checks)) for op in OP_DB
        if any("parity" in s.checks for s in op.samples)]


def _tensors(out):
    flat = list(out) if isinstance(out, (tuple, list)) else [out]
    return tuple(o for o in flat if hasattr(o, "dim"))


def _inputs(sample, lib, seed):
    return [lib.tensor(a) for a in make_arrays(sample, np.float64, seed=seed)]


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _loop(sample, lib, reseed=False):
    rows = []
    for seed in range(B):
        inputs = _inputs(sample, lib, seed)
        if reseed:
            lib.manual_seed(0)
        rows.append(_tensors(sample.fn(lib, *inputs)))
    return rows


def _vmapped(sample, lib, funcs, randomness="error"):
    cols = list(zip(*[_inputs(sample, lib, seed) for seed in range(B)]))
    stacked = [lib.stack(list(c)) for c in cols]
    if randomness == "same":
        lib.manual_seed(0)
    return funcs.vmap(lambda *xs: _tensors(sample.fn(lib, *xs)), randomness=randomness)(*stacked)


def _draws(sample):
    """Whether one call moves (or reseeds) the generator."""
    npgrad.manual_seed(12345)
    before = npgrad.get_rng_state()
    sample.fn(npgrad, *_inputs(sample, npgrad, 0))
    return not np.array_equal(_np(before), _np(npgrad.get_rng_state()))


@pytest.mark.parametrize("op,sample", ROWS, ids=[f"{op.name}-{s.name}" for op, s in ROWS])
def test_vmap_of_op_equals_the_loop(op, sample):
    npgrad.manual_seed(0)
    rows = _loop(sample, npgrad)
    same_shapes = all(tuple(r[k].shape) == tuple(rows[0][k].shape) for r in rows for k in range(len(rows[0])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not same_shapes:
            with pytest.raises(RuntimeError):
                _vmapped(sample, npgrad, npgrad.func)
            return
        random = _draws(sample)
        if random:   # 'error' raises; 'same' gives every example the numbers one call draws
            with pytest.raises(RuntimeError, match="randomness error mode"):
                _vmapped(sample, npgrad, npgrad.func)
            rows = _loop(sample, npgrad, reseed=True)
        got = _vmapped(sample, npgrad, npgrad.func, "same" if random else "error")
    assert len(got) == len(rows[0])
    for k, g in enumerate(got):
        want = np.stack([_np(r[k]) for r in rows])
        assert g.dtype == rows[0][k].dtype, (k, g.dtype, rows[0][k].dtype)
        np.testing.assert_allclose(_np(g), want, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=f"output {k}")
    if HAS_TORCH and not random:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # functorch's own fallback warnings
                theirs = _vmapped(sample, torch, torch.func)
        except Exception:   # functorch cannot vmap it (data-dependent or unsupported): the loop is the oracle
            return
        for g, t in zip(got, theirs):
            np.testing.assert_allclose(_np(g), t.detach().numpy(), rtol=1e-7, atol=1e-9, equal_nan=True)
