"""optim.swap_in_optimizer_params_and_state: step other tensors with state from a state_dict, then restore."""
import copy

import numpy as np
import pytest

import npgrad
from _optim_harness import grad_field, make, to_npgrad, train
from oracle import HAS_TORCH, torch


def _swap_run(lib, state_copy):
    params, opt = make(lib, "Adam", dict(lr=0.05))
    train(lib, params, opt, 0, 3)
    live = [p.detach().numpy().copy() for p in params]
    live_state = opt.state
    sd = state_copy(opt.state_dict())
    other = {f"p{i}": lib.tensor(p.detach().numpy().copy()) for i, p in enumerate(params)}
    for k, t in enumerate(other.values()):
        t.grad = lib.tensor(grad_field(t.numpy(), k, 3))
    with lib.optim.swap_in_optimizer_params_and_state(opt, other, sd):
        assert opt.param_groups[0]["params"][0] is other["p0"]
        opt.step()
    assert opt.state is live_state and opt.param_groups[0]["params"][0] is params[0]
    for a, p in zip(live, params):  # the live parameters were not touched
        np.testing.assert_array_equal(a, p.detach().numpy())
    return [t.numpy().copy() for t in other.values()], sd, params, opt


def test_swapped_step_equals_the_live_next_step():
    swapped, sd, params, opt = _swap_run(npgrad, copy.deepcopy)
    train(npgrad, params, opt, 3, 4)  # the live optimizer's own 4th step from the same point
    for a, p in zip(swapped, params):
        np.testing.assert_array_equal(a, p._data)
    # in-place state updates reached the given state_dict (its step count advanced)
    assert float(sd["state"][0]["step"]) == 4.0 and float(opt.state[params[0]]["step"]) == 4.0


def test_errors():
    p = npgrad.tensor([1.0], requires_grad=True)
    opt = npgrad.optim.SGD([p], lr=0.1, momentum=0.9)
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with npgrad.optim.swap_in_optimizer_params_and_state(opt, {"p": p}, opt.state_dict()):
            pass
    p.grad = npgrad.tensor([1.0])
    opt.step()
    sd = opt.state_dict()
    bad = {**sd, "param_groups": [{**sd["param_groups"][0], "extra": 1}]}
    with pytest.raises(RuntimeError, match=r"Keys only in swap-in: \['extra'\]. Keys only in live: \[\]."):
        with npgrad.optim.swap_in_optimizer_params_and_state(opt, {"p": p}, bad):
            pass
    with pytest.raises(RuntimeError, match="match optimizer.param_groups ordering"):
        with npgrad.optim.swap_in_optimizer_params_and_state(opt, {}, sd):
            pass


if HAS_TORCH:
    def test_matches_torch():
        ours, sd, _, _ = _swap_run(npgrad, copy.deepcopy)
        theirs, tsd, _, _ = _swap_run(torch, copy.deepcopy)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        for i in sd["state"]:
            for k in sd["state"][i]:
                np.testing.assert_allclose(sd["state"][i][k].numpy(), tsd["state"][i][k].numpy(), rtol=1e-5,
                                           atol=1e-7)
        # npgrad also runs from a PyTorch state_dict converted to npgrad tensors
        converted, _, _, _ = _swap_run(npgrad, lambda sd: to_npgrad(sd))
        for a, b in zip(converted, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    def test_error_messages_match_torch():
        def errors(lib):
            p = lib.tensor([1.0], requires_grad=True)
            opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
            p.grad = lib.tensor([1.0])
            opt.step()
            sd = opt.state_dict()
            out = []
            for args in [({"p": p}, []), ({"p": p}, {"state": [], "param_groups": []}),
                         ({"p": p}, {"state": {}, "param_groups": {}}), ({"p": p}, {"state": {}, "param_groups": []}),
                         ({"p": p}, {"state": {5: {}}, "param_groups": sd["param_groups"]}),
                         ({"p": p}, {"state": {0: 1}, "param_groups": sd["param_groups"]}),
                         ({"p": p}, {"state": {}, "param_groups": [{**sd["param_groups"][0], "params": [0, 1]}]}),
                         ({"p": p}, {"state": {}, "param_groups": [{"params": ["a"]}]}),
                         ({"p": p}, {"state": {}, "param_groups": [1]})]:
                with pytest.raises(RuntimeError) as e:
                    with lib.optim.swap_in_optimizer_params_and_state(opt, *args):
                        pass
                out.append(str(e.value))
            return out
        assert errors(npgrad) == errors(torch)
