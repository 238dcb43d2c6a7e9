"""The compiled Adam/AdamW/SGD updates (kernels/optim_updates.py) against the NumPy path: the same parameters and
state, bit for bit, after several steps with the kernels on and off, one compiled call per parameter (foreach=False)
or one per group (foreach=None/True, fused=True); and against PyTorch where installed."""
import copy
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.kernels import _jit, optim_updates
from oracle import HAS_TORCH, torch

numba = pytest.importorskip("numba", reason="the [kernels] extra (numba) is not installed")

ADAM = [
    dict(),
    dict(weight_decay=0.1),  # L2 on the gradient
    dict(amsgrad=True, maximize=True),
    dict(weight_decay=0.05, amsgrad=True, betas=(0.3, 0.9)),  # |1 - beta1| >= 0.5: lerp's other formula
    dict(lr=1.0, eps=0.0),
]
SGD = [
    dict(lr=0.1),
    dict(lr=1.0, weight_decay=0.01, maximize=True),  # -lr == -1: the add without a multiply
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.02),
    dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True),
]
CASES = ([("Adam", k) for k in ADAM] + [("AdamW", k) for k in ADAM if k.get("weight_decay", 1)]
         + [("SGD", k) for k in SGD])
SHAPES = [(7, 5), (3,), (300_000,)]  # the last is split over the threads


def _grads(dtype, steps, special):
    rng = np.random.default_rng(3)
    out = []
    for _ in range(steps):
        gs = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
        if special:
            gs[0][0, :4] = [np.nan, np.inf, -np.inf, -0.0]
        out.append(gs)
    return out


def _run(name, kwargs, dtype, kernels, steps=4, special=False, spy=None):
    rng = np.random.default_rng(2)
    params = [npgrad.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    opt = getattr(npgrad.optim, name)(params, **kwargs)
    old = _jit._switch.enabled
    _jit._switch.enabled = kernels
    try:
        for gs in _grads(dtype, steps, special):
            for p, g in zip(params, gs):
                p.grad = npgrad.tensor(g)
            opt.step()
    finally:
        _jit._switch.enabled = old
    state = [{k: np.asarray(v._data).copy() for k, v in opt.state[p].items()} for p in params]
    return [p.detach().numpy().copy() for p in params], state


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_kernels_give_the_numpy_paths_bits(name, kwargs, dtype, monkeypatch):
    calls = []
    entry = optim_updates.adam_ if name.startswith("Adam") else optim_updates.sgd_
    monkeypatch.setattr(optim_updates, entry.__name__, lambda *a, f=entry: calls.append(f(*a)) or calls[-1])
    kwargs = dict(kwargs, foreach=False)  # the per-parameter kernels (the one-call path is tested below)
    p_on, s_on = _run(name, kwargs, dtype, True, special=dtype == np.float32)
    assert calls == [True] * (4 * len(SHAPES))  # each ran (not the NumPy path), whatever NPGRAD_KERNELS says
    calls.clear()
    p_off, s_off = _run(name, kwargs, dtype, False, special=dtype == np.float32)
    for a, b in zip(p_on, p_off):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)  # NaN where NaN, same bits elsewhere (-0.0 included via the sign check)
        assert np.array_equal(np.signbit(a), np.signbit(b))
    for sa, sb in zip(s_on, s_off):
        assert sa.keys() == sb.keys()
        for k in sa:
            np.testing.assert_array_equal(sa[k], sb[k])


