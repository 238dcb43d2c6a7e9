"""Running on several processes: what ``npgrad distributed-run`` and ``mpiexec ... npgrad train`` need.

The processes are started by MPI's launcher (``mpiexec``); this module only reads what it says about
them (from the environment, without importing mpi4py) and starts it for ``distributed-run``.
"""
import os
import shutil
import subprocess
import sys

# What MPICH (hydra) and Open MPI tell each process about its place in the job.
_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE")
_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
_LOCAL_RANK_VARS = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK")
_LOCAL_SIZE_VARS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")


def _first(names, default):
    for n in names:
        if os.environ.get(n, "").strip():
            return int(os.environ[n])
    return default


def launcher_world_size():
    """How many processes the MPI launcher started (1 when this process was not started by one)."""
    return _first(_SIZE_VARS, 1)


def export_torchrun_env():
    """Set RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE (and MASTER_ADDR/PORT) as torchrun does, from
    the MPI launcher's variables, for scripts that read them; values already set are kept, except in a
    process that npgrad's torchrun started (``NPGRAD_TORCHRUN``), where all of torchrun's are set."""
    if os.environ.get("NPGRAD_TORCHRUN"):
        _export_as_torchrun()
        return
    if launcher_world_size() <= 1 and "RANK" not in os.environ:
        return
    for key, names, default in (("RANK", _RANK_VARS, 0), ("WORLD_SIZE", _SIZE_VARS, 1),
                                ("LOCAL_RANK", _LOCAL_RANK_VARS, None), ("LOCAL_WORLD_SIZE", _LOCAL_SIZE_VARS, None)):
        value = _first(names, default)
        if value is None:  # a launcher that does not say: local is global on one machine
            value = _first(_RANK_VARS if key == "LOCAL_RANK" else _SIZE_VARS, 0)
        os.environ.setdefault(key, str(value))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")


def _export_as_torchrun():
    """Every variable torchrun gives a worker, from this process's place in the MPI job."""
    rank, world = _first(_RANK_VARS, 0), _first(_SIZE_VARS, 1)
    per_node = int(os.environ.get("NPGRAD_TORCHRUN_NPROC") or 0) or world
    local_size = _first(_LOCAL_SIZE_VARS, min(per_node, world))
    local_rank = _first(_LOCAL_RANK_VARS, rank % local_size)
    node, nodes = rank // local_size, -(-world // local_size)
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(local_rank),
                      LOCAL_WORLD_SIZE=str(local_size), GROUP_RANK=str(node), GROUP_WORLD_SIZE=str(nodes),
                      ROLE_RANK=str(rank), ROLE_WORLD_SIZE=str(world), TORCHELASTIC_RESTART_COUNT="0",
                      TORCHELASTIC_MAX_RESTARTS="0")
    os.environ.setdefault("ROLE_NAME", "default")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")


def mpiexec_command(nproc, target, mpiexec=None, hostfile=None, extra=(), per_node=None):
    """The command line that starts ``nproc`` copies of ``target`` (arguments after ``python``) under
    ``python -m mpi4py``, which makes one failing rank abort the whole job instead of leaving the others
    waiting in a collective; ``per_node`` places that many on each machine of ``hostfile``."""
    launcher = mpiexec or os.environ.get("NPGRAD_MPIEXEC") or shutil.which("mpiexec") or shutil.which("mpirun")
    if launcher is None:
        raise SystemExit("npgrad: no mpiexec found to start the processes; install an MPI "
                         "(pip install npgrad[distributed] "
                         "installs mpi4py and mpich) or pass --mpiexec PATH")
    cmd = [launcher, "-n", str(nproc)]
    if hostfile:
        hydra = _is_hydra(launcher)
        cmd += ["-f", hostfile] if hydra else ["--hostfile", hostfile]
        if per_node:
            cmd += ["-ppn", str(per_node)] if hydra else ["--map-by", f"ppr:{per_node}:node"]
    return cmd + list(extra) + [sys.executable, "-m", "mpi4py", *target]


def _is_hydra(launcher):
    try:
        out = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return True
    return "HYDRA" in out or "mpich" in out.lower()


def distributed_run(nproc, script, args=(), mpiexec=None, hostfile=None, extra=()):
    """Start ``nproc`` processes running ``script`` as ``npgrad run`` does (``import torch`` giving npgrad),
    and return the job's exit code."""
    cmd = mpiexec_command(nproc, ["-m", "npgrad", "run", script, *args], mpiexec, hostfile, extra)
    return subprocess.run(cmd).returncode
