"""FSDP.optim_state_dict / optim_state_dict_to_load: an optimizer's state over flat shards, re-keyed by
the unwrapped model's parameter names (full tensors, or LocalShards) and back."""
import copy

import numpy as np

from ...tensor import Tensor
from ._shards import assemble, chunk_of
from .api import StateDictType


def _clean(name):
    return name.replace("_fsdp_wrapped_module.", "").replace("_fsdp_wrapped_module", "").rstrip(".")


def _layout(model):
    """id(flat parameter) -> (unit, [full name of each of its parameters]); id(other parameter) -> name."""
    from .fully_sharded_data_parallel import FullyShardedDataParallel as FSDP
    flat, other, pieces = {}, {}, {}
    for path, m in model.named_modules():
        if isinstance(m, FSDP) and m._unit is not None:
            pre = _clean(path)
            names = [None] * len(m._unit.numels)
            for _, _, i, rel in m._records:
                if names[i] is None:
                    names[i] = (pre + "." if pre else "") + rel
            flat[id(m._unit.flat_param)] = (m._unit, names)
            for i, p in enumerate(m._unit.pieces or ()):
                pieces[id(p)] = (m._unit, i, names[i])
    for path, p in model.named_parameters():
        if id(p) not in flat and id(p) not in pieces:
            other[id(p)] = _clean(path)
    return flat, other, pieces


def _settings(model):
    from .fully_sharded_data_parallel import FullyShardedDataParallel as FSDP
    return FSDP.get_state_dict_type(model)


def _order(optim):
    return [p for g in optim.param_groups for p in g["params"]]


def optim_state_dict(model, optim, osd=None, full_rank0_only=None):
    """``full_rank0_only`` (True/False) asks for full tensors whatever ``state_dict_type`` says."""
    osd = optim.state_dict() if osd is None else osd
    settings = _settings(model)
    sharded = settings.state_dict_type == StateDictType.SHARDED_STATE_DICT and full_rank0_only is None
    rank0_only = full_rank0_only if full_rank0_only is not None else \
        not sharded and getattr(settings.optim_state_dict_config, "rank0_only", False)
    flat, other, pieces = _layout(model)
    state, names_of = {}, {}
    for idx, p in enumerate(_order(optim)):
        entry = osd["state"].get(idx)
        if id(p) in pieces:
            unit, i, name = pieces[id(p)]
            names_of[idx] = [name]
            if entry is None:
                continue
            d = {}
            for key, value in entry.items():
                if isinstance(value, Tensor) and value.ndim > 0 and tuple(value.shape) == tuple(p.shape):
                    full = unit.gather_piece(value._data, i)
                    d[key] = chunk_of(full, unit.rank, unit.world) if sharded else Tensor._wrap(full)
                else:
                    d[key] = value.clone() if isinstance(value, Tensor) else copy.deepcopy(value)
            state[name] = d
        elif id(p) in flat:
            unit, names = flat[id(p)]
            names_of[idx] = names
            if entry is None:
                continue
            per = [{} for _ in names]
            for key, value in entry.items():
                if isinstance(value, Tensor) and tuple(value.shape) == (unit.shard_size,):
                    full = unit.gather_flat(value._data)
                    for i, d in enumerate(per):
                        a, k, s = unit.offsets[i], unit.numels[i], unit.shapes[i]
                        arr = full[a:a + k].reshape(s)
                        d[key] = chunk_of(arr, unit.rank, unit.world) if sharded else Tensor._wrap(arr.copy())
                else:
                    for d in per:
                        d[key] = value.clone() if isinstance(value, Tensor) else copy.deepcopy(value)
            for name, d in zip(names, per):
                state[name] = d
        else:
            name = other.get(id(p), str(idx))
            names_of[idx] = [name]
            if entry is not None:
                state[name] = entry
    groups = []
    for g in osd["param_groups"]:
        ng = {k: v for k, v in g.items() if k != "params"}
        ng["params"] = [n for idx in g["params"] for n in names_of.get(idx, [str(idx)])]
        groups.append(ng)
    if rank0_only and model_rank(model) != 0:
        return {}
    return {"state": state, "param_groups": groups}


def model_rank(model):
    from .fully_sharded_data_parallel import FullyShardedDataParallel as FSDP
    return FSDP.fsdp_modules(model)[0].rank


def optim_state_dict_to_load(model, order, osd):
    """``osd`` (keyed by names) re-keyed by position in ``order`` (the optimizer's parameters)."""
    flat, other, pieces = _layout(model)
    state = {}
    comm = None
    for idx, p in enumerate(order):
        if id(p) in pieces:
            unit, i, name = pieces[id(p)]
            entry = osd["state"].get(name)
            if entry is None:
                continue
            out = {}
            for key, value in entry.items():
                if isinstance(value, Tensor) and value.ndim == 0 or not (isinstance(value, Tensor) or
                                                                        hasattr(value, "global_shape")):
                    out[key] = value.clone() if isinstance(value, Tensor) else copy.deepcopy(value)
                    continue
                full = assemble(unit.comm, value, unit.shapes[i], unit.dtype, name).reshape(-1)
                padded = np.zeros(unit.padded, unit.dtype)
                padded[unit.offsets[i]:unit.offsets[i] + unit.numels[i]] = full
                out[key] = Tensor._wrap(unit._piece_view(padded[unit.start:unit.start + unit.shard_size], i).copy())
            state[idx] = out
        elif id(p) in flat:
            unit, names = flat[id(p)]
            comm = unit.comm
            entries = [osd["state"].get(n) for n in names]
            if all(e is None for e in entries):
                continue
            first = next(e for e in entries if e is not None)
            out = {}
            for key, value in first.items():
                if isinstance(value, Tensor) and value.ndim == 0 or not (isinstance(value, Tensor) or
                                                                        hasattr(value, "global_shape")):
                    out[key] = value.clone() if isinstance(value, Tensor) else copy.deepcopy(value)
                    continue
                full = np.zeros(unit.padded, unit.dtype)
                for i, e in enumerate(entries):
                    if e is not None and key in e:
                        a, k = unit.offsets[i], unit.numels[i]
                        full[a:a + k] = assemble(comm, e[key], unit.shapes[i], unit.dtype, names[i]).reshape(-1)
                out[key] = Tensor._wrap(full[unit.start:unit.start + unit.shard_size].copy())
            state[idx] = out
        else:
            name = other.get(id(p))
            if name in osd["state"]:
                state[idx] = osd["state"][name]
    index_of = {}
    for idx, p in enumerate(order):
        names = flat[id(p)][1] if id(p) in flat else [pieces[id(p)][2]] if id(p) in pieces else [other.get(id(p))]
        for n in names:
            index_of.setdefault(n, idx)
    groups = []
    for g in osd["param_groups"]:
        ng = {k: v for k, v in g.items() if k != "params"}
        seen = []
        for n in g["params"]:
            i = index_of.get(n)
            if i is not None and i not in seen:
                seen.append(i)
        # in the optimizer's own order: load_state_dict pairs the ids with its parameters by position, and the
        # saved names may come in another order (units made by another wrap policy)
        ng["params"] = sorted(seen)
        groups.append(ng)
    return {"state": state, "param_groups": groups}
