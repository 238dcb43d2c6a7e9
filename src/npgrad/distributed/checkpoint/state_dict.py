"""``torch.distributed.checkpoint.state_dict``: model and optimizer state dicts in one canonical form,
whatever wraps the model, ready for ``save``/``load`` on any number of ranks.

Model keys are the unwrapped model's parameter names (DDP's ``module.`` prefix removed); optimizer
state is keyed by those names instead of by position (``{"state": {"0.weight": {...}}, "param_groups":
[{..., "params": ["0.weight", ...]}]}``), so it survives a change of world size or of wrapping.
Shards (values with ``.tensor``, ``.global_shape``, ``.offsets``) stay shards unless
``full_state_dict=True``, which gathers them into whole tensors on every rank (on rank 0 alone with
``cpu_offload=True``, the other ranks getting an empty dict).
"""
import copy
from dataclasses import dataclass

import numpy as np

from ...tensor import Tensor
from .. import _group
from ._flatten import is_shard


@dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _unwrap(model):
    from ...nn.parallel.distributed import DistributedDataParallel
    while isinstance(model, DistributedDataParallel):
        model = model.module
    return model


def _fsdp(model):
    """``model``'s FullyShardedDataParallel class when FSDP instances wrap parts of it, else None."""
    from ..fsdp import FullyShardedDataParallel
    if not hasattr(model, "modules"):  # any object with state_dict()/load_state_dict() will do
        return None
    return FullyShardedDataParallel if FullyShardedDataParallel.fsdp_modules(model) else None


def _chunked(model):
    """id(parameter) -> (unit, index) for parameters ``fully_shard`` keeps as this rank's dim-0 chunk."""
    from ..fsdp import FSDPModule
    out = {}
    for m in model.modules() if hasattr(model, "modules") else ():
        if isinstance(m, FSDPModule):
            unit = m.__dict__["_fsdp_state"].unit
            for i, p in enumerate(unit.shards):
                out[id(p)] = (unit, i)
    return out


def _as_shards(state, unit, i):
    """A fully_shard parameter's optimizer state: tensors shaped like its chunk become LocalShards of the
    whole parameter's shape (as PyTorch's DTensor state is), so they reshard like the parameter."""
    from .._sharded import LocalShard
    shape = unit.shapes[i]
    a, b = unit.bounds[i][unit.rank]
    out = dict(state)
    for k, v in state.items():
        if isinstance(v, Tensor) and v.dim() == len(shape) and v.dim() > 0 and tuple(v.shape) == (b - a,) + shape[1:]:
            out[k] = LocalShard(v, shape, (a,) + (0,) * (len(shape) - 1))
    return out


def _to_chunks(state, unit, i, name):
    """The inverse of ``_as_shards`` for loading: shards of any layout, or whole tensors, become this
    rank's chunk (a collective over the parameter's tensors)."""
    from ..fsdp._shards import assemble
    shape = unit.shapes[i]
    a, b = unit.bounds[i][unit.rank]
    out = dict(state)
    for k in sorted(state):
        v = state[k]
        if is_shard(v) or (isinstance(v, Tensor) and tuple(v.shape) == shape and v.dim() > 0):
            out[k] = Tensor._wrap(assemble(unit.comm, v, shape, unit.dtypes[i], f"{name}.{k}")[a:b].copy())
    return out


def _comm():
    return _group._world()._comm if _group.is_initialized() else None


def _rank():
    comm = _comm()
    return 0 if comm is None else comm.Get_rank()


def _gather_full(shard, to_all):
    """The whole tensor a shard is a piece of, from every rank's piece (None off rank 0 unless ``to_all``)."""
    comm = _comm()
    piece = (tuple(int(o) for o in shard.offsets), np.ascontiguousarray(shard.tensor._data))
    pieces = [piece] if comm is None else (comm.allgather(piece) if to_all else comm.gather(piece, root=0))
    if pieces is None:
        return None
    full = np.zeros(tuple(int(s) for s in shard.global_shape), piece[1].dtype)
    for offsets, arr in pieces:
        full[tuple(slice(o, o + s) for o, s in zip(offsets, arr.shape))] = arr
    return Tensor._wrap(full)


def _same_kind(d, fn):
    """A copy of dict ``d`` (an OrderedDict, a defaultdict ... stays one) with ``fn`` applied to its values."""
    out = copy.copy(d)
    for k in out:
        out[k] = fn(out[k])
    return out


def _full_values(tree, opts):
    """``tree`` with every shard replaced by its whole tensor (collective: every rank must call it)."""
    if isinstance(tree, dict):
        return _same_kind(tree, lambda v: _full_values(v, opts))
    if isinstance(tree, list):
        return [_full_values(v, opts) for v in tree]
    if is_shard(tree):
        return _gather_full(tree, to_all=not opts.cpu_offload)
    return tree


