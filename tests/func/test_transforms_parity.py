"""torch.func's transforms against PyTorch 2.13: the same functions (written with ``lib.`` ops) through
npgrad.func and torch.func give the same values (float64, rtol 1e-10), the same pytree structure, and nest
the same way (grad of grad, jacrev of grad, vmap of grad, hessian)."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch
from _funcs import B, X, Y, leaves, np_of, scalar, structure, two_out, vector

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
TOL = dict(rtol=1e-10, atol=1e-12)
pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore:npgrad runs torch.func.vmap as a Python loop")]


def both(build):
    """build(lib, F, t) -> result, with t making a float64 tensor of the library; results compared."""
    ours = build(npgrad, npgrad.func, lambda a: npgrad.tensor(np.asarray(a, dtype=np.float64)))
    theirs = build(torch, torch.func, lambda a: torch.tensor(np.asarray(a, dtype=np.float64)))
    assert structure(ours) == structure(theirs)
    for i, (a, b) in enumerate(zip(leaves(ours), leaves(theirs))):
        if isinstance(b, torch.Tensor):
            assert a.dtype == getattr(npgrad, str(b.dtype).split(".")[1]), i
            assert a.requires_grad == b.requires_grad, f"leaf {i}: requires_grad"
            assert_close(np_of(a), np_of(b), what=f"leaf {i}", **TOL)
        else:
            assert a == b
    return ours


CASES = {
    "grad": lambda lib, F, t: F.grad(scalar(lib))(t(X), t(Y)),
    "grad argnums tuple": lambda lib, F, t: F.grad(scalar(lib), argnums=(0, 1))(t(X), t(Y)),
    "grad argnums negative": lambda lib, F, t: F.grad(scalar(lib), argnums=-1)(t(X), t(Y)),
    "grad pytree arg": lambda lib, F, t: F.grad(lambda d: (d["w"] * lib.cos(d["b"][0])).sum())(
        {"w": t(X), "b": [t(Y)]}),
    "grad has_aux": lambda lib, F, t: F.grad(lambda x: ((x ** 2).sum(), {"m": x.mean()}), has_aux=True)(t(X)),
    "grad_and_value": lambda lib, F, t: F.grad_and_value(scalar(lib), argnums=(0, 1))(t(X), t(Y)),
    "grad_and_value has_aux": lambda lib, F, t: F.grad_and_value(lambda x: (x.sum() ** 2, x * 2),
                                                                 has_aux=True)(t(X)),
    "grad of grad": lambda lib, F, t: F.grad(lambda x: F.grad(scalar(lib))(x, t(Y)).sum())(t(X)),
    "grad of grad of grad": lambda lib, F, t: F.grad(lambda x: F.grad(lambda z: F.grad(
        lambda w: (w ** 4).sum())(z).sum())(x).sum())(t(X)),
    "jacrev": lambda lib, F, t: F.jacrev(vector(lib))(t(X)),
    "jacrev argnums tuple": lambda lib, F, t: F.jacrev(lambda x, y: lib.sin(x) * y, argnums=(0, 1))(t(X), t(Y)),
    "jacrev pytree": lambda lib, F, t: F.jacrev(two_out(lib))((t(X), t(Y))),
    "jacrev has_aux": lambda lib, F, t: F.jacrev(lambda x: (x ** 2, x.sum()), has_aux=True)(t(X)),
    "jacrev matrix": lambda lib, F, t: F.jacrev(lambda m: m @ m.T)(t(B)),
    "jacrev of grad": lambda lib, F, t: F.jacrev(F.grad(scalar(lib)))(t(X), t(Y)),
    "jacfwd": lambda lib, F, t: F.jacfwd(vector(lib))(t(X)),
    "jacfwd argnums tuple": lambda lib, F, t: F.jacfwd(lambda x, y: lib.sin(x) * y, argnums=(0, 1))(t(X), t(Y)),
    "jacfwd pytree": lambda lib, F, t: F.jacfwd(two_out(lib))((t(X), t(Y))),
    "jacfwd matrix": lambda lib, F, t: F.jacfwd(lambda m: m @ m.T)(t(B)),
    "jacfwd of jacrev": lambda lib, F, t: F.jacfwd(F.jacrev(vector(lib)))(t(X)),
    "hessian": lambda lib, F, t: F.hessian(scalar(lib))(t(X), t(Y)),
    "hessian argnums tuple": lambda lib, F, t: F.hessian(scalar(lib), argnums=(0, 1))(t(X), t(Y)),
    "jvp": lambda lib, F, t: F.jvp(vector(lib), (t(X),), (t(Y),)),
    "jvp two primals": lambda lib, F, t: F.jvp(lambda x, y: (x * y, lib.exp(y)), (t(X), t(Y)), (t(Y), t(X))),
    "jvp has_aux": lambda lib, F, t: F.jvp(lambda x: (x ** 3, x.sum()), (t(X),), (t(Y),), has_aux=True),
    "jvp of grad": lambda lib, F, t: F.jvp(F.grad(lambda x: (x ** 3).sum()), (t(X),), (t(Y),)),
    "vjp": lambda lib, F, t: (lambda o_fn: (o_fn[0], o_fn[1](t(Y))))(F.vjp(vector(lib), t(X))),
    "vjp pytree": lambda lib, F, t: (lambda o_fn: (o_fn[0], o_fn[1](
        {"a": (t(X), t(1.5)), "b": t(Y)})))(F.vjp(two_out(lib), (t(X), t(Y)))),
    "vjp has_aux": lambda lib, F, t: (lambda r: (r[0], r[1](t(Y)), r[2]))(
        F.vjp(lambda x: (x * 2, x.sum()), t(X), has_aux=True)),
    "vmap": lambda lib, F, t: F.vmap(vector(lib))(t(B)),
    "vmap in_dims 1": lambda lib, F, t: F.vmap(vector(lib), in_dims=1)(t(B)),
    "vmap out_dims 1": lambda lib, F, t: F.vmap(vector(lib), out_dims=1)(t(B)),
    "vmap in_dims None": lambda lib, F, t: F.vmap(lambda a, b: a * b, in_dims=(0, None))(t(B), t(Y)),
    "vmap pytree in_dims": lambda lib, F, t: F.vmap(lambda d: d["x"] @ d["w"], in_dims=({"x": 0, "w": None},))(
        {"x": t(B), "w": t(Y)}),
    "vmap tuple out": lambda lib, F, t: F.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))(t(B)),
    "vmap nested": lambda lib, F, t: F.vmap(F.vmap(lambda a: lib.exp(a).sum()))(t(B)),
    "vmap nested in_dims": lambda lib, F, t: F.vmap(F.vmap(lambda a, b: a * b, (0, None)), (None, 0))(
        t(X), t(B)),
    "vmap of grad": lambda lib, F, t: F.vmap(F.grad(scalar(lib)), in_dims=(0, None))(t(B), t(Y)),
    "vmap of jacrev": lambda lib, F, t: F.vmap(F.jacrev(vector(lib)))(t(B)),
    "grad of vmap": lambda lib, F, t: F.grad(lambda b: F.vmap(vector(lib))(b).sum())(t(B)),
    "vmap out_dims one-tuple": lambda lib, F, t: F.vmap(lambda a: a * 2, out_dims=(1,))(t(B)),
    "jacfwd has_aux": lambda lib, F, t: F.jacfwd(lambda x: (x ** 2, x.sum()), has_aux=True)(t(X)),
    "vmap kwargs": lambda lib, F, t: F.vmap(lambda a, scale=1.0: a * scale)(t(B), scale=3.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_func(name):
    both(CASES[name])


def test_results_do_not_require_grad_outside_any_transform():
    # and the primal itself is left alone
    x = npgrad.tensor(X)
    g = npgrad.func.grad(scalar(npgrad))(x, npgrad.tensor(Y))
    assert not g.requires_grad and not x.requires_grad and x.grad is None


def test_grad_result_differentiable_by_plain_autograd():
    # torch.func.grad inside a regular backward: the outer graph reaches the input (as in PyTorch)
    def run(lib, F):
        x = lib.tensor(X, requires_grad=True)
        g = F.grad(lambda z: (lib.sin(z) * z).sum())(x)
        g.sum().backward()
        return g.requires_grad, x.grad
    (r1, g1), (r2, g2) = run(npgrad, npgrad.func), run(torch, torch.func)
    assert r1 == r2 is True
    assert_close(np_of(g1), np_of(g2), **TOL)


def test_closure_over_outer_leaf_stays_differentiable():
    def run(lib, F):
        w = lib.tensor(Y, requires_grad=True)
        g = F.grad(lambda z: (z * w).sum() ** 2)(lib.tensor(X))
        g.sum().backward()
        return w.grad
    assert_close(np_of(run(npgrad, npgrad.func)), np_of(run(torch, torch.func)), **TOL)


def test_vjp_fn_called_twice_and_under_no_grad():
    def run(lib, F):
        out, fn = F.vjp(vector(lib), lib.tensor(X))
        first = fn(lib.tensor(Y))[0]
        with lib.no_grad():
            second = fn(lib.tensor(X))[0]
        return first, second
    for a, b in zip(run(npgrad, npgrad.func), run(torch, torch.func)):
        assert_close(np_of(a), np_of(b), **TOL)


def _error(fn_np, fn_torch, exc):
    with pytest.raises(exc) as ours:
        fn_np()
    with pytest.raises(exc) as theirs:
        fn_torch()
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["nonscalar", "nontensor", "aux_not_pair", "bad_argnum", "argnums_type",
                                  "argnums_repeat", "argnums_empty", "jvp_primals_list", "jvp_structure",
                                  "vmap_sizes", "vmap_randomness", "vmap_chunk", "jacrev_chunk",
                                  "vjp_structure", "vjp_int_output", "vmap_random_error", "vmap_out_structure",
                                  "vmap_in_structure", "vmap_non_tensor_out", "vmap_in_dim_range"])
def test_errors_match_torch(name):
    def make(lib, F):
        x = lib.tensor(X)
        return {
            "nonscalar": lambda: F.grad(lambda z: z * 2)(x),
            "nontensor": lambda: F.grad(lambda z: 1.0)(x),
            "aux_not_pair": lambda: F.grad(lambda z: z.sum(), has_aux=True)(x),
            "bad_argnum": lambda: F.grad(lambda z: z.sum(), argnums=2)(x),
            "argnums_type": lambda: F.grad(lambda z: z.sum(), argnums=[0])(x),
            "argnums_repeat": lambda: F.grad(lambda z, w: z.sum(), argnums=(0, 0))(x, x),
            "argnums_empty": lambda: F.grad(lambda z: z.sum(), argnums=())(x),
            "jvp_primals_list": lambda: F.jvp(lambda z: z, [x], [x]),
            "jvp_structure": lambda: F.jvp(lambda z, w: z, (x, x), (x,)),
            "vmap_sizes": lambda: F.vmap(lambda a, b: a + b)(lib.ones(2, 3), lib.ones(3, 3)),
            "vmap_randomness": lambda: F.vmap(lambda a: a, randomness="other")(x),
            "vmap_chunk": lambda: F.vmap(lambda a: a, chunk_size=0)(x),
            "jacrev_chunk": lambda: F.jacrev(lambda a: a, chunk_size=0)(x),
            "vjp_structure": lambda: F.vjp(lambda z: (z, z), x)[1](x),
            "vjp_int_output": lambda: F.vjp(lambda z: (z > 0).long(), x),
            "vmap_random_error": lambda: F.vmap(lambda a: a + lib.rand(3))(lib.ones(2, 3)),
            "vmap_out_structure": lambda: F.vmap(lambda a: (a, a), out_dims=(0,))(lib.ones(2, 3)),
            "vmap_in_structure": lambda: F.vmap(lambda a: a, in_dims=(0, 1))(lib.ones(2, 3)),
            "vmap_non_tensor_out": lambda: F.vmap(lambda a: 1.0)(lib.ones(2, 3)),
            "vmap_in_dim_range": lambda: F.vmap(lambda a: a, in_dims=2)(lib.ones(2, 3)),
        }[name]
    ours, theirs = make(npgrad, npgrad.func), make(torch, torch.func)
    exc = type(_raised(theirs))
    with pytest.raises(exc) as got:
        ours()
    assert str(got.value) == str(_raised(theirs)).replace("torch.int", "npgrad.int"), name


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the oracle's exception, whatever its type
        return e
    raise AssertionError("PyTorch raised nothing")


def test_vmap_randomness_same_and_different():
    npgrad.manual_seed(0)
    same = npgrad.func.vmap(lambda a: a + npgrad.rand(3), randomness="same")(npgrad.zeros(4, 3))
    assert np.allclose(np_of(same), np_of(same[0]).reshape(1, 3))
    npgrad.manual_seed(0)
    first = npgrad.rand(3)
    npgrad.manual_seed(0)
    diff = npgrad.func.vmap(lambda a: a + npgrad.rand(3), randomness="different")(npgrad.zeros(4, 3))
    assert not np.allclose(np_of(diff[0]), np_of(diff[1]))
    assert np.allclose(np_of(same[0]), np_of(first)) and np.allclose(np_of(diff[0]), np_of(first))


def test_vmap_warns_once_per_operator_without_a_batching_rule():
    import warnings
    from npgrad.func import _dispatch
    _dispatch._warned.discard("torch.kron")
    x = npgrad.ones(2, 2)
    with pytest.warns(UserWarning, match="performance drop because we have not yet implemented the batching rule "
                                         "for torch.kron"):
        looped = npgrad.func.vmap(lambda a: npgrad.kron(a, a))(x)
    assert looped.shape == (2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        npgrad.func.vmap(lambda a: npgrad.kron(a, a) * 2)(x)   # once per operator; mul has a rule