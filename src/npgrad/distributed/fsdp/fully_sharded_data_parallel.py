"""FullyShardedDataParallel: data parallel training with parameters, gradients and optimizer state
split across ranks, each wrapped submodule (a unit) flattened into one vector of which a rank keeps
1/N (padded so every rank holds the same length).

A unit all-gathers its vector just before its forward, hands the full parameters to the wrapped module
as plain attributes, and frees them after (FULL_SHARD, except the root unit, whose backward comes
first); a node on the unit's outputs gathers them again when the gradient reaches the unit, and the node
that made the full parameters reduce-scatters their gradients (averaged over ranks) into the rank's
shard and frees them. ``fsdp_model.parameters()`` are the rank's flat shards (PyTorch's
``use_orig_params=False``; with True, the original parameters' pieces in them), so an optimizer built on
them updates, and keeps state for, 1/N of the model.
Outside forward the original attributes (``linear.weight``) are empty tensors;
``summon_full_params`` brings the full ones back.
"""
import contextlib
import warnings
from collections import OrderedDict

import numpy as np

from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...nn.modules.module import Module, _IncompatibleKeys
from ...nn.parameter import Parameter
from ...tensor import Tensor
from .._collectives import broadcast
from .._group import _mpi, _resolve
from ._shards import assemble, chunk_of
from ._units import FlatUnit, hook_outputs
from .api import (BackwardPrefetch, FullOptimStateDictConfig, FullStateDictConfig, ShardedOptimStateDictConfig,
                  ShardedStateDictConfig, ShardingStrategy, StateDictSettings, StateDictType)
from .wrap import _auto_wrap

_WRAPPED = "_fsdp_wrapped_module"
_PREFIX = _WRAPPED + "."
_FLAT = "_flat_param"


def _clean(name):
    return name.replace(_PREFIX, "")


def _placeholder(dtype):
    return Tensor._wrap(np.empty(0, dtype))


