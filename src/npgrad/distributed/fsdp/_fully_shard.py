"""fully_shard (PyTorch's FSDP2 API) on the same gather/reduce-scatter units as FullyShardedDataParallel.

``fully_shard(module)`` makes one unit of the parameters of ``module`` not already in a unit of a
submodule (call it bottom-up: blocks first, then the model). npgrad has no DTensor, so each parameter
stays an ordinary registered Parameter holding this rank's chunk of dim 0 (torch.chunk's split:
ceil(rows / N) rows per rank, the last ranks' chunks shorter or empty): ``p.shape`` is the local shape,
the optimizer built on ``model.parameters()`` updates the chunks, and the state dict holds a
``LocalShard`` (chunk, global shape, offsets) per parameter. A forward pre-hook all-gathers the unit
and puts the full tensors in the modules' parameter slots for the forward; the forward hook puts the
chunks back and frees the full tensors (``reshard_after_forward``: by default for every unit but the
root); gradients reduce-scatter into the chunks' ``.grad`` (averaged over ranks).
"""
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...tensor import Tensor
from .._group import _resolve
from ._shards import assemble
from ._units import ChunkUnit, hook_outputs
from .._sharded import LocalShard


class _State:
    def __init__(self, unit, records, reshard_after_forward):
        self.unit = unit
        self.records = records          # (owner module, name, parameter index, path from the FSDP module)
        self.reshard_after_forward = reshard_after_forward
        self.is_root = True

    def reshard_now(self):
        if self.reshard_after_forward is None:
            return not self.is_root
        return bool(self.reshard_after_forward)


class UnshardHandle:
    """What ``unshard(async_op=True)`` returns; npgrad's all-gather is already complete when it returns."""

    def wait(self):
        return None


class FSDPModule:
    """The class ``fully_shard`` mixes into a module's class (``FSDPLinear`` for a Linear ...)."""

    def __new__(cls, *args, **kwargs):
        if cls is FSDPModule:
            raise TypeError("FSDPModule is mixed in by fully_shard(module); it is not made directly")
        return super().__new__(cls)

    def unshard(self, async_op=False):
        """All-gather this module's unit now (its next forward then finds it gathered)."""
        st = self.__dict__["_fsdp_state"]
        with no_grad():
            st.unit.gather()
        return UnshardHandle() if async_op else None

    def reshard(self):
        """Free this module's gathered parameters."""
        self.__dict__["_fsdp_state"].unit.release()

    def _fsdp_states(self, recurse):
        mods = self.modules() if recurse else [self]
        return [m.__dict__["_fsdp_state"] for m in mods if isinstance(m, FSDPModule)]

    def set_requires_gradient_sync(self, requires_gradient_sync, *, recurse=True):
        """False: backward accumulates unreduced gradients locally (gradient accumulation without
        communication); True again: the next backward reduce-scatters them with its own."""
        for st in self._fsdp_states(recurse):
            st.unit.sync = bool(requires_gradient_sync)

    def set_reshard_after_forward(self, reshard_after_forward, recurse=True):
        for st in self._fsdp_states(recurse):
            st.reshard_after_forward = bool(reshard_after_forward)


_CLASSES = {}


def _fsdp_class(cls):
    new = _CLASSES.get(cls)
    if new is None:
        new = _CLASSES[cls] = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {"__module__": cls.__module__})
    return new


def _pre_forward(module, args):
    st = module.__dict__["_fsdp_state"]
    views = st.unit.unshard()
    for owner, n, i, _ in st.records:
        owner._parameters[n] = views[i]


def _post_forward(module, args, output):
    st = module.__dict__["_fsdp_state"]
    unit = st.unit
    for owner, n, i, _ in st.records:
        owner._parameters[n] = unit.shards[i]
    if not is_grad_enabled() or st.reshard_now():
        unit.release()
    if output is None:
        return None
    return hook_outputs(unit, output)


def _state_dict_hook(module, destination, prefix, local_metadata):
    st = module.__dict__["_fsdp_state"]
    unit = st.unit
    for _, _, i, path in st.records:
        key = prefix + path
        if key in destination:
            a, _ = unit.bounds[i][unit.rank]
            shape = unit.shapes[i]
            destination[key] = LocalShard(unit.shards[i].detach(), shape, (a,) + (0,) * (len(shape) - 1))


def _load_pre_hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, error_msgs):
    st = module.__dict__["_fsdp_state"]
    unit = st.unit
    seen = set()
    for _, _, i, path in st.records:
        key = prefix + path
        if key not in state_dict or key in seen:
            continue
        seen.add(key)
        full = assemble(unit.comm, state_dict[key], unit.shapes[i], unit.dtypes[i], key)
        a, b = unit.bounds[i][unit.rank]
        state_dict[key] = Tensor._wrap(full[a:b])


def fully_shard(module, *, reshard_after_forward=None, ignored_params=None):
    """Shard ``module``'s parameters (those not in a submodule's unit) across the default group's ranks
    along dim 0; returns ``module``, whose class becomes ``FSDP<Class>``."""
    if isinstance(module, FSDPModule):
        raise ValueError(f"fully_shard has already been applied to {type(module).__name__}")
    pg = _resolve(None)
    skip = {id(p) for p in ignored_params or ()}
    params, index, records = [], {}, []

    def visit(owner, path):
        if owner is not module and isinstance(owner, FSDPModule):
            owner.__dict__["_fsdp_state"].is_root = False
            for m in owner.modules():
                if isinstance(m, FSDPModule):
                    m.__dict__["_fsdp_state"].is_root = False
            return
        for n, p in owner._parameters.items():
            if p is None or id(p) in skip:
                continue
            if p.ndim == 0:
                raise ValueError(f"fully_shard: parameter {path}{n} is 0-dimensional; npgrad shards parameters "
                                 "along dim 0 (pass it in ignored_params to keep it replicated)")
            if id(p) not in index:
                index[id(p)] = len(params)
                params.append(p)
            records.append((owner, n, index[id(p)], path + n))
        for n, child in owner._modules.items():
            if child is not None:
                visit(child, path + n + ".")
    visit(module, "")
    unit = ChunkUnit(pg, params)
    for owner, n, i, _ in records:
        owner._parameters[n] = unit.shards[i]
    module.__dict__["_fsdp_state"] = _State(unit, records, reshard_after_forward)
    module.__class__ = _fsdp_class(type(module))
    if params:
        module.register_forward_pre_hook(_pre_forward, prepend=True)
        module.register_forward_hook(_post_forward, always_call=True)
        module.register_state_dict_post_hook(_state_dict_hook)
        module.register_load_state_dict_pre_hook(_load_pre_hook)
    return module
