"""The ranks of a save or load talking to each other: pickled objects over the group's MPI communicator
(plans and tables of contents are small), or a group of one when there is no process group."""
import warnings

from .. import _group


class Coordinator:
    def __init__(self, process_group, no_dist, what):
        self.comm = None
        if not no_dist and _group.is_initialized():
            pg = _group._resolve(process_group)
            if pg is None:
                raise ValueError("torch.distributed.checkpoint: this process is not a member of process_group")
            self.comm = pg._comm
        elif not no_dist:
            warnings.warn(f"torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to "
                          f"{what} in a single process.", stacklevel=3)
        self.rank = 0 if self.comm is None else self.comm.Get_rank()
        self.size = 1 if self.comm is None else self.comm.Get_size()

    def bcast(self, obj):
        return obj if self.comm is None else self.comm.bcast(obj, root=0)

    def gather(self, obj):
        return [obj] if self.comm is None else self.comm.gather(obj, root=0)

    def allgather(self, obj):
        return [obj] if self.comm is None else self.comm.allgather(obj)
