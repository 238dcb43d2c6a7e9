"""``npgrad train``'s arguments, ``--resume`` and ``--download`` as a new user meets them: every bad argument is
one argparse-style line and exit code 2, a resumed run follows the schedule its own command asks for, Ctrl-C
leaves a checkpoint and the command that continues it (exactly), and a failed download says what failed.

All runs are on the embedded 8x8 digits (12 steps per epoch at batch 128), so each takes well under a second.
"""
import importlib.util
import json
import os
import shlex
import signal

import numpy as np
import pytest

import npgrad
from npgrad import cli

SPE = 12  # steps per epoch: 1438 training digits in batches of 128
QUIET = ["--progress", "off", "--no-plot"]


@pytest.fixture(autouse=True)
def no_real_data(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("NPGRAD_DATA", str(empty))
    monkeypatch.setenv("XDG_CACHE_HOME", str(empty))
    monkeypatch.chdir(tmp_path)


def train(*argv):
    return cli.main(["train", "digits", *QUIET, *argv])


def usage_error(capsys, *argv):
    """The one error line of a refused command (after checking it exits with 2 and prints the usage)."""
    with pytest.raises(SystemExit) as info:
        train(*argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: npgrad train") and "Traceback" not in err, err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("argv, says", [
    (["--lr", "-1"], "argument --lr: must be a positive number, got -1"),
    (["--lr", "nan"], "argument --lr: must be a positive number, got nan"),
    (["--epochs", "0"], "argument --epochs: must be a positive integer, got 0"),
    (["--batch-size", "0"], "argument --batch-size: must be a positive integer, got 0"),
    (["--max-steps", "x"], "argument --max-steps: must be a positive integer, got 'x'"),
    (["--data-dir", "no/such/dir"], "argument --data-dir: no such folder: no/such/dir"),
    (["--resume", "missing.npgrad"], "argument --resume: no such file: missing.npgrad"),
])
def test_a_bad_argument_is_one_line_and_exit_code_2(argv, says, capsys):
    line = usage_error(capsys, *argv)
    assert line.startswith(f"npgrad train: error: {says}"), line
    assert not os.path.exists(os.path.join("runs", "digits", "model.npgrad"))  # refused before training