class FullyShardedDataParallel(Module):
    """Shard ``module``'s parameters across the ranks of ``process_group`` (default: the world).

    ``auto_wrap_policy`` (``size_based_auto_wrap_policy``, ``transformer_auto_wrap_policy``,
    ``ModuleWrapPolicy`` ...) makes submodules units of their own first, bottom-up, with the same
    arguments; the parameters left over belong to this unit. Parameters of one unit must share a
    dtype and ``requires_grad``. ``sync_module_states`` broadcasts rank 0's parameters and buffers first.
    ``use_orig_params=True`` keeps the original parameters registered (names with the wrappers'
    ``_fsdp_wrapped_module.`` prefixes, as PyTorch's), each being the 1-D piece of itself inside this rank's
    shard (possibly empty; whole and in its shape under NO_SHARD): an optimizer over them can have
    per-parameter groups, and a unit may mix ``requires_grad``.
    ``backward_prefetch``, ``forward_prefetch`` and ``limit_all_gathers`` are scheduling hints: npgrad
    gathers each unit when it is needed, so they change nothing.
    """

    def __init__(self, module, process_group=None, sharding_strategy=None, auto_wrap_policy=None,
                 backward_prefetch=BackwardPrefetch.BACKWARD_PRE, ignored_modules=None, device_id=None,
                 sync_module_states=False, forward_prefetch=False, limit_all_gathers=True, use_orig_params=False):
        super().__init__()
        if isinstance(module, FullyShardedDataParallel):
            raise ValueError("FSDP: module is already a FullyShardedDataParallel instance")
        pg = _resolve(process_group)
        if pg is None:
            raise ValueError("FullyShardedDataParallel: this rank is not a member of process_group")
        strategy = ShardingStrategy.FULL_SHARD if sharding_strategy is None else ShardingStrategy(sharding_strategy)
        if pg.size() == 1 and strategy != ShardingStrategy.NO_SHARD:
            warnings.warn(f"FSDP is switching to use `NO_SHARD` instead of {strategy} since the world size is 1.")
            strategy = ShardingStrategy.NO_SHARD
        ignored = list(ignored_modules or ())
        self.process_group = pg
        self.rank = pg.rank()
        self.world_size = pg.size()
        self.sharding_strategy = strategy
        self.backward_prefetch = backward_prefetch
        self.forward_prefetch = forward_prefetch
        self.limit_all_gathers = limit_all_gathers
        self._use_orig_params = bool(use_orig_params)
        self._is_root = True
        self._summoned = False
        self._state_dict_settings = StateDictSettings(StateDictType.FULL_STATE_DICT, FullStateDictConfig(),
                                                      FullOptimStateDictConfig())
        if sync_module_states:
            root = pg._ranks[0]
            for t in list(module.parameters()) + list(module.buffers()):
                broadcast(t, src=root, group=pg)
        if auto_wrap_policy is not None:
            kwargs = dict(process_group=pg, sharding_strategy=strategy, backward_prefetch=backward_prefetch,
                          ignored_modules=ignored, forward_prefetch=forward_prefetch,
                          limit_all_gathers=limit_all_gathers, use_orig_params=use_orig_params)
            _auto_wrap(module, auto_wrap_policy, lambda m: FullyShardedDataParallel(m, **kwargs),
                       lambda m: isinstance(m, FullyShardedDataParallel), ignored)
        self._fsdp_wrapped_module = module
        for m in module.modules():
            if isinstance(m, FullyShardedDataParallel):
                m._is_root = False
        self._flatten(module, ignored)

    # -- construction ------------------------------------------------------------------------------------
    def _flatten(self, module, ignored):
        skip = {id(m) for m in ignored}
        params, index, records = [], {}, []

        def visit(owner, path):
            if isinstance(owner, FullyShardedDataParallel) or id(owner) in skip:
                return
            named = [(n, p) for n, p in owner._parameters.items() if p is not None]
            if named and "_fsdp_param_order" not in owner.__dict__:
                owner.__dict__["_fsdp_param_order"] = list(owner._parameters)
            for n, p in named:
                if p.__dict__.get("_fsdp_flattened") and id(p) not in index:
                    raise ValueError(f"FSDP: parameter {path}{n} is shared with a module of another FSDP unit; "
                                     "wrap the modules that share a parameter in one unit")
                if id(p) not in index:
                    index[id(p)] = len(params)
                    params.append(p)
                records.append((owner, n, index[id(p)], path + n))
            for n, child in owner._modules.items():
                if child is not None:
                    visit(child, path + n + ".")
        visit(module, "")
        self._records = records
        self._unit = None
        if not params:
            return
        other = next((p for p in params if p._data.dtype != params[0]._data.dtype), None)
        if other is not None:
            raise ValueError(f"Must flatten tensors with uniform dtype but got {params[0].dtype} and {other.dtype}")
        if len({p._requires_grad for p in params}) > 1 and not self._use_orig_params:
            raise ValueError("Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`")
        unit = FlatUnit(self.process_group, params, self.sharding_strategy != ShardingStrategy.NO_SHARD,
                        any(p._requires_grad for p in params))
        for p in params:
            p.__dict__["_fsdp_flattened"] = True
        for owner, n, i, _ in records:
            owner.__dict__.setdefault("_fsdp_managed", {})[n] = (unit, i)
        self._unit = unit
        if self._use_orig_params:
            unit.make_pieces([p._requires_grad for p in params])
            for owner, n, i, _ in records:
                owner._parameters[n] = unit.pieces[i]  # in place: the module's parameter order is kept
            return
        for owner, n, i, _ in records:
            owner._parameters.pop(n, None)
        module.register_parameter(_FLAT, unit.flat_param)
        self._hide()

    def _expose(self, views):
        # use_orig_params: the full tensors take the pieces' places in the parameter dicts for the forward
        # (modules read their parameters from there); otherwise they are plain attributes
        where = "_parameters" if self._use_orig_params else "__dict__"
        for owner, n, i, _ in self._records:
            getattr(owner, where)[n] = views[i]

    def _hide(self):
        if self._use_orig_params:
            for owner, n, i, _ in self._records:
                owner._parameters[n] = self._unit.pieces[i]
            return
        dtype = self._unit.dtype
        for owner, n, _, _ in self._records:
            owner.__dict__[n] = _placeholder(dtype)

    # -- attribute access like the wrapped module ----------------------------------------------------------
    @property
    def module(self):
        return self._fsdp_wrapped_module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == _WRAPPED or "_modules" not in self.__dict__ or _WRAPPED not in self._modules:
                raise
            return getattr(self._modules[_WRAPPED], name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    def check_is_root(self):
        return self._is_root

    @staticmethod
    def fsdp_modules(module, root_only=False):
        """Every FullyShardedDataParallel instance in ``module``'s tree (only the outermost with root_only)."""
        found = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        return [m for m in found if m._is_root] if root_only else found

    # -- forward ---------------------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        unit = self._unit
        if unit is None:
            return self._fsdp_wrapped_module(*args, **kwargs)
        if self._summoned:
            raise RuntimeError("FSDP: forward inside summon_full_params() is not supported")
        self._expose(unit.unshard())
        try:
            out = self._fsdp_wrapped_module(*args, **kwargs)
        finally:
            self._hide()
            if not is_grad_enabled() or (self.sharding_strategy == ShardingStrategy.FULL_SHARD and not self._is_root):
                unit.release()
        if unit.sharded:  # (frozen units too: a gradient through them reads their parameters)
            out = hook_outputs(unit, out)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate unsharded gradients locally, with no communication; the first
        backward after it reduce-scatters their sum with its own gradients."""
        units = [m._unit for m in self.fsdp_modules(self) if m._unit is not None]
        old = [u.sync for u in units]
        for u in units:
            u.sync = False
        try:
            yield
        finally:
            for u, s in zip(units, old):
                u.sync = s

    # -- names while the full parameters are out -----------------------------------------------------------
    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        for n, p in super().named_parameters(prefix, recurse, remove_duplicate):
            yield (_clean(n) if self._summoned else n), p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        for n, b in super().named_buffers(prefix, recurse, remove_duplicate):
            yield (_clean(n) if self._summoned else n), b

    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False, offload_to_cpu=False,
                           with_grads=False):
        """Inside the context every unit's original parameters are whole, registered Parameters again
        (``writeback``: what is written into them goes back to the shards on exit)."""
        if rank0_only and writeback:
            raise ValueError("writeback=True and rank0_only=True is not supported, as model parameter shapes will "
                             "be different across ranks, and writing to them can lead to inconsistencies across "
                             "ranks when the context is exited.")
        if recurse:
            units = FullyShardedDataParallel.fsdp_modules(module)
        else:
            units = [module] if isinstance(module, FullyShardedDataParallel) else []
        entered = []
        try:
            with no_grad():
                for f in units:
                    f._summon(rank0_only, with_grads)
                    entered.append(f)
            yield
        finally:
            with no_grad():
                for f in reversed(entered):
                    f._unsummon(writeback)

    def _summon(self, rank0_only, with_grads):
        if self._summoned:
            raise RuntimeError("FSDP: summon_full_params() is already active on this module")
        unit = self._unit
        self._summoned = True
        self._summon_params = None
        if unit is None:
            return
        full = unit.full_copy()
        grads = None
        if with_grads and unit.flat_param._grad is not None:
            grads = unit.gather_flat(unit.flat_param._grad._data)
        if rank0_only and self.rank != 0:
            return
        made = {}
        for owner, n, i, _ in self._records:
            p = made.get(i)
            if p is None:
                a, k, s = unit.offsets[i], unit.numels[i], unit.shapes[i]
                p = made[i] = Parameter(Tensor._wrap(full[a:a + k].reshape(s)),
                                        requires_grad=unit.flat_param._requires_grad)
                if grads is not None:
                    p._grad = Tensor._wrap(grads[a:a + k].reshape(s))
            owner.__dict__.pop(n, None)
            owner._parameters[n] = p
        if not self._use_orig_params:
            self._fsdp_wrapped_module._parameters.pop(_FLAT)
        self._summon_params = made

    def _unsummon(self, writeback):
        unit, made = self._unit, self._summon_params
        self._summoned = False
        self._summon_params = None
        if unit is None or made is None:
            return
        if writeback:
            for i, p in made.items():
                unit.write_param(i, p._data)
        if self._use_orig_params:
            for owner, n, i, _ in self._records:
                owner._parameters[n] = unit.pieces[i]
            return
        for owner, n, _, _ in self._records:
            owner._parameters.pop(n, None)
        self._fsdp_wrapped_module._parameters[_FLAT] = unit.flat_param
        self._hide()

    # -- gradient clipping ---------------------------------------------------------------------------------
    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Scale every rank's gradient shards so the norm of the whole model's gradient is at most
        ``max_norm``; returns that norm (before clipping), the same on every rank."""
        if not self._is_root:
            raise RuntimeError("`clip_grad_norm_()` should only be called on the root FSDP instance")
        norm_type = float(norm_type)
        sharded = set()
        for m in self.fsdp_modules(self):
            if m._unit is not None and m._unit.sharded:
                sharded.update(id(p) for p in [m._unit.flat_param] + list(m._unit.pieces or ()))
        grads = [(id(p) in sharded, p._grad._data) for p in self.parameters() if p._grad is not None]
        dtype = grads[0][1].dtype if grads else np.dtype(np.float32)
        inf = norm_type == float("inf")
        part = np.zeros(2, np.float64)  # [sharded, replicated]
        for is_sharded, g in grads:
            a = np.abs(g.astype(np.float64))
            v = float(np.max(a, initial=0.0)) if inf else float(np.sum(a ** norm_type))
            k = 0 if is_sharded else 1
            part[k] = max(part[k], v) if inf else part[k] + v
        MPI = _mpi()
        mine = np.array([part[0]])
        self.process_group._comm.Allreduce(MPI.IN_PLACE, mine, op=MPI.MAX if inf else MPI.SUM)
        total = max(mine[0], part[1]) if inf else (mine[0] + part[1]) ** (1.0 / norm_type)
        coef = float(max_norm) / (total + 1e-6)
        if coef < 1:
            for _, g in grads:
                np.multiply(g, coef, out=g, casting="unsafe")
        return Tensor._wrap(np.asarray(total, dtype))

    # -- state dicts -----------------------------------------------------------------------------------------
    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Set the state-dict type of every FSDP instance in ``module``'s tree; returns the previous
        settings."""
        state_dict_type = StateDictType(state_dict_type)
        full = state_dict_type == StateDictType.FULL_STATE_DICT
        cfg = state_dict_config or (FullStateDictConfig() if full else ShardedStateDictConfig())
        ocfg = optim_state_dict_config or (FullOptimStateDictConfig() if full else ShardedOptimStateDictConfig())
        want = FullStateDictConfig if full else ShardedStateDictConfig
        if not isinstance(cfg, want) and type(cfg).__name__ != "StateDictConfig":
            raise RuntimeError(f"Expected state_dict_config of type {want} but got {type(cfg)}")
        mods = FullyShardedDataParallel.fsdp_modules(module)
        if not mods:
            raise ValueError("FSDP.set_state_dict_type(): module holds no FullyShardedDataParallel instance")
        prev = mods[0]._state_dict_settings
        new = StateDictSettings(state_dict_type, cfg, ocfg)
        for m in mods:
            m._state_dict_settings = new
        return prev

    @staticmethod
    def get_state_dict_type(module):
        mods = FullyShardedDataParallel.fsdp_modules(module)
        if not mods:
            raise ValueError("FSDP.get_state_dict_type(): module holds no FullyShardedDataParallel instance")
        return mods[0]._state_dict_settings

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        prev = FullyShardedDataParallel.set_state_dict_type(module, state_dict_type, state_dict_config,
                                                            optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(module, prev.state_dict_type, prev.state_dict_config,
                                                         prev.optim_state_dict_config)

    def _entries(self, prefix=""):
        """(key, kind, payload) of every state-dict entry, keyed as in the unwrapped model."""
        def walk(module, pre):
            if isinstance(module, FullyShardedDataParallel):
                yield from walk(module._fsdp_wrapped_module, pre)
                return
            managed = module.__dict__.get("_fsdp_managed", {})
            for n in module.__dict__.get("_fsdp_param_order", list(module._parameters)):
                if n in managed:
                    yield pre + n, "managed", managed[n]
                elif n != _FLAT and module._parameters.get(n) is not None:
                    yield pre + n, "tensor", module._parameters[n]
            for n, b in module._buffers.items():
                if b is not None and n not in module._non_persistent_buffers_set:
                    yield pre + n, "tensor", b
            if type(module).get_extra_state is not Module.get_extra_state:
                yield pre + "_extra_state", "extra", module
            for n, child in module._modules.items():
                if child is not None:
                    yield from walk(child, pre + n + ".")
        return list(walk(self, prefix))

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """FULL_STATE_DICT: the unwrapped model's keys and full tensors (only on rank 0 with
        ``rank0_only``); SHARDED_STATE_DICT: a ``LocalShard`` (this rank's dim-0 chunk) per parameter and
        the buffers whole. A collective: every rank must call it."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        settings = self._state_dict_settings
        sharded = settings.state_dict_type == StateDictType.SHARDED_STATE_DICT
        keep = sharded or not getattr(settings.state_dict_config, "rank0_only", False) or self.rank == 0
        if destination is None:
            destination = OrderedDict()
        entries = self._entries(prefix)
        left = {}
        for _, kind, payload in entries:
            if kind == "managed":
                left[id(payload[0])] = left.get(id(payload[0]), 0) + 1
        fulls = {}
        with no_grad():
            for key, kind, payload in entries:
                if kind == "managed":
                    unit, i = payload
                    full = fulls.get(id(unit))
                    if full is None:
                        full = fulls[id(unit)] = unit.full_copy()
                    a, k, s = unit.offsets[i], unit.numels[i], unit.shapes[i]
                    arr = full[a:a + k].reshape(s)
                    value = chunk_of(arr, self.rank, self.world_size) if sharded else Tensor._wrap(arr)
                    left[id(unit)] -= 1
                    if sharded and not left[id(unit)]:
                        del fulls[id(unit)]
                elif kind == "extra":
                    value = payload.get_extra_state()
                else:
                    value = payload if keep_vars else payload.detach()
                if keep:
                    destination[key] = value
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Load a state dict of the type set by ``state_dict_type`` (full tensors under the unwrapped
        model's keys, or ``LocalShard`` pieces of any layout, e.g. written on another world size)."""
        entries = self._entries()
        keys = {k for k, _, _ in entries}
        missing = [k for k, _, _ in entries if k not in state_dict]
        unexpected = [k for k in state_dict if k not in keys]
        if strict and (missing or unexpected):
            msgs = []
            if missing:
                msgs.append("Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
            if unexpected:
                msgs.append("Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(msgs)))
        comm = self.process_group._comm
        with no_grad():
            for key, kind, payload in entries:
                if key not in state_dict:
                    continue
                value = state_dict[key]
                if kind == "managed":
                    unit, i = payload
                    full = assemble(comm, value, unit.shapes[i], unit.dtype, key)
                    unit.write_param(i, full)
                elif kind == "extra":
                    payload.set_extra_state(value)
                else:
                    if not isinstance(value, Tensor):
                        raise RuntimeError(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                           f"Tensor-like object from checkpoint but received {type(value)}")
                    if tuple(value.shape) != tuple(payload.shape):
                        raise RuntimeError(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                           f"checkpoint, the shape in current model is {payload.shape}.")
                    payload.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

    # -- optimizer state dicts ------------------------------------------------------------------------------
    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """``optim``'s state keyed by the unwrapped model's parameter names: per-parameter full tensors
        (FULL_STATE_DICT) or LocalShards (SHARDED_STATE_DICT), as ``state_dict_type`` set. A collective."""
        from . import _optim
        return _optim.optim_state_dict(model, optim, optim_state_dict)

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False, load_directly=False,
                                 group=None):
        """The inverse of ``optim_state_dict``: a state dict ``optim.load_state_dict`` takes (or, with
        ``load_directly``, loaded into ``optim`` already). A collective."""
        from . import _optim
        sd = _optim.optim_state_dict_to_load(model, _optim._order(optim), optim_state_dict)
        if load_directly:
            optim.load_state_dict(sd)
        return sd

    @staticmethod
    def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
        """``optim``'s state with full tensors keyed by the unwrapped model's parameter names (only on rank 0
        with ``rank0_only``), whatever ``state_dict_type`` is set. A collective."""
        if optim_input is not None:
            raise ValueError("full_optim_state_dict: optim_input (deprecated in PyTorch) is not supported; "
                             "the parameters are read from optim")
        from . import _optim
        return _optim.optim_state_dict(model, optim, full_rank0_only=bool(rank0_only))

    @staticmethod
    def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None):
        """A ``full_optim_state_dict`` re-keyed for an optimizer over ``model``'s (flat) parameters: pass it to
        ``optim.load_state_dict``. The parameters are numbered as in ``optim`` when given, else as in
        ``model.parameters()``. A collective."""
        from . import _optim
        order = _optim._order(optim) if optim is not None else list(model.parameters())
        return _optim.optim_state_dict_to_load(model, order, full_optim_state_dict)


FullyShardedDataParallel.__module__ = "npgrad.distributed.fsdp"
