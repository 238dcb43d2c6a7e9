"""torchrun-style launches: ``npgrad run --nproc-per-node N script.py`` (and ``torch.distributed.run`` /
``torch.distributed.launch`` as modules) start an MPI job whose processes see torchrun's variables."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from npgrad import _launch
from npgrad.distributed import _group
from npgrad.distributed import run as torchrun

from _mpi_jobs import SCRIPTS, SRC, need_mpi

SCRIPT = os.path.join(SCRIPTS, "torchrun_ddp.py")


def _npgrad(*args, cwd, timeout=90):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), OPENBLAS_NUM_THREADS="1")
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "OMP_NUM_THREADS"):
        env.pop(k, None)
    cmd = [sys.executable, *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{' '.join(cmd)} did not finish in {timeout} s (a hang)\n{e.stdout}\n{e.stderr}")


def test_an_unmodified_ddp_script_on_2_processes_equals_one_process(tmp_path):
    need_mpi()
    one, two = str(tmp_path / "one.json"), str(tmp_path / "two.json")
    proc = _npgrad("-m", "npgrad", "run", SCRIPT, one, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _npgrad("-m", "npgrad", "run", "--nproc-per-node", "2", "--master-port", "29533", SCRIPT, two,
                   cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in proc.stderr
    a, b = json.loads(open(one).read()), json.loads(open(two).read())
    assert len(a["losses"]) == len(b["losses"]) == 12
    np.testing.assert_allclose(b["losses"], a["losses"], rtol=0, atol=1e-12)
    for u, v in zip(a["weights"], b["weights"]):
        np.testing.assert_allclose(v, u, rtol=0, atol=1e-12)
    for r in (0, 1):
        env = json.loads(open(f"{two}.env{r}").read())
        assert env == {"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2",
                       "GROUP_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29533"}


def test_a_failing_rank_ends_the_torchrun_job(tmp_path):
    need_mpi()
    t0 = time.perf_counter()
    proc = _npgrad("-m", "npgrad.distributed.run", "--nproc_per_node", "2", SCRIPT, str(tmp_path / "o.json"),
                   "--fail-rank", "1", cwd=str(tmp_path), timeout=60)
    took = time.perf_counter() - t0
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    # the failing rank's traceback is printed, but the abort that ends the job can cut its last lines off in
    # mpiexec's output forwarding (seen once under load), so the error's own line may be missing
    assert "rank 1 failed on purpose" in out or ("Traceback" in out and "torchrun_ddp.py" in out), out
    assert took < 30 and not os.path.exists(tmp_path / "o.json")


def test_torch_distributed_launch_passes_local_rank(tmp_path):
    need_mpi()
    script = tmp_path / "argv.py"
    script.write_text("import sys, os, torch\n"
                      "open(f'argv{os.environ[\"RANK\"]}.txt', 'w').write(' '.join(sys.argv[1:]) + "
                      "' ' + torch.__name__)\n")
    proc = _npgrad("-m", "npgrad", "run", "-m", "torch.distributed.launch", "--nproc-per-node", "2", str(script), "x",
                   cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "torch.distributed.launch is deprecated" in proc.stderr
    assert [(tmp_path / f"argv{r}.txt").read_text() for r in (0, 1)] == [f"--local-rank={r} x npgrad" for r in (0, 1)]


def _args(*argv):
    return torchrun.parse_args([*argv, "train.py", "--lr", "1"])


def test_the_mpiexec_command_for_several_machines():
    args = _args("--nnodes", "2", "--nproc-per-node", "4", "--hostfile", "hosts", "--mpiexec", "no-such-mpiexec")
    cmd = torchrun.command(args)
    assert cmd[:3] == ["no-such-mpiexec", "-n", "8"] and cmd[3:7] == ["-f", "hosts", "-ppn", "4"]
    assert cmd[7:] == [sys.executable, "-m", "mpi4py", "-m", "npgrad", "run", "train.py", "--lr", "1"]
    cmd = torchrun.command(_args("-m", "--mpiexec", "no-such-mpiexec"))
    assert cmd[-5:] == ["run", "-m", "train.py", "--lr", "1"] and cmd[2] == "1"


@pytest.mark.parametrize("argv,message", [
    (("--node-rank", "1"), "one command on node 0 starts the processes of every node"),
    (("--max-restarts", "2"), "--max-restarts must be 0"),
    (("--nnodes", "2"), "--nnodes 2 needs --hostfile"),
])
def test_what_mpi_cannot_do_is_refused(argv, message):
    with pytest.raises(SystemExit, match=message):
        torchrun.command(_args(*argv, "--mpiexec", "no-such-mpiexec"))


@pytest.mark.parametrize("argv", [("--nnodes", "1:4"), ("--nproc-per-node", "gpu"), ("--nproc-per-node", "0")])
def test_bad_sizes_are_argparse_errors(argv, capsys):
    with pytest.raises(SystemExit) as e:
        _args(*argv)
    assert e.value.code == 2 and "error: argument" in capsys.readouterr().err


def test_the_rendezvous_options_set_master_addr_and_port():
    env = torchrun.launch_env(_args("--rdzv-endpoint", "node7:1234", "--rdzv-id", "job1"), environ={})
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["TORCHELASTIC_RUN_ID"]) == ("node7", "1234", "job1")
    env = torchrun.launch_env(_args("--nproc-per-node", "3"), environ={"OMP_NUM_THREADS": "2"})
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["OMP_NUM_THREADS"]) == ("127.0.0.1", "29500", "2")


def test_each_process_gets_torchruns_variables_from_its_mpi_rank(monkeypatch):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "OMPI_", "PMIX_", "MPI_LOCAL"))}
    env.update(NPGRAD_TORCHRUN="1", NPGRAD_TORCHRUN_NPROC="4", PMI_RANK="5", PMI_SIZE="8")
    monkeypatch.setattr(os, "environ", env)  # what export_torchrun_env sets stays in this copy
    _launch.export_torchrun_env()
    got = {k: os.environ[k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                      "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE")}
    assert got == {"RANK": "5", "LOCAL_RANK": "1", "WORLD_SIZE": "8", "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": "1",
                   "GROUP_WORLD_SIZE": "2", "ROLE_RANK": "5", "ROLE_WORLD_SIZE": "8"}


def test_env_ranks_that_disagree_with_mpi_are_an_error(monkeypatch):
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    with pytest.raises(ValueError, match="the environment says RANK=3 but the MPI launcher started this process as "
                                         "rank 1"):
        _group._check_env("env://", 4, 1)
    _group._check_env("env://", 4, 3)
    _group._check_env("tcp://10.0.0.1:23456", 2, 0)  # a rendezvous address: MPI already did that part


def test_record_writes_the_error_file_and_reraises(tmp_path, monkeypatch):
    from npgrad.distributed.elastic.multiprocessing.errors import record
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(tmp_path / "error.json"))

    @record
    def main(x):
        if x:
            raise ValueError("boom")
        return 7
    assert main(0) == 7 and not (tmp_path / "error.json").exists()
    with pytest.raises(ValueError, match="boom"):
        main(1)
    entry = json.loads((tmp_path / "error.json").read_text())["message"]
    assert entry["message"] == "ValueError: boom" and "raise ValueError" in entry["extraInfo"]["py_callstack"]