def test_unwritable_out_and_unreadable_files(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    line = usage_error(capsys, "--out", str(blocker / "sub"))
    assert line.startswith(f"npgrad train: error: argument --out: cannot write to {blocker / 'sub'}: "), line
    if importlib.util.find_spec("onnx") is not None:
        line = usage_error(capsys, "--onnx", str(blocker / "m.onnx"))
        assert line.startswith(f"npgrad train: error: argument --onnx: cannot write to {blocker}: "), line
    assert f"argument --data-dir: {blocker} is a file" in usage_error(capsys, "--data-dir", str(blocker))
    corrupt = tmp_path / "corrupt.npgrad"
    corrupt.write_bytes(b"not a checkpoint")
    assert f"argument --resume: cannot read {corrupt}: " in usage_error(capsys, "--resume", str(corrupt))


def test_resume_from_the_model_file_says_it_is_not_a_checkpoint(tmp_path, capsys):
    assert train("--max-steps", "3", "--out", "r") == 0
    line = usage_error(capsys, "--resume", "r/model.npgrad", "--out", "r")
    assert "r/model.npgrad holds a model's state_dict" in line and "not a training checkpoint" in line, line
    assert "did you mean r/checkpoint.npgrad" in usage_error(capsys, "--resume", "r", "--out", "r")


def _checkpoint(path="r/checkpoint.npgrad"):
    return npgrad.load(path)


@pytest.mark.parametrize("first, then", [
    (["--max-steps", "5"], ["--epochs", "2"]),         # a smoke run, then a real one
    (["--epochs", "1"], ["--epochs", "3"]),            # more epochs than the run was started with
    (["--epochs", "2"], ["--epochs", "3", "--max-steps", "30"]),
])
def test_resume_follows_the_new_commands_schedule(first, then, capsys):
    assert train(*first, "--out", "r") == 0
    before = _checkpoint()
    capsys.readouterr()
    assert train(*then, "--out", "r", "--resume", "r/checkpoint.npgrad") == 0
    out = capsys.readouterr().out
    epochs = int(then[then.index("--epochs") + 1])
    total = min(epochs * SPE, int(then[then.index("--max-steps") + 1]) if "--max-steps" in then else 10**9)
    after = _checkpoint()
    assert f"({total} steps)" in out and f"after {total} steps" in out, out
    assert f"at epoch {before['step'] // SPE}, step {before['step']}" in out
    assert after["step"] == total and after["scheduler"]["T_max"] == total and after["scheduler"]["last_epoch"] == total
    assert after["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.0, abs=1e-12)  # decayed to the end
    assert after["epoch"] == total // SPE


def test_resume_sets_the_lr_of_the_new_schedule_at_the_checkpoints_step(capsys, monkeypatch):
    assert train("--max-steps", "5", "--out", "r") == 0
    seen = []
    real_step = npgrad.optim.Adam.step

    def step(self, *a, **k):
        seen.append(self.param_groups[0]["lr"])
        return real_step(self, *a, **k)
    monkeypatch.setattr(npgrad.optim.Adam, "step", step)
    assert train("--epochs", "2", "--lr", "0.002", "--out", "r", "--resume", "r/checkpoint.npgrad") == 0
    T = 2 * SPE
    expected = [0.002 * (1 + np.cos(np.pi * s / T)) / 2 for s in range(5, T)]
    np.testing.assert_allclose(seen, expected, rtol=1e-9)  # never climbing back up: decreasing to the end


def test_a_checkpoint_at_the_end_of_the_schedule_is_refused(capsys):
    assert train("--epochs", "1", "--out", "r") == 0
    line = usage_error(capsys, "--epochs", "1", "--out", "r", "--resume", "r/checkpoint.npgrad")
    assert f"is at step {SPE}, where this command's schedule ({SPE} steps) already ends" in line, line


def _params(path):
    return {k: v.numpy() for k, v in npgrad.load(path).items()}


def test_ctrl_c_saves_a_checkpoint_whose_resume_command_continues_exactly(capsys, monkeypatch):
    args = ["--epochs", "2", "--out", "straight"]
    assert train(*args) == 0
    straight = _params("straight/model.npgrad")

    calls = []
    real_step = npgrad.optim.Adam.step

    def step(self, *a, **k):
        calls.append(1)
        if len(calls) == SPE + 5:  # Ctrl-C in the middle of the second epoch
            signal.raise_signal(signal.SIGINT)
        return real_step(self, *a, **k)
    monkeypatch.setattr(npgrad.optim.Adam, "step", step)
    capsys.readouterr()
    assert cli.main(["train", "digits", *QUIET, "--epochs", "2", "--out", "cut"]) == 130
    err = capsys.readouterr().err
    assert f"cut/checkpoint.npgrad holds step {SPE + 5}" in err, err
    command = err.strip().splitlines()[-1].strip()
    assert command.startswith("npgrad train digits") and command.endswith("--resume cut/checkpoint.npgrad")
    assert _checkpoint("cut/checkpoint.npgrad")["step"] == SPE + 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is Python's own again
    monkeypatch.setattr(npgrad.optim.Adam, "step", real_step)
    assert cli.main(shlex.split(command)[1:]) == 0  # the printed command, as the user would paste it
    resumed = _params("cut/model.npgrad")
    assert resumed.keys() == straight.keys()
    for k in straight:
        np.testing.assert_array_equal(resumed[k], straight[k], err_msg=k)  # bit for bit


def test_a_failed_download_says_what_failed_and_trains_nothing(tmp_path, capsys, monkeypatch):
    # A URL that fails at once, with no network: the run must stop, naming it, not train on the digits.
    monkeypatch.setattr(npgrad.datasets.MNIST, "mirrors", [(tmp_path / "no_mirror").as_uri() + "/"])
    assert cli.main(["train", "mnist", *QUIET, "--download", "--data-dir", str(tmp_path / "data")]) == 1
    captured = capsys.readouterr()
    assert "--download could not fetch MNIST" in captured.err
    assert f"{(tmp_path / 'no_mirror').as_uri()}/train-images-idx3-ubyte.gz: " in captured.err  # the URL and why
    assert "8x8" not in captured.out and "test accuracy" not in captured.out
    assert not (tmp_path / "runs" / "mnist" / "model.npgrad").exists()


def test_help_says_which_schedule_a_resumed_run_follows(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "The run follows THIS command's schedule" in text


def test_the_curves_carry_the_dataset_and_the_final_accuracy(capsys, monkeypatch):
    figure = pytest.importorskip("matplotlib.figure", reason="curves.png is drawn by matplotlib")
    titles = []
    real = figure.Figure.suptitle
    monkeypatch.setattr(figure.Figure, "suptitle", lambda self, t, **k: titles.append(t) or real(self, t, **k))
    assert cli.main(["train", "digits", "--progress", "off", "--max-steps", "3", "--out", "r"]) == 0
    metrics = json.loads(open(os.path.join("r", "metrics.json")).read())
    assert titles == [f"npgrad train digits: MLP 64-256-128-10 on the embedded 8x8 digits, test accuracy "
                      f"{metrics['test_accuracy']:.2f}% after 3 steps"]
    assert open(os.path.join("r", "curves.png"), "rb").read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("env, argv, expected", [({}, [], 1), ({}, ["--threads", "2"], 2),
                                                 ({"OMP_NUM_THREADS": "3"}, [], 3)])
def test_the_blas_threads_are_chosen_for_the_run_and_given_back(env, argv, expected, capsys, monkeypatch):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    before = npgrad.get_num_threads()
    during = []
    real_step = npgrad.optim.Adam.step

    def step(self, *a, **k):
        during.append(npgrad.get_num_threads())
        return real_step(self, *a, **k)
    monkeypatch.setattr(npgrad.optim.Adam, "step", step)
    assert train("--max-steps", "2", "--out", "r", *argv) == 0
    assert f"{expected} BLAS thread{'s' if expected > 1 else ''}" in capsys.readouterr().out
    assert json.loads(open(os.path.join("r", "metrics.json")).read())["blas_threads"] == expected
    if importlib.util.find_spec("threadpoolctl") is not None:  # (without it: recorded only)
        assert during == [expected] * 2
    assert npgrad.get_num_threads() == before  # the caller's setting is back