def test_same_bits_for_any_thread_count(monkeypatch):
    from npgrad import _parallel
    monkeypatch.setattr(_parallel, "ENABLED", True)  # off where NumPy was imported before npgrad (BLAS spin)
    before = npgrad.get_num_threads()
    try:
        npgrad.set_num_threads(1)
        one = _run("AdamW", dict(weight_decay=0.1, foreach=False), np.float32, True)[0]
        npgrad.set_num_threads(2)
        two = _run("AdamW", dict(weight_decay=0.1, foreach=False), np.float32, True)[0]
    finally:
        npgrad.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_other_dtypes_take_the_numpy_path():
    g = np.ones(4, np.float16)
    assert optim_updates.sgd_(np.zeros(4, np.float16), g, None, 0.1, 0.0, False) is None
    assert optim_updates.sgd_(np.zeros(8, np.float32)[::2], np.ones(4, np.float32), None, 0.1, 0.0, False) is None
    p = npgrad.tensor(np.ones(3, np.float16), requires_grad=True)
    opt = npgrad.optim.Adam([p], lr=0.1)
    p.grad = npgrad.tensor(np.ones(3, np.float16))
    opt.step()
    assert p.dtype == npgrad.float16 and np.all(p.detach().numpy() < 1)


def test_switch_off_never_loads_the_kernels(monkeypatch):
    monkeypatch.setattr(_jit._switch, "enabled", False)
    assert not _jit.ready()
    assert optim_updates.adam_(*[np.zeros(2)] * 4, None, 0.1, 0.9, 0.999, 1e-8, 0.0, False, False, 1.0, 1.0) is None


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("name,kwargs", [("AdamW", dict(weight_decay=0.1, amsgrad=True)),
                                         ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True))])
def test_matches_torch(name, kwargs):
    ours = _run(name, kwargs, np.float32, True)[0]
    rng = np.random.default_rng(2)
    params = [torch.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True) for s in SHAPES]
    opt = getattr(torch.optim, name)(params, **kwargs)
    for gs in _grads(np.float32, 4, False):
        for p, g in zip(params, gs):
            p.grad = torch.tensor(g)
        opt.step()
    for a, p in zip(ours, params):
        np.testing.assert_allclose(a, p.detach().numpy(), rtol=1e-5, atol=1e-6)


# -- one compiled call per group (foreach / fused / the default) ------------------------------------------------

# Each path by its options: the NumPy reference (kernels off), one kernel call per parameter, one per group.
PATHS = {"numpy": (False, dict(foreach=False)), "per-param": (True, dict(foreach=False)),
         "default": (True, dict()), "foreach": (True, dict(foreach=True)), "fused": (True, dict(fused=True))}
ONE_CALL = ("default", "foreach", "fused")
MORE = {"Adam": [dict(amsgrad=True, weight_decay=0.1, maximize=True)],
        "SGD": [dict(lr=0.05, momentum=0.9, dampening=0.5, weight_decay=0.1, maximize=True)]}
GROUP_CASES = CASES + [(n, k) for n, ks in MORE.items() for k in ks]
STEPS = 6


def _scenario(lib, name, kwargs, dtype, special=False):
    """Six steps that change, between steps, everything the one-call path keeps or reads: fresh gradients
    (zero_grad(set_to_none=True)) and gradients updated in place, a parameter without a gradient for a step (its
    step count then lags the others'), a state_dict round trip into the same optimizer (new state tensors) and
    into a new one, ``p.data`` replaced, and a second parameter group."""
    rng = np.random.default_rng(2)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    late = lib.tensor(rng.standard_normal((4, 3)).astype(dtype), requires_grad=True)
    cls = getattr(lib.optim, name)
    opt = cls(params, **kwargs)
    gens = _grads(dtype, STEPS, special)
    for i, gs in enumerate(gens):
        if i == 2:
            opt.load_state_dict(copy.deepcopy(opt.state_dict()))
            params[0].data = params[0].data.clone()
        if i == 3:
            opt.add_param_group({"params": [late]})
        if i == 4:
            saved = copy.deepcopy(opt.state_dict())
            opt = cls([{"params": params}, {"params": [late]}], **kwargs)
            opt.load_state_dict(saved)
        everything = params + ([late] if i >= 3 else [])
        grads = gs + [np.full((4, 3), 0.25 * i - 0.3, dtype)]
        if i % 2:
            opt.zero_grad(set_to_none=False)
        else:
            opt.zero_grad()
        for k, (p, g) in enumerate(zip(everything, grads)):
            if i == 1 and k == 1:
                p.grad = None  # no gradient this step: its step count lags the others' from now on
                continue
            if p.grad is None:
                p.grad = lib.tensor(g)
            else:
                p.grad.copy_(lib.tensor(g))  # the same gradient tensor as the last step
        opt.step()
    everything = params + [late]
    state = [{k: np.asarray(v.detach().numpy() if hasattr(v, "detach") else v).copy() for k, v in opt.state[p].items()}
             for p in everything]
    return [p.detach().numpy().copy() for p in everything], state


