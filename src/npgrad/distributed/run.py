"""``torch.distributed.run`` (``torchrun``): start a training script on N processes per node, on MPI.

    npgrad run --nproc-per-node 4 train.py --lr 0.1            # torchrun --nproc-per-node 4 train.py --lr 0.1
    npgrad run -m torch.distributed.run --nproc-per-node 4 train.py   # the same, spelled as PyTorch's module
    python -m npgrad.distributed.run --nproc-per-node 4 train.py      # the same, without the alias
    npgrad run --nnodes 2 --nproc-per-node 8 --hostfile hosts train.py   # 16 processes on two machines

torchrun starts one agent per machine that spawns the workers and meets the other agents at a rendezvous
(``--rdzv-*``, ``--master-addr``). Here MPI's launcher does both from one command: ``mpiexec`` starts all
``nnodes x nproc_per_node`` processes (on the machines of ``--hostfile``) under ``python -m mpi4py`` (one
failing process aborts the job), each running the script as ``npgrad run`` does (``import torch`` giving
npgrad) with torchrun's variables set from its MPI rank: ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``GROUP_RANK`` (the node), ``GROUP_WORLD_SIZE``, ``ROLE_RANK``, ``ROLE_WORLD_SIZE``,
``MASTER_ADDR``, ``MASTER_PORT`` and ``TORCHELASTIC_*``. So the command runs on one machine only (node 0),
the rendezvous options only set ``MASTER_ADDR``/``MASTER_PORT`` for scripts that read them, and elastic
restarts (``--max-restarts`` above 0, ``--nnodes MIN:MAX`` ranges) are refused: MPI jobs have a fixed size.
"""
import argparse
import os
import sys
import uuid

_STATIC = "static"


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value in ("gpu", "xpu", "cuda"):
        raise argparse.ArgumentTypeError(f"--nproc-per-node {value}: npgrad runs on CPUs (use a number, or cpu/auto)")
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid --nproc-per-node value: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"--nproc-per-node must be at least 1, not {n}")
    return n


def _nnodes(value):
    lo, _, hi = value.partition(":")
    try:
        lo, hi = int(lo), int(hi or lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid --nnodes value: {value!r}") from None
    if lo != hi:
        raise argparse.ArgumentTypeError(f"--nnodes {value}: an MPI job has a fixed number of nodes (elastic "
                                         "ranges are not supported); give one number")
    if lo < 1:
        raise argparse.ArgumentTypeError(f"--nnodes must be at least 1, not {lo}")
    return lo


def get_args_parser():
    """torchrun's options (both spellings, ``--nproc-per-node`` and ``--nproc_per_node``), and the MPI ones."""
    p = argparse.ArgumentParser(prog="torchrun", description="npgrad's torchrun: start NPROC_PER_NODE processes "
                                "per node under mpiexec, each running TRAINING_SCRIPT with torch resolving to npgrad.")

    def opt(name, **kw):
        spellings = [name] + (["--" + name[2:].replace("-", "_")] if "-" in name[2:] else [])
        p.add_argument(*spellings, **kw)
    opt("--nnodes", type=_nnodes, default=1, help="number of machines (with --hostfile)")
    opt("--nproc-per-node", type=_nproc, default=1, help="processes per machine: a number, or cpu/auto")
    opt("--node-rank", type=int, default=0, help="must be 0: one command starts every node")
    opt("--master-addr", default="127.0.0.1", help="exported as MASTER_ADDR (MPI does the rendezvous)")
    opt("--master-port", type=int, default=29500, help="exported as MASTER_PORT")
    opt("--rdzv-backend", default=_STATIC, help="accepted; MPI's launcher is the rendezvous")
    opt("--rdzv-endpoint", default="", help="HOST[:PORT]: exported as MASTER_ADDR/MASTER_PORT")
    opt("--rdzv-id", default="none", help="exported as TORCHELASTIC_RUN_ID")
    opt("--rdzv-conf", default="", help="accepted; MPI's launcher is the rendezvous")
    opt("--standalone", action="store_true", help="one machine, a local rendezvous (the default here)")
    opt("--max-restarts", type=int, default=0, help="must be 0: MPI jobs are not restarted")
    opt("--monitor-interval", type=float, default=0.1, help="accepted; mpiexec watches the processes")
    opt("--role", default="default", help="exported as ROLE_NAME")
    opt("--hostfile", default=None, help="the machines, in the MPI launcher's hostfile format (docs/distributed.md)")
    opt("--mpiexec", default=None, help="the MPI launcher (default: $NPGRAD_MPIEXEC, then mpiexec on PATH)")
    p.add_argument("-m", "--module", action="store_true", help="run TRAINING_SCRIPT as a module, as python -m")
    p.add_argument("training_script", help="the PyTorch program (or module, with -m) to run on every process")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    return get_args_parser().parse_args(args)


def launch_env(args, environ=None):
    """The launcher's environment for the job: what every process inherits (``mpiexec`` forwards it)."""
    env = dict(os.environ if environ is None else environ)
    addr, port = args.master_addr, args.master_port
    if args.standalone:
        addr = "localhost"
    elif args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":") if ":" in args.rdzv_endpoint else (args.rdzv_endpoint, "", "")
        addr, port = host or args.rdzv_endpoint, int(p) if p.isdigit() else port
    env.update(MASTER_ADDR=str(addr), MASTER_PORT=str(port), NPGRAD_TORCHRUN="1", ROLE_NAME=args.role,
               TORCHELASTIC_RUN_ID=args.rdzv_id if args.rdzv_id != "none" else str(uuid.uuid4()),
               NPGRAD_TORCHRUN_NPROC=str(args.nproc_per_node))
    if getattr(args, "use_env", True) is False:  # torch.distributed.launch: each script gets --local-rank=N
        env["NPGRAD_TORCHRUN_LOCAL_RANK_ARG"] = "1"
    world = args.nnodes * args.nproc_per_node
    if world > 1 and "OMP_NUM_THREADS" not in env:
        print("*****************************************\nSetting OMP_NUM_THREADS environment variable for each "
              "process to be 1 in default, to avoid your system being overloaded, please further tune the variable "
              "for optimal performance in your application as needed. \n*****************************************",
              file=sys.stderr)
        env["OMP_NUM_THREADS"] = "1"
    return env


def command(args):
    """The ``mpiexec`` command line for ``args``."""
    from .._launch import mpiexec_command
    if args.node_rank != 0:
        raise SystemExit(f"torchrun: --node-rank {args.node_rank}: on MPI one command on node 0 starts the processes "
                         "of every node (list the machines with --hostfile); run nothing on the other nodes")
    if args.max_restarts:
        raise SystemExit("torchrun: --max-restarts must be 0: an MPI job is not restarted (a failing process ends it)")
    if args.nnodes > 1 and not args.hostfile:
        raise SystemExit(f"torchrun: --nnodes {args.nnodes} needs --hostfile listing the machines (see the "
                         "'Launching like torchrun' section of docs/distributed.md)")
    run = ["-m", "npgrad", "run"] + (["-m", args.training_script] if args.module else [args.training_script])
    return mpiexec_command(args.nnodes * args.nproc_per_node, run + list(args.training_script_args), args.mpiexec,
                           args.hostfile, per_node=args.nproc_per_node if args.hostfile else None)


def run(args):
    """Start the job described by parsed ``args`` and wait for it; returns its exit code."""
    import subprocess
    return subprocess.run(command(args), env=launch_env(args)).returncode


def main(args=None):
    return run(parse_args(sys.argv[1:] if args is None else args))


if __name__ == "__main__":
    raise SystemExit(main())