def _finish(sd, opts):
    if opts.full_state_dict:
        sd = _full_values(sd, opts)
        if opts.cpu_offload and _rank() != 0:
            return type(sd)()
    return sd


def _options(options):
    if options is None:
        return StateDictOptions()
    if not isinstance(options, StateDictOptions):
        raise TypeError(f"options must be a StateDictOptions, not {type(options).__name__}")
    if options.broadcast_from_rank0 and not options.full_state_dict:
        raise ValueError("full_state_dict must be True when broadcast_from_rank0 is True.")
    return options


def _members(model):
    """id(parameter) -> the unwrapped model's names it stands for (an FSDP flat parameter: all of its unit's)."""
    out = {}
    for n, p in model.named_parameters(remove_duplicate=False):
        out.setdefault(id(p), [_clean(n)])
    if _fsdp(model) is not None:
        from ..fsdp._optim import _layout
        flat, _, pieces = _layout(model)
        out.update({k: list(names) for k, (_, names) in flat.items()})
        out.update({k: [name] for k, (_, _, name) in pieces.items()})
    return out


def _clean(name):
    return name.replace("_fsdp_wrapped_module.", "")


def _select(sd, model, submodules, opts):
    if opts.ignore_frozen_params:
        members = _members(model)
        frozen = {n for p in model.parameters() if not p.requires_grad for n in members[id(p)]}
        sd = type(sd)((k, v) for k, v in sd.items() if k not in frozen)
    if submodules:
        prefixes = [_clean(n + ".") for n, m in model.named_modules() if m in submodules]
        kept = type(sd)()
        for k, v in sd.items():
            for p in prefixes:
                if k.startswith(p):
                    kept[k if opts.keep_submodule_prefixes else k[len(p):]] = v
                    break
        sd = kept
    return sd


def get_model_state_dict(model, *, submodules=None, options=None):
    """``model``'s state dict keyed by its unwrapped parameter and buffer names."""
    opts = _options(options)
    m = _unwrap(model)
    fsdp = _fsdp(m)
    if fsdp is None:
        return _finish(_select(m.state_dict(), m, submodules, opts), opts)
    from ..fsdp import StateDictType
    # sharded first; full_state_dict then gathers the shards as for any other sharded model
    with fsdp.state_dict_type(m, StateDictType.SHARDED_STATE_DICT):
        sd = m.state_dict()
    return _finish(_select(sd, m, submodules, opts), opts)


def _optimizers(optimizers):
    from ...optim.optimizer import Optimizer
    return [optimizers] if isinstance(optimizers, Optimizer) else list(optimizers)


def _names(model):
    names = {}
    for n, p in model.named_parameters(remove_duplicate=False):
        names.setdefault(id(p), _clean(n))
    return names


def _params_in_order(opt):
    return [p for g in opt.param_groups for p in g["params"]]


def _init_state(opt):
    """Give a fresh optimizer its state (zero moments, step 0 after one step at lr 0), so its state dict
    has every entry a checkpoint can be loaded into, as PyTorch's helpers do."""
    if opt.state:
        return
    from ...factories import zeros_like
    lrs = [g["lr"] for g in opt.param_groups]
    touched = []
    for g in opt.param_groups:
        g["lr"] = 0.0
        for p in g["params"]:
            if p.requires_grad and p.grad is None:
                p.grad = zeros_like(p)
                touched.append(p)
    try:
        opt.step()
    finally:
        for g, lr in zip(opt.param_groups, lrs):
            g["lr"] = lr
        for p in touched:
            p.grad = None