def _on_path(path, name, kwargs, dtype, special=False):
    kernels, extra = PATHS[path]
    old = _jit._switch.enabled
    _jit._switch.enabled = kernels
    try:
        return _scenario(npgrad, name, {**kwargs, **extra}, dtype, special)
    finally:
        _jit._switch.enabled = old


def _assert_same_bits(a, b):
    for x, y in zip(a[0], b[0]):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
        assert np.array_equal(np.signbit(x), np.signbit(y))
    for sx, sy in zip(a[1], b[1]):
        assert sx.keys() == sy.keys()
        for k in sx:
            np.testing.assert_array_equal(sx[k], sy[k])
            assert sx[k].dtype == sy[k].dtype


def _spy(monkeypatch):
    """Record what the one-call and the per-parameter entry points answer."""
    seen = {"many": [], "one": []}
    for attr, key in (("adam_many", "many"), ("sgd_many", "many"), ("adam_", "one"), ("sgd_", "one")):
        fn = getattr(optim_updates, attr)
        monkeypatch.setattr(optim_updates, attr, lambda *a, f=fn, k=key, **kw: seen[k].append(f(*a, **kw)) or
                            seen[k][-1])
    return seen


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", GROUP_CASES)
def test_one_call_per_group_gives_the_same_bits(name, kwargs, dtype, monkeypatch):
    special = dtype == np.float32  # NaN, inf, -inf and -0.0 in a gradient
    reference = _on_path("numpy", name, kwargs, dtype, special)
    seen = _spy(monkeypatch)
    _assert_same_bits(_on_path("per-param", name, kwargs, dtype, special), reference)
    assert not seen["many"] and len(seen["one"]) > 0 and all(seen["one"])
    for path in ONE_CALL:
        seen["many"].clear(), seen["one"].clear()
        _assert_same_bits(_on_path(path, name, kwargs, dtype, special), reference)
        # one call per group and step (one group for three steps, then two), never one per parameter
        assert seen["many"] == [True] * (3 + 2 * 3) and not seen["one"], path


def test_one_call_same_bits_for_any_thread_count(monkeypatch):
    from npgrad import _parallel
    monkeypatch.setattr(_parallel, "ENABLED", True)  # off where NumPy was imported before npgrad (BLAS spin)
    before = npgrad.get_num_threads()
    try:
        npgrad.set_num_threads(1)
        one = _on_path("foreach", "AdamW", dict(weight_decay=0.1, amsgrad=True), np.float32)
        npgrad.set_num_threads(2)
        two = _on_path("foreach", "AdamW", dict(weight_decay=0.1, amsgrad=True), np.float32)
    finally:
        npgrad.set_num_threads(before)
    _assert_same_bits(one, two)


