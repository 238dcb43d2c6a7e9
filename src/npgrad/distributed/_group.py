"""Process groups on MPI communicators: the default (world) group, ``new_group``, and rank bookkeeping.

mpi4py is imported only when a group is made, so ``import npgrad.distributed`` needs NumPy alone.
"""
import enum
import sys
import time

from .._optional import require

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class Backend(str):
    """The backend's name (``Backend.MPI == "mpi"``): npgrad runs every group on MPI."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return str.__new__(cls, value)


class ProcessGroup:
    """A set of processes and the MPI communicator their collectives run on."""

    def __init__(self, comm, ranks):
        self._comm = comm
        self._ranks = list(ranks)  # global rank of each member, in group-rank order

    def rank(self):
        return self._comm.Get_rank()

    def size(self):
        return self._comm.Get_size()

    def name(self):
        return Backend.MPI

    def __repr__(self):
        return f"ProcessGroup(backend=mpi, ranks={self._ranks})"


class _NonGroupMember:
    def __repr__(self):
        return "NON_GROUP_MEMBER"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = _NonGroupMember()


class group:  # noqa: N801  (torch.distributed.group.WORLD)
    WORLD = None


class _State:
    world = None          # the default ProcessGroup
    hook_installed = False


def is_available():
    """Whether collectives can run here: mpi4py (and an MPI library) can be imported."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available():
    return is_available()


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_initialized():
    return _State.world is not None


def _mpi():
    try:
        return require("mpi4py.MPI", "npgrad.distributed")
    except ModuleNotFoundError as e:  # PyTorch's RuntimeError, with the install hint
        raise RuntimeError(f"Distributed package doesn't have MPI built in: {e}") from None


def _abort_on_uncaught(MPI):
    """A rank that dies of an uncaught exception aborts the whole job (as ``python -m mpi4py`` does), so
    the other ranks never wait forever in a collective it will not join."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        if MPI.Is_initialized() and not MPI.Is_finalized() and MPI.COMM_WORLD.Get_size() > 1:
            sys.stdout.flush()
            sys.stderr.flush()
            # mpiexec forwards each rank's output through a pipe that the abort tears down: without a moment for
            # it to drain, the traceback just written lost its last lines (the error itself) under load.
            time.sleep(0.3)
            MPI.COMM_WORLD.Abort(1)
    sys.excepthook = hook


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the default process group: every process ``mpiexec`` started, ranked as MPI ranks them.

    ``backend`` may be "mpi" (or None, or "gloo", which CPU scripts name and MPI stands in for);
    ``world_size`` and ``rank``, when given, must agree with the launcher's. ``init_method`` and ``store``
    are accepted for compatibility: MPI's launcher already did the rendezvous they describe."""
    if _State.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None:
        name = str(backend).lower()
        if name == "nccl" or name.startswith("cuda"):
            raise RuntimeError("Distributed package doesn't have NCCL built in")
        if name not in ("mpi", "gloo", "cpu:gloo", "cpu:mpi"):
            raise ValueError(f"Invalid backend: '{backend}'")
    MPI = _mpi()
    if not MPI.Is_initialized():
        MPI.Init()
    comm = MPI.COMM_WORLD.Dup()
    size, me = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, None) and int(world_size) != size:
        raise ValueError(f"init_process_group(world_size={world_size}) but the MPI launcher started {size} "
                         f"process{'es' if size != 1 else ''} (mpiexec -n {world_size} ...)")
    if rank not in (-1, None) and int(rank) != me:
        raise ValueError(f"init_process_group(rank={rank}) but the MPI launcher started this process as rank "
                         f"{me}: with MPI the launcher assigns ranks")
    _check_env(init_method, size, me)
    world = ProcessGroup(comm, range(size))
    _State.world = GroupMember.WORLD = group.WORLD = world
    if not _State.hook_installed:
        _abort_on_uncaught(MPI)
        _State.hook_installed = True


def _check_env(init_method, size, me):
    """``env://`` (the default): RANK and WORLD_SIZE, where set (torchrun sets them), must be MPI's."""
    import os
    if init_method is not None and not str(init_method).startswith("env://"):
        return  # tcp://, file://: a rendezvous MPI's launcher has already done
    for name, mine in (("RANK", me), ("WORLD_SIZE", size)):
        value = os.environ.get(name, "").strip()
        if value and value.lstrip("-").isdigit() and int(value) != mine:
            raise ValueError(f"init_process_group: the environment says {name}={value} but the MPI launcher started "
                             f"this process as {'rank ' + str(me) if name == 'RANK' else str(size) + ' processes'} "
                             f"(RANK={me}, WORLD_SIZE={size}): start the job with `npgrad run --nproc-per-node N` or "
                             "`mpiexec -n N`, and do not set RANK/WORLD_SIZE by hand")


def destroy_process_group(group=None):
    """Leave ``group`` (default: the default group, after which init_process_group may be called again)."""
    if _State.world is None:
        raise ValueError(_NOT_INITIALIZED)
    if group is None or group is _State.world:
        _State.world._comm.Free()
        _State.world = GroupMember.WORLD = globals()["group"].WORLD = None
    elif group is not GroupMember.NON_GROUP_MEMBER:
        group._comm.Free()


def _world():
    if _State.world is None:
        raise ValueError(_NOT_INITIALIZED)
    return _State.world


def _resolve(group):
    """The ProcessGroup a collective runs on, or None when this process is not one of its members."""
    world = _world()
    if group is None:
        return world
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return group


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None, sort_ranks=True):
    """A group of the given global ranks (all of them when None). Every process of the default group
    must call it, members or not; non-members get ``GroupMember.NON_GROUP_MEMBER``."""
    world = _world()
    size = world.size()
    ranks = list(range(size)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        ranks = sorted(ranks)
    for r in ranks:
        if not 0 <= r < size:
            raise ValueError(f"Invalid rank {r} in new_group: the world has {size} ranks")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    comm = world._comm.Create(world._comm.Get_group().Incl(ranks))
    if world.rank() not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, ranks)


def get_rank(group=None):
    pg = _resolve(group)
    return -1 if pg is None else pg._ranks[pg.rank()]


def get_world_size(group=None):
    pg = _resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return Backend(Backend.MPI)


def get_global_rank(group, group_rank):
    pg = _resolve(group)
    if pg is None or not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank):
    pg = _resolve(group)
    if pg is None or global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return pg._ranks.index(global_rank)


def get_process_group_ranks(group):
    pg = _resolve(group)
    return list(pg._ranks)


def _group_peer(pg, peer, group_peer, default=None):
    """The group rank of ``peer`` (a global rank) or ``group_peer`` (a group rank), as torch's src/dst."""
    if group_peer is not None:
        if peer is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if not 0 <= group_peer < pg.size():
            raise ValueError(f"Group rank {group_peer} is not part of group {pg}")
        return group_peer
    if peer is None:
        if default is None:
            raise ValueError("Must specify global_rank or group_rank")
        peer = default
    if peer not in pg._ranks:
        raise ValueError(f"Global rank {peer} is not part of group {pg}")
    return pg._ranks.index(peer)


class ReduceOp(enum.IntEnum):
    """The reduction of all_reduce, reduce and reduce_scatter (``ReduceOp.SUM`` ...)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"


ReduceOp.RedOpType = ReduceOp
