"""Memory: backward frees what the graph saved, and a training loop leaves nothing behind (no growing
graph, no reference cycles between tensors and nodes)."""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import npgrad
from npgrad.autograd import Function


def _params(seed=0):
    rng = np.random.default_rng(seed)
    return [npgrad.tensor(rng.standard_normal((4, 16)).astype(np.float32) * 0.5, requires_grad=True),
            npgrad.tensor(np.zeros(16, np.float32), requires_grad=True),
            npgrad.tensor(rng.standard_normal((16, 1)).astype(np.float32) * 0.5, requires_grad=True)]


def _data(seed=1):
    rng = np.random.default_rng(seed)
    return (npgrad.tensor(rng.standard_normal((8, 4)).astype(np.float32)),
            npgrad.tensor(rng.standard_normal((8, 1)).astype(np.float32)))


def _step(params, x, y, lr=0.01, refs=None):
    w1, b1, w2 = params
    h = (x @ w1 + b1).tanh()
    out = h @ w2
    loss = ((out - y) ** 2).mean()
    if refs is not None:
        refs += [weakref.ref(loss.grad_fn), weakref.ref(h.grad_fn), weakref.ref(out.grad_fn), weakref.ref(h)]
    loss.backward()
    with npgrad.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss.item()


def _all_nodes(root):
    seen, stack = [], [root]
    while stack:
        n = stack.pop()
        if n is None or any(n is s for s in seen):
            continue
        seen.append(n)
        stack.extend(c for c, _ in n.next_functions)
    return seen


def test_backward_releases_saved_values():
    params = _params()
    x, y = _data()
    w1, b1, w2 = params
    loss = (((x @ w1 + b1).tanh() @ w2 - y) ** 2).mean()
    nodes = [n for n in _all_nodes(loss.grad_fn) if n.name() != "torch::autograd::AccumulateGrad"]
    assert any(n._saved is not None for n in nodes)
    loss.backward()
    assert all(n._saved is None and n._saved_refs is None for n in nodes)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        nodes[1].saved_tensors


def test_retain_graph_keeps_then_second_backward_releases():
    x = npgrad.tensor(np.array([0.5, 1.5]), requires_grad=True)
    loss = (x.exp() * x).sum()
    loss.backward(retain_graph=True)
    assert loss.grad_fn.next_functions[0][0]._saved is not None
    loss.backward()
    assert loss.grad_fn.next_functions[0][0]._saved is None
    assert x.grad.tolist() == pytest.approx((2 * np.exp([0.5, 1.5]) * (1 + np.array([0.5, 1.5]))).tolist())


def test_graph_is_freed_by_reference_counting_alone():
    # With the cycle collector off, nodes die as soon as the last tensor using them goes away: there
    # are no reference cycles between tensors and nodes (nor through saved outputs or accumulators).
    params = _params()
    x, y = _data()
    gc.collect()
    gc.disable()
    try:
        refs = []
        _step(params, x, y, refs=refs)
        assert refs and all(r() is None for r in refs)
        # Also without running backward at all, and with a saved output (tanh, exp) and retain_grad.
        w1, b1, w2 = params
        h = (x @ w1 + b1).tanh()
        h.retain_grad()
        loss = (h.exp() @ w2).mean()
        node_refs = [weakref.ref(n) for n in _all_nodes(loss.grad_fn)
                     if n.name() != "torch::autograd::AccumulateGrad"]  # the leaves' own: alive with them
        del h, loss
        assert all(r() is None for r in node_refs)
    finally:
        gc.enable()


def _count_nodes():
    return sum(1 for o in gc.get_objects() if issubclass(type(o), Function))  # type(): no __class__ lookups


def test_training_loop_memory_is_flat():
    """1,000 steps of a small model hold no growing graph.

    With the cycle collector off, the number of live container objects (nodes, tensors, dicts ...)
    must not grow: nothing is left in a reference cycle. Traced memory is then compared after
    ``gc.collect()``, which also empties CPython's free lists (tuples parked there would otherwise
    read as growth); what remains is NumPy's bounded small-buffer cache, well under the threshold.
    """
    params = _params()
    x, y = _data()
    for _ in range(20):  # warm caches (dtype tables, method lookups ...)
        _step(params, x, y)
    gc.collect()
    gc.disable()
    try:
        nodes_before, objects_before = _count_nodes(), len(gc.get_objects())
        tracemalloc.start()
        losses = [_step(params, x, y) for _ in range(100)]
        gc.collect()
        early, _ = tracemalloc.get_traced_memory()
        objects_early = len(gc.get_objects())
        losses += [_step(params, x, y) for _ in range(900)]
        objects_late = len(gc.get_objects())  # before any collection: cycles would still be here
        nodes_after = _count_nodes()
        gc.collect()
        late, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        gc.enable()
    assert losses[-1] < losses[0]  # it does train
    assert nodes_after <= nodes_before, "graph nodes survived their step"
    assert objects_late - objects_early <= 5 and objects_late - objects_before <= 10, \
        f"live objects grew from {objects_before} to {objects_late}"
    # A leak of even one small object per step would add ~50 KB over 900 steps.
    assert late - early < 32 * 1024, f"traced memory grew by {late - early} bytes over 900 steps"


def test_create_graph_step_frees_higher_order_graph():
    gc.collect()
    gc.disable()
    try:
        x = npgrad.tensor(np.array([0.3, -0.4]), requires_grad=True)
        (g,) = npgrad.autograd.grad((x.tanh() ** 2).sum(), x, create_graph=True)
        penalty = (g * g).sum()
        refs = [weakref.ref(n) for n in _all_nodes(penalty.grad_fn) if n is not x._accum]
        assert len(refs) > 5
        penalty.backward()
        del g, penalty
        assert all(r() is None for r in refs)
    finally:
        gc.enable()