@pytest.mark.parametrize("name,kwargs", [("AdamW", dict(amsgrad=True)), ("SGD", dict(lr=0.1, momentum=0.9))])
def test_one_call_pieces_that_cut_parameters(name, kwargs, monkeypatch):
    """Thread pieces of the group's element range that start and end inside parameters: the same bits."""
    from npgrad import _parallel
    shapes = [(1500,)] * 9 + [(7, 3), (0,), (2000,)]
    rng = np.random.default_rng(4)
    start = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(3)]

    def run(kernels, threads, **flags):
        params = [npgrad.tensor(a.copy(), requires_grad=True) for a in start]
        opt = getattr(npgrad.optim, name)(params, **kwargs, **flags)
        old = _jit._switch.enabled
        before = npgrad.get_num_threads()
        _jit._switch.enabled = kernels
        npgrad.set_num_threads(threads)
        try:
            for gs in grads:
                for p, g in zip(params, gs):
                    p.grad = npgrad.tensor(g)
                opt.step()
        finally:
            _jit._switch.enabled = old
            npgrad.set_num_threads(before)
        state = [{k: v.numpy().copy() for k, v in opt.state[p].items()} for p in params]
        return [p.detach().numpy() for p in params], state

    pieces, cuts = [], []
    split = _parallel.split
    monkeypatch.setattr(_parallel, "MIN_PIECE", 1024)
    monkeypatch.setattr(_parallel, "ENABLED", True)  # off where NumPy was imported before npgrad (BLAS spin)
    monkeypatch.setattr(_parallel, "split", lambda fn, n, grain: pieces.append((n, grain)) or split(
        lambda lo, hi: cuts.append(lo) or fn(lo, hi), n, grain))
    ours = run(True, 4, foreach=True)
    total = sum(int(np.prod(s)) for s in shapes)
    assert (total, 1024) in pieces  # one split over the whole group...
    assert any(lo % 1500 for lo in cuts)  # ...into pieces that start inside parameters
    _assert_same_bits(ours, run(False, 1, foreach=False))


def _step_twice(params, name, kwargs, kernels, grads):
    opt = getattr(npgrad.optim, name)(params, **kwargs)
    old = _jit._switch.enabled
    _jit._switch.enabled = kernels
    try:
        for _ in range(2):
            for p, g in zip(params, grads()):
                p.grad = g
            opt.step()
    finally:
        _jit._switch.enabled = old
    return [p.detach().numpy().copy() for p in params], opt


def _refused_cases(dtype=np.float32):
    """Groups the one-call path must leave to the per-parameter loop: each builds (params, grads)."""
    rng = np.random.default_rng(5)

    def fresh(*shapes, dt=dtype):
        return [npgrad.tensor(rng.standard_normal(s).astype(dt), requires_grad=True) for s in shapes]

    def mixed():  # two dtypes in one group
        ps = fresh((3, 2)) + fresh((4,), dt=np.float64)
        return ps, lambda: [npgrad.ones_like(p) * 0.5 for p in ps]

    def shared():  # two parameters over one buffer: updated one after the other, never interleaved
        a, b = fresh((6,), (6,))
        b.data = a.data
        return [a, b], lambda: [npgrad.full((6,), 0.3), npgrad.full((6,), -0.7)]

    def twice():  # the same parameter listed twice (PyTorch warns, and updates it twice)
        (a,) = fresh((5,))
        return [a, a], lambda: [npgrad.full((5,), 0.2), npgrad.full((5,), 0.2)]

    def grad_is_param():  # a gradient sharing memory with another parameter
        a, b = fresh((4,), (4,))
        return [a, b], lambda: [npgrad.full((4,), 0.1), a.detach()]

    def strided_grad():  # a non-contiguous gradient
        (a,) = fresh((3, 4))
        return [a], lambda: [npgrad.tensor(rng.standard_normal((4, 3)).astype(dtype)).t()]

    def half():  # a dtype the kernels do not take
        ps = fresh((5,), dt=np.float16)
        return ps, lambda: [npgrad.ones_like(p) for p in ps]

    return {"mixed": mixed, "shared": shared, "twice": twice, "grad_is_param": grad_is_param,
            "strided_grad": strided_grad, "half": half}


