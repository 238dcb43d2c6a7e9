"""torch.jit over eager code: scripted and traced functions and modules compute what the eager code does,
with PyTorch's types, copies, decorators and side effects; each program is written once against a ``lib``
and run with npgrad and (when installed) PyTorch."""
import typing
import warnings

import numpy as np
import pytest

import npgrad

try:
    import torch
    HAS_TORCH = True
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
    HAS_TORCH = False

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch, which is not installed")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def make_fn(lib):
    def f(x, y, k: float = 2.0):
        return (x * y).tanh() * k + x.sum(0)
    return f


def make_model(lib, exported=True):
    nn = lib.nn

    class Net(nn.Module):
        scale: lib.jit.Final[float]

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.bn = nn.BatchNorm1d(4)
            self.scale = 0.5
            self.offset = 1.0

        def forward(self, x):
            return self.twice(self.bn(self.fc(x)).relu()) * self.scale

        def twice(self, x):
            return x * 2

        if exported:
            twice = lib.jit.export(twice)

        @lib.jit.ignore
        def python_only(self, x):
            return x.detach().numpy().sum()

    return Net


def _inputs(lib, seed=0, shape=(5, 3)):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(shape), dtype=lib.float32, requires_grad=True) for _ in range(2)]


def _models(exported=True):
    """One npgrad Net and, with torch, a torch Net holding the same weights."""
    npgrad.manual_seed(0)
    out = [make_model(npgrad, exported)()]
    if HAS_TORCH:
        t = make_model(torch, exported)()
        t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in out[0].state_dict().items()})
        out.append(t)
    return out


def _np(t):
    return t.detach().numpy()


