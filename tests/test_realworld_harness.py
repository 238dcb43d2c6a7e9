"""The corpus harness (tools/realworld): what it runs of a program and what it compares.

The corpus itself needs repository snapshots and runs outside CI; these tests pin the harness's own
mechanics on a program written here, in a throwaway git repository."""
import os
import subprocess
import sys

import pytest

import npgrad

HARNESS = os.path.join(os.path.dirname(__file__), "..", "tools", "realworld")
sys.path.insert(0, HARNESS)
import corpus  # noqa: E402
import run as corpus_run  # noqa: E402

PROGRAM = '''
import argparse
import torch
import torch.nn as nn
import torchvision  # a data-loading import the cases leave out

args = argparse.ArgumentParser().parse_args([])
STEPS = 100


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)


if __name__ == "__main__":
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.ones(4, 3), torch.zeros(4, 1)
    for step in range(STEPS):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    done = True
'''


@pytest.fixture()
def snapshot(tmp_path):
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    repo = tmp_path / "mirrors" / "someone+prog" / "repo"
    work = tmp_path / "work"
    work.mkdir()
    (work / "prog.py").write_text(PROGRAM)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    subprocess.run(["git", "--git-dir", str(repo), "--work-tree", str(work), "add", "prog.py"], check=True, env=env)
    subprocess.run(["git", "--git-dir", str(repo), "--work-tree", str(work), "commit", "-qm", "p"], check=True, env=env)
    return tmp_path / "mirrors"


def test_unpack_reads_the_snapshot_at_head(snapshot, tmp_path):
    git_dir = corpus.mirror_git_dir(str(snapshot), "someone/prog")
    assert len(corpus.snapshot_commit(git_dir)) == 40
    corpus.unpack(git_dir, ["prog.py"], str(tmp_path / "src"))
    assert (tmp_path / "src" / "prog.py").read_text() == PROGRAM
    with pytest.raises(FileNotFoundError, match="no snapshot of someone/other"):
        corpus.mirror_git_dir(str(snapshot), "someone/other")


@pytest.fixture()
def npgrad_as_torch(monkeypatch):
    """``import torch`` / ``import torch.nn`` give npgrad inside the test only (not the process-wide alias,
    which would hand npgrad to every later test that imports the real PyTorch as its oracle)."""
    monkeypatch.setitem(sys.modules, "torch", npgrad)
    monkeypatch.setitem(sys.modules, "torch.nn", npgrad.nn)
    monkeypatch.setattr(sys, "argv", list(sys.argv))


def test_definitions_run_without_the_script_body(tmp_path, npgrad_as_torch):
    (tmp_path / "prog.py").write_text(PROGRAM)
    m = corpus.definitions(str(tmp_path), "prog.py", drop_imports=("torchvision",), keep_assignments=("STEPS",))
    assert m.STEPS == 100 and not hasattr(m, "args") and not hasattr(m, "torchvision")
    assert isinstance(m.Net(), m.nn.Module)


def test_script_mode_cuts_the_training_loop_and_reads_every_backward(tmp_path, npgrad_as_torch):
    (tmp_path / "prog.py").write_text(PROGRAM.replace("import torchvision  #", "#"))
    shared = []
    losses = corpus.run_script(npgrad, str(tmp_path), "prog.py", 3, shared.append)
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2]   # three SGD steps, not a hundred
    assert len(shared) == 1 and isinstance(shared[0], npgrad.nn.Module)   # the model, once, when it appeared
    # after_loop=False stops at the loop: the statement after it does not run
    assert len(corpus.run_script(npgrad, str(tmp_path), "prog.py", 2, lambda m: None, after_loop=False)) == 2


def test_comparison_tolerances():
    assert corpus_run._close(1.0, 1.0 + 5e-5, corpus_run.STEP0_RTOL)
    assert not corpus_run._close(1.0, 1.0 + 5e-4, corpus_run.STEP0_RTOL)
    assert corpus_run._close(2.0, 2.0 + 1e-3, corpus_run.LATER_RTOL)
    assert not corpus_run._close(2.0, 2.01, corpus_run.LATER_RTOL)


def test_every_case_declares_its_source_and_files():
    import cases  # noqa: F401
    assert len(corpus.CASES) >= 60
    for c in corpus.CASES.values():
        assert "/" in c.repo and c.files, c.name
        assert (c.build is None) == (c.script is not None), c.name
