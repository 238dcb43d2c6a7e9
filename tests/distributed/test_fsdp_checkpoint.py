"""FSDP, fully_shard and ZeroRedundancyOptimizer with distributed checkpoints, saved on 3 ranks and resumed on
2 ranks and on one process (the plain model), and an unmodified PyTorch FSDP script under
``npgrad run --nproc-per-node 2``: the same parameters as uninterrupted training on one process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from _mpi_jobs import SCRIPTS, SRC, check_ok, mpirun, need_mpi

sys.path.insert(0, SCRIPTS)
import fsdp_checkpoint as job  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:torch.distributed is disabled")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    ck = str(tmp_path_factory.mktemp("fsdp_ck"))
    check_ok(mpirun(3, "fsdp_checkpoint.py", "save", ck, timeout=240), 3)
    return ck


def test_saved_on_3_ranks_resumes_on_2_ranks(saved):
    assert sorted(os.listdir(saved)) == ["fsdp", "fully_shard", "helpers", "zero.pt"]
    assert len([n for n in os.listdir(os.path.join(saved, "fsdp")) if n.endswith(".distcp")]) == 3
    check_ok(mpirun(2, "fsdp_checkpoint.py", "load", saved, timeout=240), 2)


@pytest.mark.parametrize("kind", ["fsdp", "helpers", "fully_shard"])
def test_saved_on_3_ranks_resumes_in_the_plain_model_on_one_process(saved, kind):
    got, ref = job.resume_plain(saved, kind), job.reference(2 * job.STEPS)
    job.check(got, ref, f"{kind} checkpoint resumed on one process")
    # the checkpoint is not the start: resuming it differs from training a fresh model
    fresh = job.reference(job.STEPS)
    assert max(float(np.max(np.abs(got[k].numpy() - fresh[k].numpy()))) for k in ref) > 1e-3


def test_an_unmodified_fsdp_script_on_2_processes_equals_one_process(tmp_path):
    need_mpi()
    script = os.path.join(SCRIPTS, "torchrun_fsdp.py")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    runs = {}
    for n, argv in ((2, ["--nproc-per-node", "2", "--master-port", "29547"]), (1, [])):
        out = str(tmp_path / f"out{n}")
        cmd = [sys.executable, "-m", "npgrad", "run", *argv, script, out]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"{' '.join(cmd)} did not finish in 240 s (a hang)\n{e.stdout}\n{e.stderr}")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        with open(out + ".json") as fh:
            runs[n] = json.load(fh)
        assert len([f for f in os.listdir(out + ".ck") if f.endswith(".distcp")]) == n
    assert runs[2]["world"] == 2 and runs[1]["world"] == 1
    np.testing.assert_allclose(runs[2]["losses"], runs[1]["losses"], rtol=0, atol=1e-12)
    for k, v in runs[1]["weights"].items():
        np.testing.assert_allclose(runs[2]["weights"][k], v, rtol=0, atol=1e-12, err_msg=k)
    # the checkpoint the 2 ranks wrote holds the trained weights whole, under the unwrapped model's names
    import npgrad
    import npgrad.distributed.checkpoint as dcp
    sd = {"model": {k: npgrad.zeros(*s, dtype=npgrad.float64) for k, s in runs[1]["shapes"].items()}}
    dcp.load(sd, checkpoint_id=str(tmp_path / "out2.ck"))
    for k, v in runs[1]["weights"].items():
        np.testing.assert_allclose(sd["model"][k].numpy().reshape(-1), v, rtol=0, atol=1e-12, err_msg=k)


def _regions(path):
    """The blocks between ``# docs: NAME`` and ``# docs: end`` of a script, dedented."""
    import textwrap
    text, out = open(path).read(), {}
    for part in text.split("# docs: ")[1:]:
        name, _, rest = part.partition("\n")
        if name != "end":
            out[name] = textwrap.dedent(rest.rstrip(" ")).rstrip("\n")  # the part ends where "# docs: end" was
    return out


def test_the_docs_recipe_is_the_tested_code():
    docs = open(os.path.join(os.path.dirname(SRC), "docs", "distributed.md")).read()
    script = open(os.path.join(SCRIPTS, "torchrun_fsdp.py")).read()
    assert script[script.index("import functools"):].rstrip("\n") in docs
    regions = _regions(os.path.join(SCRIPTS, "fsdp_checkpoint.py"))
    assert sorted(regions) == ["plain", "resume"]
    for name, code in regions.items():
        assert f"```python\n{code}\n```" in docs, name
