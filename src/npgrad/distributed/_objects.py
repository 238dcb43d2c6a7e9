"""Collectives on picklable Python objects (configurations, metrics, small results): pickled by
mpi4py's lower-case methods, which is right for objects and never used for tensors."""
from ._group import _group_peer, _resolve


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace ``object_list``'s items, on every rank, by those of rank ``src``."""
    pg = _resolve(group)
    if pg is None:
        return
    root = _group_peer(pg, src, group_src)
    got = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    object_list[:] = got


def all_gather_object(object_list, obj, group=None):
    """``object_list[i]`` receives rank i's ``obj``."""
    pg = _resolve(group)
    if pg is None:
        return
    got = pg._comm.allgather(obj)
    if len(object_list) < len(got):
        raise ValueError(f"all_gather_object: object_list must have {len(got)} entries (the group size)")
    object_list[:len(got)] = got


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank ``dst`` (default 0) receives every rank's ``obj`` in ``object_gather_list``."""
    pg = _resolve(group)
    if pg is None:
        return
    root = _group_peer(pg, dst, group_dst, default=pg._ranks[0])
    got = pg._comm.gather(obj, root=root)
    if pg.rank() == root:
        if object_gather_list is None or len(object_gather_list) < len(got):
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        object_gather_list[:len(got)] = got


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank ``src`` (default 0) sends ``scatter_object_input_list[i]`` to rank i, into
    ``scatter_object_output_list[0]``."""
    pg = _resolve(group)
    if pg is None:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = _group_peer(pg, src, group_src, default=pg._ranks[0])
    items = None
    if pg.rank() == root:
        items = list(scatter_object_input_list)
        if len(items) != pg.size():
            raise ValueError(f"scatter_object_list: {len(items)} objects for a group of {pg.size()}")
    scatter_object_output_list[0] = pg._comm.scatter(items, root=root)
