"""Random compositions: chains of 2-5 operators drawn from the unary, binary (with a new leaf of a
broadcast-compatible shape), reduction, movement and indexing families, applied to a random tensor.
npgrad and PyTorch must agree on the final value and on the gradient of every leaf; without PyTorch the
value is checked against the composition of the NumPy references and the gradients against finite
differences (the chain then uses smooth operators only).

The single-operator tests check each operator; chains check what they cannot: gradients flowing through
views of views, broadcasting after reductions, indexing after permutes, accumulation into a leaf used
twice, and so on.
"""
import dataclasses
from typing import Callable, Optional

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npgrad
from _fuzz import MODES, check, dims_for, seeds, shapes, values
from _op_tables import BINARY, REDUCTIONS, UNARY
from _shape_ops import INDEXING, MOVEMENT

MAX_NUMEL = 256
FD_NUMEL = 24

SMOOTH_UNARY = {"neg", "exp", "sin", "cos", "tanh", "sigmoid", "atan", "asinh", "square", "erf", "mul_scalar",
                "pow2", "pow3", "sinh", "expm1"}
SMOOTH_BINARY = {"add", "sub", "mul", "lerp", "addcmul", "add_alpha", "rsub"}
SMOOTH_REDUCTIONS = {"sum", "mean", "nansum", "logsumexp", "softmax", "log_softmax", "cumsum", "std_c0",
                     "var_mean", "prod", "norm2"}
FLOAT_REDUCTIONS = [r for r in REDUCTIONS if r.name not in ("argmax", "all", "count_nonzero")]


@dataclasses.dataclass
class Step:
    text: str
    fn: Callable                   # fn(lib, t, leaves) -> t
    ref: Optional[Callable]        # ref(array, leaf_arrays) -> array


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def _unary_step(data, shape, leaves, smooth):
    op = data.draw(st.sampled_from([u for u in UNARY if not smooth or u.name in SMOOTH_UNARY]), label="unary")
    return Step(op.name, lambda lib, t, ls: op.fn(lib, t), lambda a, las: op.ref(a))


def _binary_step(data, shape, leaves, smooth):
    op = data.draw(st.sampled_from([b for b in BINARY if not smooth or b.name in SMOOTH_BINARY]), label="binary")
    other = data.draw(_operand_shape(shape), label="other shape")
    k = len(leaves)
    leaves.append(values(data.draw(seeds, label="leaf seed"), other, "float64", *op.b, away_from=op.b_away))
    swap = data.draw(st.booleans(), label="leaf first")
    if swap:
        return Step(f"{op.name}(leaf{k}{other}, .)", lambda lib, t, ls: op.fn(lib, ls[k], t),
                    lambda a, las: op.ref(las[k], a))
    return Step(f"{op.name}(., leaf{k}{other})", lambda lib, t, ls: op.fn(lib, t, ls[k]),
                lambda a, las: op.ref(a, las[k]))


@st.composite
def _operand_shape(draw, shape):
    """A shape that broadcasts with ``shape`` (a suffix with some sizes 1, maybe extra leading dims)."""
    k = draw(st.integers(0, len(shape)))
    suffix = tuple(1 if draw(st.booleans()) else s for s in shape[len(shape) - k:])
    lead = tuple(draw(st.lists(st.sampled_from([1, 2]), max_size=1))) if k == len(shape) else ()
    return lead + suffix