def _flatten_optim(osd):
    flat = {}
    for name, state in osd["state"].items():
        for k, v in state.items():
            flat[f"state.{name}.{k}"] = v
    for group in osd["param_groups"]:
        for name in group["params"]:
            for k, v in group.items():
                if k != "params":
                    flat[f"param_groups.{name}.{k}"] = v
    return flat


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """The optimizers' state dict with parameters named by their FQN in ``model`` instead of by position
    (several optimizers merge into one dict)."""
    opts = _options(options)
    m = _unwrap(model)
    names = _names(m)
    fsdp, chunked = _fsdp(m), _chunked(m)
    out = {"state": {}, "param_groups": []}
    for opt in _optimizers(optimizers):
        _init_state(opt)
        if fsdp is not None:  # flat parameters: FSDP itself names their pieces and shards their state
            from ..fsdp import StateDictType
            with fsdp.state_dict_type(m, StateDictType.SHARDED_STATE_DICT):
                osd = fsdp.optim_state_dict(m, opt)
            out["state"].update(osd["state"])
            out["param_groups"].extend(osd["param_groups"])
            continue
        osd = opt.state_dict()
        order = _params_in_order(opt)
        try:
            fqn = [names[id(p)] for p in order]
        except KeyError:
            raise ValueError("get_optimizer_state_dict: the optimizer holds a parameter that is not one of the "
                             "model's") from None
        for idx, state in osd["state"].items():
            where = chunked.get(id(order[idx]))
            out["state"][fqn[idx]] = state if where is None else _as_shards(state, *where)
        for group in osd["param_groups"]:
            g = dict(group)
            g["params"] = [fqn[i] for i in group["params"]]
            out["param_groups"].append(g)
    out = _finish(out, opts)
    if opts.flatten_optimizer_state_dict and out:
        out = _flatten_optim(out)
    return out


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """``(get_model_state_dict(model), get_optimizer_state_dict(model, optimizers))``."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


def _broadcast(tree):
    """Rank 0's ``tree`` on every rank (tensors travel as arrays)."""
    comm = _comm()
    if comm is None:
        return tree

    def pack(t):
        if isinstance(t, dict):
            return _same_kind(t, pack)
        if isinstance(t, list):
            return [pack(v) for v in t]
        return ("__tensor__", t._data) if isinstance(t, Tensor) else t

    def unpack(t):
        if isinstance(t, dict):
            return _same_kind(t, unpack)
        if isinstance(t, list):
            return [unpack(v) for v in t]
        if isinstance(t, tuple) and len(t) == 2 and t[0] == "__tensor__":
            return Tensor._wrap(t[1])
        return t
    return unpack(comm.bcast(pack(tree) if comm.Get_rank() == 0 else None, root=0))


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load ``model_state_dict`` (keyed as ``get_model_state_dict`` keys it) into ``model``; returns the
    missing and unexpected keys (``strict=False``) as ``load_state_dict`` does."""
    opts = _options(options)
    if opts.broadcast_from_rank0:
        model_state_dict = _broadcast(model_state_dict)
    m = _unwrap(model)
    fsdp = _fsdp(m)
    if fsdp is None:
        return m.load_state_dict(model_state_dict, strict=opts.strict)
    from ..fsdp import StateDictType
    with fsdp.state_dict_type(m, StateDictType.SHARDED_STATE_DICT):  # takes shards or whole tensors
        return m.load_state_dict(model_state_dict, strict=opts.strict)


def _unflatten_optim(flat, opt, names):
    state, groups = {}, []
    for key, v in flat.items():
        head, _, rest = key.partition(".")
        if head == "state":
            name, _, k = rest.rpartition(".")
            state.setdefault(name, {})[k] = v
    for group in opt.param_groups:
        members = [n for p in group["params"] for n in names[id(p)]]
        g = {"params": members}
        for k in group:
            if k != "params" and members and f"param_groups.{members[0]}.{k}" in flat:
                g[k] = flat[f"param_groups.{members[0]}.{k}"]
        groups.append(g)
    return {"state": state, "param_groups": groups}


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Load an optimizer state dict keyed by parameter FQNs (``get_optimizer_state_dict``'s form) into
    ``optimizers``: each optimizer takes the state of its own parameters and the hyperparameters of the
    saved group holding them."""
    opts = _options(options)
    if opts.broadcast_from_rank0:
        optim_state_dict = _broadcast(optim_state_dict)
    m = _unwrap(model)
    names = _names(m)
    fsdp, chunked = _fsdp(m), _chunked(m)
    for opt in _optimizers(optimizers):
        osd = optim_state_dict
        if "state" not in osd or "param_groups" not in osd:
            osd = _unflatten_optim(osd, opt, _members(m))
        if fsdp is not None:
            opt.load_state_dict(fsdp.optim_state_dict_to_load(m, opt, osd))
            continue
        saved_group = {}
        for g in osd["param_groups"]:
            for n in g["params"]:
                saved_group[n] = g
        order = _params_in_order(opt)
        index = {names[id(p)]: i for i, p in enumerate(order)}
        state = {index[n]: s for n, s in osd["state"].items() if n in index}
        for i, p in enumerate(order):  # the same order on every rank: the gathers below are collectives
            if id(p) in chunked and i in state:
                state[i] = _to_chunks(state[i], *chunked[id(p)], names[id(p)])
        if opts.strict and osd["state"]:
            for n, p in zip(index, order):
                if p.requires_grad and n not in osd["state"]:
                    raise RuntimeError(f"Missing optimizer state for parameter '{n}' in checkpoint. The parameter "
                                       "requires gradients but has no saved optimizer state. To load anyway, use "
                                       "StateDictOptions(strict=False).")
        groups = []
        for group in opt.param_groups:
            members = [names[id(p)] for p in group["params"]]
            source = next((saved_group[n] for n in members if n in saved_group), None)
            if source is None:
                raise KeyError(f"set_optimizer_state_dict: no saved param_group holds the parameters {members[:3]}")
            g = {k: v for k, v in source.items() if k != "params"}
            g["params"] = [index[n] for n in members]
            groups.append(g)
        opt.load_state_dict({"state": state, "param_groups": groups})


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """``set_model_state_dict`` then ``set_optimizer_state_dict``; returns the model's missing and
    unexpected keys."""
    keys = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys


__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
           "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]
