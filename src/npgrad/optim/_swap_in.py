"""``swap_in_optimizer_params_and_state``: run an optimizer, for the length of a ``with`` block, on other
parameter tensors and on state given as a ``state_dict()``; the live parameters and state come back after."""
import contextlib
from collections import defaultdict

from ..tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _checked_state(state):
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter ids "
                           f"to per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be dictionaries.")
    return state


def _checked_groups(optimizer, groups):
    if not isinstance(groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group dicts, "
                           f"got {type(groups).__name__}.")
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    return groups


def _checked_ids(idx, live, saved):
    """The packed parameter ids of one saved group, after checking it matches the live group's layout."""
    if not isinstance(saved, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = saved.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries keyed "
                           "by packed parameter ids.")
    if len(live["params"]) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {idx} has a different number of params than the live "
                           "optimizer param group.")
    saved_only = [k for k in saved if k not in live]
    live_only = [k for k in live if k not in saved]
    if saved_only or live_only:
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match the "
                           f"live optimizer group keys for group {idx}. Keys only in swap-in: {saved_only}. Keys only "
                           f"in live: {live_only}.")
    return ids


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Inside the block, ``optimizer`` sees the tensors of ``swapin_parameters`` (a dict, in the order of
    the optimizer's parameters) and the state and group options of ``swapin_optim_state`` (a
    ``state_dict()``). In-place updates reach the given tensors and state tensors; on exit the
    optimizer's own groups and state are restored."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(swapin_optim_state.get("state"))
    groups = _checked_groups(optimizer, swapin_optim_state.get("param_groups"))
    tensors = list(swapin_parameters.values())
    plan, offset, seen = [], 0, set()
    for idx, (live, saved) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _checked_ids(idx, live, saved)
        seen.update(ids)
        if offset + len(ids) > len(tensors):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match optimizer.param_groups "
                               "ordering.")
        plan.append((live, saved, tensors[offset:offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter ids "
                           f"from param_groups[*]['params']; got extra keys {extra!r}.")

    live_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]  # shallow: the params lists keep their identity
    try:
        swapped = defaultdict(dict)
        for live, saved, params in plan:
            live["params"] = params
            live.update((k, v) for k, v in saved.items() if k != "params")
            for p, i in zip(params, saved["params"]):
                # a shallow copy: in-place tensor updates reach the caller's dict, new entries do not
                swapped[p] = dict(state.get(i, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = live_state
