"""ZeroRedundancyOptimizer: each rank keeps optimizer state for, and updates, only its share of the
parameters; after the local step every rank broadcasts its updated parameters to the others.

Gradients must already be the same on every rank (averaged by DistributedDataParallel, or by the user).
Parameters are shared out per parameter group, largest first, each to the rank holding the fewest
elements so far. ``consolidate_state_dict(to)`` gathers the ranks' local states on rank ``to``, whose
``state_dict()`` is then the one an ordinary optimizer of the whole model would give; ``load_state_dict``
takes such a state dict on every rank and keeps its own share.
"""
import numpy as np

from ...optim.optimizer import Optimizer
from .._group import _resolve


class ZeroRedundancyOptimizer(Optimizer):
    """Wrap ``optimizer_class`` (built with ``**defaults``) so its state is sharded across
    ``process_group``. ``parameters_as_bucket_view`` changes nothing here: updated parameters always
    travel packed, one broadcast buffer per rank and dtype."""

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False, **defaults):
        super().__init__(params, defaults)
        pg = _resolve(process_group)
        if pg is None:
            raise ValueError("ZeroRedundancyOptimizer: this rank is not a member of process_group")
        self.process_group = pg
        self.world_size = pg.size()
        self.rank = pg.rank()
        self.global_rank = pg._ranks[self.rank]
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._optim_constructor = optimizer_class
        self._optim_defaults = defaults
        self._partition = self._partition_parameters()
        local_groups = []
        for g, owned in zip(self.param_groups, self._partition):
            lg = {k: v for k, v in g.items() if k != "params"}
            lg["params"] = owned[self.rank]
            local_groups.append(lg)
        self.optim = optimizer_class(local_groups, **defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        self.state = self.optim.state
        self._all_state_dicts = []
        self._buckets = self._build_buckets()
        self.initialized = True

    def _partition_parameters(self):
        """Per group, the parameters of each rank: largest first, each to the least loaded rank (the lowest
        of a tie), each rank's list in that order (as PyTorch's)."""
        out = []
        for g in self.param_groups:
            sizes = [0] * self.world_size
            ranks = [[] for _ in range(self.world_size)]
            for p in sorted(g["params"], key=lambda t: -t.numel()):
                r = sizes.index(min(sizes))
                ranks[r].append(p)
                sizes[r] += p.numel()
            out.append(ranks)
        return out

    def _build_buckets(self):
        buckets = []
        for r in range(self.world_size):
            by_dtype = {}
            for owned in self._partition:
                for p in owned[r]:
                    by_dtype.setdefault(p._data.dtype, []).append(p)
            for dtype, ps in by_dtype.items():
                buckets.append((r, ps, np.empty(sum(p._data.size for p in ps), dtype)))
        return buckets

    @staticmethod
    def _sync_param_groups(src, dst):
        for s, d in zip(src, dst):
            for k, v in s.items():
                if k not in ("params", "param_names"):
                    d[k] = v

    def step(self, closure=None, **kwargs):
        """The local optimizer's step on this rank's parameters, then every rank's updated parameters to
        every rank. Returns the closure's loss (evaluated on this rank)."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)  # an LR scheduler edits ours
        loss = self.optim.step(closure=closure, **kwargs) if kwargs else self.optim.step(closure)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        self._all_state_dicts = []  # a consolidated state is stale once the parameters move on
        self._broadcast_params()
        return loss

    def _broadcast_params(self):
        if self.world_size == 1:
            return
        from mpi4py import MPI  # optional: present whenever a process group exists
        comm = self.process_group._comm
        reqs = []
        for r, ps, buf in self._buckets:
            if r == self.rank:
                o = 0
                for p in ps:
                    n = p._data.size
                    buf[o:o + n] = p._data.reshape(-1)
                    o += n
            reqs.append(comm.Ibcast(buf, root=r))
        MPI.Request.Waitall(reqs)
        for r, ps, buf in self._buckets:
            if r == self.rank:
                continue
            o = 0
            for p in ps:
                n = p._data.size
                if p._data.flags.writeable and p._data.flags.c_contiguous:
                    p._data.reshape(-1)[:] = buf[o:o + n]
                else:
                    p._data = buf[o:o + n].reshape(p._data.shape).copy()
                p._version_counter()[0] += 1
                o += n

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        if getattr(self, "initialized", False):
            g = self.param_groups[-1]
            self._partition = self._partition_parameters()
            lg = {k: v for k, v in g.items() if k != "params"}
            lg["params"] = self._partition[-1][self.rank]
            self.optim.add_param_group(lg)
            self._sync_param_groups(self.optim.param_groups, self.param_groups)
            self._buckets = self._build_buckets()

    # -- state dicts -------------------------------------------------------------------------------------
    def consolidate_state_dict(self, to=0):
        """Gather every rank's local optimizer state on rank ``to`` (a collective: every rank calls it)."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        root = self.process_group._ranks.index(to) if to in self.process_group._ranks else to
        local = self.optim.state_dict()
        every = self.process_group._comm.gather(local, root=root)
        self._all_state_dicts = every if self.rank == root else []

    def _global_index(self):
        index = {}
        for g in self.param_groups:
            for p in g["params"]:
                index.setdefault(id(p), len(index))
        return index

    def state_dict(self):
        """The whole optimizer's state dict, as one process's optimizer would give it; only on the rank
        that ``consolidate_state_dict(to=...)`` gathered it to."""
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant "
                               "to save the global state.")
        index = self._global_index()
        state = {}
        for r, local in enumerate(self._all_state_dicts):
            order = [p for owned in self._partition for p in owned[r]]
            for j, value in local["state"].items():
                state[index[id(order[j])]] = value
        groups = []
        for g in self.param_groups:
            ng = {k: v for k, v in g.items() if k not in ("params", "param_names")}
            ng["params"] = [index[id(p)] for p in g["params"]]
            groups.append(ng)
        return {"state": dict(sorted(state.items())), "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a whole-optimizer state dict (``state_dict()``'s form) on every rank; each keeps its share."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        index = self._global_index()
        mine = [p for owned in self._partition for p in owned[self.rank]]
        local_state = {}
        for j, p in enumerate(mine):
            value = state_dict["state"].get(index[id(p)])
            if value is not None:
                local_state[j] = value
        local_groups, j = [], 0
        for g, owned in zip(groups, self._partition):
            lg = {k: v for k, v in g.items() if k != "params"}
            lg["params"] = list(range(j, j + len(owned[self.rank])))
            j += len(owned[self.rank])
            local_groups.append(lg)
        self.optim.load_state_dict({"state": local_state, "param_groups": local_groups})
        self.state = self.optim.state
        self._sync_param_groups(self.optim.param_groups, self.param_groups)


ZeroRedundancyOptimizer.__module__ = "npgrad.distributed.optim"