def _reduction_step(data, shape, leaves, smooth):
    op = data.draw(st.sampled_from([r for r in FLOAT_REDUCTIONS if not smooth or r.name in SMOOTH_REDUCTIONS]),
                   label="reduction")
    nd = len(shape)
    if op.dims == "required":
        dim = data.draw(dims_for(nd, allow_tuple=False, allow_none=False), label="dim")
    else:
        dim = data.draw(dims_for(nd, allow_tuple=op.dims == "tuple"), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    if op.ref is None:
        ref = None
    else:
        def ref(a, las):
            return op.ref(a, dim if a.ndim else None, keepdim)
    return Step(f"{op.name}(dim={dim}, keepdim={keepdim})", lambda lib, t, ls: _first(op.fn(lib, t, dim, keepdim)),
                ref)


def _shape_step(table):
    def step(data, shape, leaves, smooth):
        op = data.draw(st.sampled_from(table), label="shape op")
        args = op.draw(data, shape)
        if args is None:
            return None
        ref = (lambda a, las: op.ref(a, args)) if op.ref else None
        return Step(f"{op.name}{args}", lambda lib, t, ls: op.fn(lib, t, args), ref)
    return step


FAMILIES = {"unary": _unary_step, "binary": _binary_step, "reduction": _reduction_step,
            "movement": _shape_step(MOVEMENT), "indexing": _shape_step(INDEXING)}


def _build_chain(data, mode, seed):
    smooth = mode == "fd"
    # mostly non-empty shapes (a chain on an empty tensor is short-lived); sizes 0 still come up
    shape = data.draw(shapes(sides=(1, 2, 3, 4) if smooth else (1, 2, 3, 4, 2, 3, 0),
                             max_numel=FD_NUMEL if smooth else 64), label="shape")
    leaves = [values(seed, shape, "float64", -1.5, 1.5)]
    steps = []
    current = npgrad.tensor(leaves[0])
    length = data.draw(st.integers(2, 5), label="length")
    attempts = 0
    while len(steps) < length and attempts < 3 * length:
        attempts += 1
        family = data.draw(st.sampled_from(sorted(FAMILIES)), label="family")
        n_leaves = len(leaves)
        step = FAMILIES[family](data, tuple(current.shape), leaves, smooth)
        if step is None:
            continue
        try:  # run the prefix in npgrad to learn the next shape; a step that fails is dropped
            with npgrad.no_grad():
                nxt = step.fn(npgrad, current, [npgrad.tensor(a) for a in leaves])
        except Exception:  # noqa: BLE001 - errors are compared operator by operator elsewhere
            nxt = None
        if not isinstance(nxt, npgrad.Tensor) or not nxt.is_floating_point() or nxt.numel() > MAX_NUMEL or \
                smooth and sum(a.size for a in leaves) > FD_NUMEL:
            del leaves[n_leaves:]
            continue
        steps.append(step)
        current = nxt
    return leaves, steps


@pytest.mark.parametrize("mode", MODES)
@given(data=st.data(), seed=seeds)
def test_random_chain(mode, data, seed):
    leaves, steps = _build_chain(data, mode, seed)

    def fn(lib, *ts):
        t = ts[0]
        for s in steps:
            t = s.fn(lib, t, ts)
        return t

    if all(s.ref is not None for s in steps):
        def ref(*arrays):
            a = arrays[0]
            with np.errstate(all="ignore"):
                for s in steps:
                    a = np.asarray(s.ref(a, arrays))
            return a
    else:
        ref = None
    check(fn, leaves, mode, ref=ref, what=" -> ".join([f"x{leaves[0].shape}"] + [s.text for s in steps]))


def test_chains_reach_every_family():
    """The chain strategy really composes all five families (guards against a strategy that silently
    stops early, e.g. because a family's steps always fail)."""
    seen = set()

    @given(data=st.data(), seed=seeds)
    def probe(data, seed):
        _, steps = _build_chain(data, MODES[0], seed)
        for s in steps:
            seen.add(s.text.split("(")[0].split("{")[0])

    probe()
    names = {u.name for u in UNARY} | {b.name for b in BINARY} | {r.name for r in REDUCTIONS} | \
        {m.name for m in MOVEMENT} | {i.name for i in INDEXING}
    families_seen = {f for f, members in [("unary", {u.name for u in UNARY}), ("binary", {b.name for b in BINARY}),
                                          ("reduction", {r.name for r in REDUCTIONS}),
                                          ("movement", {m.name for m in MOVEMENT}),
                                          ("indexing", {i.name for i in INDEXING})] if members & seen}
    assert seen <= names | {""}
    assert families_seen == set(FAMILIES), families_seen