def test_scripted_and_traced_functions_give_eager_values_and_gradients():
    results = []
    for lib in LIBS:
        f = make_fn(lib)
        # a trace records the default k; a call with k=2.0 is the same computation
        for wrapped, k in ((f, (3.0,)), (lib.jit.script(f), (3.0,)), (f, ()),
                           (lib.jit.trace(f, tuple(_inputs(lib, 1))), ())):
            x, y = _inputs(lib)
            out = wrapped(x, y, *k)
            out.sum().backward()
            results.append((_np(out), x.grad.numpy(), y.grad.numpy()))
    for i, r in enumerate(results):
        for a, b in zip(results[(i % 4) // 2 * 2], r):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_script_function_types_and_names(lib):
    f = make_fn(lib)
    s = lib.jit.script(f)
    assert isinstance(s, lib.jit.ScriptFunction) and s.name == "f"
    # PyTorch inserts a mangled part before the name when the module holds another f
    assert s.qualified_name.startswith(f"__torch__.{f.__module__}.") and s.qualified_name.endswith(".f")
    assert lib.jit.script(s) is s
    assert not hasattr(s, "__wrapped__")


def test_scripted_module_behaves_as_the_module():
    per_lib = []
    for m, lib in zip(_models(), LIBS):
        s = lib.jit.script(m)
        x, _ = _inputs(lib)
        out = s(x)
        out.sum().backward()
        grads = [p.grad.numpy().copy() for p in m.parameters()]
        s.eval()
        flags = (m.training, m.bn.training, s.training, s.bn.training)
        ev = _np(s(x))
        m.eval()
        np.testing.assert_allclose(ev, _np(m(x)), rtol=1e-6)
        s.offset = 3.0  # a plain attribute is the copy's own; a Final one is a constant
        with pytest.raises(RuntimeError, match="Can't set constant 'scale' which has value:0.5"):
            s.scale = 3.0
        per_lib.append(dict(out=_np(out), grads=grads, flags=flags, keys=list(s.state_dict()), repr=repr(s),
                            shared=s.fc.weight is m.fc.weight, offset=m.offset, ex=_np(s.twice(x)),
                            types=(isinstance(s, lib.nn.Module), isinstance(s, lib.jit.ScriptModule),
                                   type(s).__name__, s.original_name, s.fc.original_name),
                            ignored=float(s.python_only(x))))
    nd = per_lib[0]
    assert nd["shared"] and nd["flags"] == (True, True, False, False) and nd["offset"] == 1.0
    assert nd["types"] == (True, True, "RecursiveScriptModule", "Net", "Linear")
    for other in per_lib[1:]:
        for k in ("flags", "keys", "repr", "shared", "offset", "types"):
            assert nd[k] == other[k], k
        for k in ("out", "ex", "ignored"):
            np.testing.assert_allclose(nd[k], other[k], rtol=1e-5, atol=1e-6)
        for a, b in zip(nd["grads"], other["grads"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_script_refuses_a_module_class_and_builtins(lib):
    Net = make_model(lib)
    with pytest.raises(RuntimeError, match="cannot be compiled since it inherits from nn.Module, pass an instance"):
        lib.jit.script(Net)
    with pytest.raises(TypeError, match="is a built-in class"):
        lib.jit.script(3)

    class Point:
        def __init__(self, x: int):
            self.x = x
    assert lib.jit.script(Point) is Point


@pytest.mark.parametrize("kwargs", [{}, {"check_trace": False}, {"check_inputs": "two"}])
def test_trace_runs_the_module_as_often_as_pytorch(kwargs):
    # The trace and PyTorch's check runs are what a program sees: BatchNorm's count in training mode.
    counts = []
    for m, lib in zip(_models(exported=False), LIBS):
        x, _ = _inputs(lib)
        kw = dict(kwargs)
        if kw.get("check_inputs") == "two":
            kw["check_inputs"] = [(x,), (x * 2,)]
        t = lib.jit.trace(m, x, **kw)
        counts.append(int(m.bn.num_batches_tracked))
        assert isinstance(t, lib.jit.TopLevelTracedModule) and t.fc.weight is m.fc.weight
        xs = _inputs(lib, 3, (7, 3))[0]  # another batch size: the eager code runs on it
        np.testing.assert_allclose(_np(t(xs)), _np(m(xs)), rtol=1e-6)
    expected = {"check_trace": 1, "check_inputs": 9}.get(next(iter(kwargs), None), 5)
    assert counts[0] == expected
    assert len(set(counts)) == 1, counts


def test_trace_module_runs_each_method_as_often_as_pytorch():
    # per check input and method: a retrace of every method, then three runs of that method
    counts = []
    for m, lib in zip(_models(exported=False), LIBS):
        x, _ = _inputs(lib)
        lib.jit.trace_module(m, {"forward": x, "twice": x})
        counts.append(int(m.bn.num_batches_tracked))
    assert counts[0] == 1 + (1 + 3) + (1 + 0)
    assert len(set(counts)) == 1, counts


@needs_torch
def test_traced_module_repr_and_trace_module_methods_match_torch():
    reprs = []
    for m, lib in zip(_models(exported=False), LIBS):
        x, _ = _inputs(lib)
        t = lib.jit.trace_module(m, {"forward": x, "twice": x}, check_trace=False)
        assert isinstance(t, lib.jit.TopLevelTracedModule)
        np.testing.assert_allclose(_np(t.twice(x)), _np(x) * 2)
        reprs.append(repr(t))
    assert reprs[0] == reprs[1]


def test_is_tracing_during_the_example_run_only_and_is_scripting_never():
    seen = []

    def f(x):
        seen.append((npgrad.jit.is_tracing(), npgrad.jit.is_scripting()))
        return x + 1
    t = npgrad.jit.trace(f, npgrad.ones(2), check_trace=False)
    t(npgrad.ones(3))
    assert seen == [(True, False), (False, False)]
    assert not npgrad.jit.is_tracing()


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_trace_needs_inputs_and_takes_keyword_inputs(lib):
    with pytest.raises(RuntimeError, match="example_kwarg_inputs should be a dict"):
        lib.jit.trace(_models()[LIBS.index(lib)])
    with pytest.raises(TypeError, match="'NoneType' object is not iterable"):
        lib.jit.trace(make_fn(lib))
    x, _ = _inputs(lib)
    t = lib.jit.trace(_models(exported=False)[LIBS.index(lib)], example_kwarg_inputs={"x": x})
    assert type(t).__name__ == "TopLevelTracedModule"
    # a module with exported methods is scripted, its traced forward beside them
    m = _models()[LIBS.index(lib)]
    t = lib.jit.trace(m, x)
    assert type(t).__name__ == "RecursiveScriptModule" and t.fc.weight is m.fc.weight


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_decorators_return_what_they_decorate(lib):
    def g(x):
        return x
    assert lib.jit.ignore(g) is g and lib.jit.ignore(drop=True)(g) is g and lib.jit.ignore()(g) is g
    assert lib.jit.unused(g) is g and lib.jit.export(g) is g

    class I:
        def forward(self, x: lib.Tensor) -> lib.Tensor:
            pass
    assert lib.jit.interface(I) is I

    class Sub(I):
        pass
    with pytest.raises(RuntimeError, match="interface does not support inheritance yet"):
        lib.jit.interface(Sub)
    with pytest.raises(RuntimeError, match="interface must be applied to a class"):
        lib.jit.interface(g)
    assert lib.jit.script_if_tracing(g)(5) == 5


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_final_annotate_attribute(lib):
    assert lib.jit.Final is typing.Final and lib.jit.Final[int] == typing.Final[int]
    ls = []
    assert lib.jit.annotate(typing.List[int], ls) is ls
    a = lib.jit.Attribute(3, int)
    assert (a.value, a.type) == (3, int) and isinstance(a, tuple) and repr(a) == "Attribute(value=3, type=<class 'int'>)"

    class Legacy(lib.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.k = lib.jit.Attribute(3, int)
            self.fc = lib.nn.Linear(2, 2)

        @lib.jit.script_method
        def forward(self, x):
            return self.fc(x) * self.k
    m = Legacy()
    assert m.k == 3 and type(m.fc).__name__ == "RecursiveScriptModule" and isinstance(m, Legacy)
    x = lib.ones(1, 2)
    np.testing.assert_allclose(_np(m(x)), _np(m.fc(x)) * 3, rtol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_fork_wait(lib):
    fut = lib.jit.fork(lambda a, b=1: a + b, 2, b=5)
    assert fut.done() and fut.value() == 7 and lib.jit.wait(fut) == 7
    assert fut.then(lambda f: f.value() * 2).wait() == 14
    made = lib.jit.Future()
    chained = made.then(lambda f: f.value() + 1)
    assert not made.done() and not chained.done()
    made.set_result(1)
    assert chained.wait() == 2
    with pytest.raises(RuntimeError, match="Future can only be marked completed once"):
        made.set_result(3)

    def boom():
        raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        lib.jit.fork(boom)


def test_freeze_and_optimize_for_inference():
    results = []
    for m, lib in zip(_models(), LIBS):
        with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule as input"):
            lib.jit.freeze(m)
        with pytest.raises(RuntimeError, match="optimize_for_inference expects a ScriptModule as input"):
            lib.jit.optimize_for_inference(m)
        s = lib.jit.script(m)
        with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
            lib.jit.freeze(s)
        s.eval()
        x, _ = _inputs(lib)
        expected = _np(s(x))
        fz, opt = lib.jit.freeze(s, preserved_attrs=["twice"]), lib.jit.optimize_for_inference(s)
        np.testing.assert_allclose(_np(fz.twice(x)), _np(x) * 2)
        with lib.no_grad():
            m.fc.weight.add_(1.0)  # the frozen copies keep the weights they were frozen with
        for frozen in (fz, opt):
            out = frozen(x)
            np.testing.assert_allclose(_np(out), expected, rtol=1e-5, atol=1e-6)
            results.append((list(frozen.state_dict()), list(frozen.parameters()), frozen(x.detach()).requires_grad,
                            isinstance(frozen, lib.jit.ScriptModule), hasattr(frozen, "fc")))
    assert results[0] == ([], [], False, True, False)
    assert len(set(map(repr, results))) == 1


def test_torchscript_archives_are_absent_with_a_message():
    m = npgrad.jit.script(make_model(npgrad)())
    for owner, name in ((npgrad.jit, "save"), (npgrad.jit, "load"), (m, "save"), (npgrad.jit.script(len), "save")):
        assert not hasattr(owner, name)
        with pytest.raises(AttributeError, match=r"TorchScript archives.*torch.save\(model.state_dict\(\)"):
            getattr(owner, name)


@needs_torch
def test_deprecation_warnings_as_torch():
    def record(lib):
        m = _models()[LIBS.index(lib)]
        x, _ = _inputs(lib)
        out = []
        for call in (lambda: lib.jit.script(make_fn(lib)), lambda: lib.jit.script(m),
                     lambda: lib.jit.trace(make_fn(lib), (x, x)), lambda: lib.jit.trace(m, x),
                     lambda: lib.jit.freeze(lib.jit.script(m.eval())),
                     lambda: lib.jit.optimize_for_inference(lib.jit.script(m))):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                call()
            out.append([str(i.message) for i in w if i.category is DeprecationWarning])
        return out
    assert record(npgrad) == record(torch)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_jit_isinstance_checks_element_types(lib):
    from typing import Dict, List, Optional, Tuple, Union
    t = lib.ones(1)
    yes = [([1, 2], List[int]), ((1, "a"), Tuple[int, str]), (None, Optional[int]), ({"a": t}, Dict[str, lib.Tensor]),
           ([[1], [2]], List[List[int]]), (True, int), (1, Union[int, str])]
    no = [([1, "a"], List[int]), ((1,), Tuple[int, str]), ("s", Optional[int]), ([[1], ["a"]], List[List[int]]),
          (1.0, Union[int, str]), ([1, 2], Tuple[int, int]), ({"a": 1}, Dict[str, str]), (1, float)]
    assert all(lib.jit.isinstance(o, ty) for o, ty in yes)
    assert not any(lib.jit.isinstance(o, ty) for o, ty in no)
    with pytest.warns(UserWarning, match="The inner type of a container is lost"):
        assert lib.jit.isinstance([], List[int])
    for bare, msg in ((list, "list without a contained type"), (Dict, "Dict without contained types")):
        with pytest.raises(RuntimeError, match=f"Attempted to use {msg}"):
            lib.jit.isinstance([1], bare)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("make, strict, error", [
    (lambda a: None, True, "didn't return any values"), (lambda a: (a, None), True, "Only tensors, lists, tuples"),
    (lambda a: 3, True, "Only tensors, lists, tuples"), (lambda a: {"a": a}, True, "Encountering a dict"),
    (lambda a: [[a], a], True, "Tracer cannot infer type"), (lambda a: {"a": (a,)}, False, None),
    (lambda a: ((a, a), [a, a], ()), True, None)])
def test_trace_refuses_outputs_pytorch_cannot_record(lib, make, strict, error):
    # PyTorch's tracer refuses these outputs; npgrad could run them but refuses them too, so a program that
    # traces under npgrad traces under PyTorch.
    x = lib.ones(2)
    if error is None:
        lib.jit.trace(make, x, check_trace=False, strict=strict)
    else:
        with pytest.raises(RuntimeError, match=error):
            lib.jit.trace(make, x, check_trace=False, strict=strict)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_script_modules_deepcopy_but_do_not_pickle(lib):
    import copy
    import pickle
    s = lib.jit.script(lib.nn.Linear(2, 2))
    c = copy.deepcopy(s)
    assert type(c).__name__ == "RecursiveScriptModule" and c.weight is not s.weight
    np.testing.assert_array_equal(_np(c.weight), _np(s.weight))
    with pytest.raises(RuntimeError, match=r"Tried to serialize object __torch__\.[\w.]*Linear which does not have a "
                                           "__getstate__ method defined!"):
        pickle.dumps(s)