@pytest.mark.parametrize("case", list(_refused_cases()))
@pytest.mark.parametrize("name,kwargs", [("AdamW", dict(amsgrad=True, foreach=True)),
                                         ("SGD", dict(lr=0.1, momentum=0.9, fused=True))])
def test_what_one_call_refuses_runs_as_before(case, name, kwargs, monkeypatch):
    seen = _spy(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the duplicate-parameter warning
        params, grads = _refused_cases()[case]()
        ours = _step_twice(params, name, kwargs, True, grads)[0]
        params, grads = _refused_cases()[case]()
        reference = _step_twice(params, name, dict(kwargs, foreach=False, fused=None), False, grads)[0]
    assert seen["many"] == [None, None]
    for a, b in zip(ours, reference):
        np.testing.assert_array_equal(a, b)


def test_one_call_refuses_read_only_arrays():
    a = np.zeros(4, np.float32)
    a.flags.writeable = False
    row = [a, np.ones(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32)]
    assert optim_updates.adam_many([row], [0.1], [1.0], 0.1, 0.9, 0.999, 1e-8, 0.0, False, False) is None
    assert optim_updates.sgd_many([row[:2]], [], 0.1, 0.0, False) is None
    assert np.all(a == 0)


def test_one_call_off_without_the_kernels(monkeypatch):
    monkeypatch.setattr(_jit._switch, "enabled", False)
    row = [np.zeros(4, np.float32), np.ones(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32)]
    assert optim_updates.adam_many([row], [0.1], [1.0], 0.1, 0.9, 0.999, 1e-8, 0.0, False, False) is None
    assert np.all(row[0] == 0)


def test_defaults_report_the_flags_as_given():
    p = npgrad.tensor([1.0, 2.0], requires_grad=True)
    for name in ("Adam", "AdamW", "SGD"):
        for flags in (dict(), dict(foreach=True), dict(fused=True), dict(foreach=False)):
            opt = getattr(npgrad.optim, name)([p], lr=0.1, **flags)
            p.grad = npgrad.tensor([0.5, -0.5])
            opt.step()
            for where in (opt.defaults, opt.param_groups[0], opt.state_dict()["param_groups"][0]):
                assert where["foreach"] is flags.get("foreach") and where["fused"] is flags.get("fused")
            if HAS_TORCH:
                t = torch.tensor([1.0, 2.0], requires_grad=True)
                topt = getattr(torch.optim, name)([t], lr=0.1, **flags)
                t.grad = torch.tensor([0.5, -0.5])
                topt.step()
                assert opt.defaults == topt.defaults
                assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", [("AdamW", dict(weight_decay=0.1, amsgrad=True)),
                                         ("Adam", dict(weight_decay=0.05, maximize=True)),
                                         ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
                                         ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.02))])
def test_one_call_matches_torch_foreach(name, kwargs, dtype):
    ours = _on_path("foreach", name, kwargs, dtype)
    theirs = _scenario(torch, name, dict(kwargs, foreach=True), dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, **tol)
    for sa, sb in zip(ours[1], theirs[1]):
        assert sa.keys() == sb.keys()
        for k in sa:
            np.testing.assert_allclose(sa[k], sb[k], **tol)


# -- PyTorch's checks of the flags ---------------------------------------------------------------------------

def _error(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, str(info.value).replace("torch.", "npgrad.")


def _flag_errors():
    def build(name, params_of, **kw):
        return lambda lib: getattr(lib.optim, name)(params_of(lib), lr=0.1, **kw)

    one = lambda lib: [lib.ones(3, requires_grad=True)]  # noqa: E731
    cases = {}
    for name in ("Adam", "AdamW", "SGD"):
        cases[f"{name}-fused-differentiable"] = build(name, one, fused=True, differentiable=True)
        cases[f"{name}-fused-foreach"] = build(name, one, fused=True, foreach=True)
        cases[f"{name}-all-three"] = build(name, one, fused=True, foreach=True, differentiable=True)
        cases[f"{name}-empty-first"] = build(name, lambda lib: [], fused=True, differentiable=True)

        def complex_step(lib, name=name):
            p = lib.ones(3, dtype=lib.complex64, requires_grad=True)
            opt = getattr(lib.optim, name)([p], lr=0.1, fused=True)
            p.grad = lib.ones(3, dtype=lib.complex64)
            opt.step()
        cases[f"{name}-fused-complex"] = complex_step

    def sparse_sgd(lib, momentum):
        emb = lib.nn.Embedding(4, 3, sparse=True)
        emb(lib.tensor([1])).sum().backward()
        lib.optim.SGD(emb.parameters(), lr=0.1, momentum=momentum, fused=True).step()
    cases["SGD-fused-sparse"] = lambda lib: sparse_sgd(lib, 0.0)
    cases["SGD-fused-sparse-momentum"] = lambda lib: sparse_sgd(lib, 0.9)

    def foreach_differentiable(lib, name):
        p = lib.ones(3, requires_grad=True)
        opt = getattr(lib.optim, name)([p], lr=0.1, foreach=True, differentiable=True)
        p.grad = lib.ones(3)
        opt.step()
    cases["Adam-foreach-differentiable"] = lambda lib: foreach_differentiable(lib, "Adam")
    cases["AdamW-foreach-differentiable"] = lambda lib: foreach_differentiable(lib, "AdamW")
    return cases


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("case", list(_flag_errors()))
def test_flag_errors_match_torch(case):
    fn = _flag_errors()[case]
    assert _error(npgrad, fn) == _error(torch, fn)


def test_flag_errors_without_torch():
    p = npgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        npgrad.optim.AdamW([p], fused=True, differentiable=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        npgrad.optim.SGD([p], lr=0.1, fused=True, foreach=True)
    c = npgrad.ones(3, dtype=npgrad.complex64, requires_grad=True)
    opt = npgrad.optim.Adam([c], fused=True)
    opt.step()  # no gradient: nothing checked
    c.grad = npgrad.ones(3, dtype=npgrad.complex64)
    with pytest.raises(RuntimeError, match=r"requires all the params to be floating point .* but npgrad.complex64"):
        opt.step()
    opt = npgrad.optim.Adam([c], foreach=True)  # foreach takes complex parameters (the NumPy path)
    opt.step()
    assert np.allclose(c.detach().numpy(), 0.999)


def test_fused_takes_capturable_on_the_cpu_as_torch():
    """PyTorch's fused CPU step accepts capturable=True (its other paths refuse it off an accelerator)."""
    def run(lib, **flags):
        p = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        opt = lib.optim.AdamW([p], lr=0.1, **flags)
        for _ in range(3):
            p.grad = lib.tensor([0.3, -0.2, 0.1])
            opt.step()
        return p.detach().numpy()
    ours = run(npgrad, fused=True, capturable=True)
    np.testing.assert_array_equal(ours, run(npgrad))  # capturable changes nothing on the CPU
    with pytest.raises(AssertionError, match="If capturable=True"):
        run(npgrad, capturable=True)
    if HAS_TORCH:
        np.testing.assert_allclose(ours, run(torch, fused=True, capturable=True), rtol=1e-6)


def test_one_call_cache_keeps_no_replaced_array_alive():
    import gc
    import weakref
    p = npgrad.tensor(np.ones(6, np.float32), requires_grad=True)
    opt = npgrad.optim.AdamW([p], lr=0.1, foreach=True)
    p.grad = npgrad.ones(6)
    opt.step()
    old = weakref.ref(p._data)
    p.data = npgrad.zeros(6)
    gc.collect()
    assert old() is None  # the group's cached addresses hold only weak references
    p.grad = npgrad.ones(6)
    opt.step()  # and the next step reads the new array's address
    assert np.all(p.detach().numpy() < 0)
