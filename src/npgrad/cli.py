"""The ``npgrad`` command line: ``npgrad train mnist`` trains a classifier end to end, and ``npgrad run
script.py`` runs an unmodified PyTorch program on npgrad.

    npgrad train mnist                      # MLP 784-256-128-10 on MNIST, 5 epochs
    npgrad run train.py --epochs 3          # a PyTorch script, `import torch` giving npgrad
    npgrad run -m mypkg.train --epochs 3    # a module, as python -m runs it
    npgrad train mnist --epochs 1 --out runs/quick
    python -m npgrad train mnist            # the same, without the console script
    mpiexec -n 4 npgrad train mnist         # data-parallel on 4 processes (DistributedDataParallel over MPI)
    npgrad distributed-run --nproc 4 train.py   # a PyTorch DDP script on 4 processes

MNIST is looked for in ``--data-dir``, then ``$NPGRAD_DATA``, then ``~/.cache/npgrad`` (each directly or
in an ``mnist/`` subfolder). Nothing is downloaded unless ``--download`` is given: without the files the
command says so and trains on the 8x8 digits that ship inside npgrad instead (but a failed ``--download``
stops the run, saying which URL failed and why). Every bad argument is an argparse error (exit code 2). The run writes
``model.npgrad`` (the state_dict, for ``model.load_state_dict(npgrad.load(path))``), ``metrics.json``
and ``curves.png`` (loss and accuracy) to ``--out``, and after every epoch ``checkpoint.npgrad``, which
``--resume`` continues from (on any number of processes; under mpiexec only rank 0 writes files) on the
schedule its own command gives; the first Ctrl-C stops between two steps, writes the checkpoint and prints
the command that continues the run. tqdm and matplotlib are used when installed
(``pip install npgrad[examples]``); without tqdm a plain progress line takes its place, and without
matplotlib the curves are written as numbers to ``curves.csv`` instead of ``curves.png``.
"""
import argparse
import importlib.util
import json
import math
import os
import sys
import time

from ._optional import install_hint

__all__ = ["main"]

HIDDEN = (256, 128)


def _progress_bar(kind, total, desc):
    from .utils._progress import progress_bar
    try:
        return progress_bar(total, desc, kind)
    except ImportError:  # only --progress tqdm insists on tqdm
        raise SystemExit(f"npgrad: --progress tqdm needs tqdm ({install_hint('tqdm')})") from None


# -- data ----------------------------------------------------------------------------------------------------
class DownloadFailed(Exception):
    """``--download`` was given and MNIST could not be fetched; the message says what failed and where."""


def _load_data(args, say):
    """Flattened, standardised float32 arrays for training and testing, and a description of them."""
    import numpy as np

    from . import datasets

    source = args.dataset
    if source == "mnist":
        try:
            train = datasets.MNIST(args.data_dir, train=True, download=args.download)
            test = datasets.MNIST(args.data_dir, train=False, download=args.download)
        except datasets.DatasetNotFoundError as e:
            if args.download:  # asked for: a failed download is the run's failure, not a reason to switch data
                raise DownloadFailed("--download could not fetch MNIST, so nothing was trained (without --download "
                                     f"the embedded 8x8 digits stand in).\n{e}") from None
            dirs = datasets.download.candidate_dirs(args.data_dir, datasets.MNIST.subdirs)
            say("MNIST was not found, so this run uses the 8x8 handwritten digits embedded in npgrad instead "
                "(1438 training / 359 test images).")
            say("  looked in: " + ", ".join(dirs))
            say("  to train on MNIST: put its four *-ubyte.gz files in one of those folders (or pass "
                "--data-dir DIR, or set NPGRAD_DATA=DIR), or add --download to fetch them (about 11 MB).")
            source = "digits"
    if source == "digits":
        train, test = datasets.Digits(train=True), datasets.Digits(train=False)
        name, scale = "the embedded 8x8 digits", 16.0
    else:
        name, scale = "MNIST", 255.0

    def flat(ds):
        x = ds.data.numpy().reshape(len(ds), -1).astype(np.float32) / np.float32(scale)
        return x, ds.targets.numpy().astype(np.int64)

    x_train, y_train = flat(train)
    x_test, y_test = flat(test)
    # One mean and standard deviation for all pixels (MNIST's are the familiar 0.1307 and 0.3081).
    mean, std = float(x_train.mean()), float(x_train.std())
    x_train = (x_train - np.float32(mean)) / np.float32(std)
    x_test = (x_test - np.float32(mean)) / np.float32(std)
    return {"name": name, "source": source, "x_train": x_train, "y_train": y_train, "x_test": x_test,
            "y_test": y_test, "mean": mean, "std": std}


# -- training ------------------------------------------------------------------------------------------------
def _mlp(n_in, n_classes):
    from . import nn
    sizes = (n_in,) + HIDDEN
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], n_classes))


def _evaluate(model, x, y, batch=2000):
    import npgrad
    import npgrad.nn.functional as F
    model.eval()
    loss_sum, correct = 0.0, 0
    with npgrad.no_grad():
        for i in range(0, len(x), batch):
            xb, yb = npgrad.from_numpy(x[i:i + batch]), npgrad.from_numpy(y[i:i + batch])
            logits = model(xb)
            loss_sum += F.cross_entropy(logits, yb, reduction="sum").item()
            correct += (logits.argmax(1) == yb).sum().item()
    model.train()
    return loss_sum / len(x), correct


class UsageError(Exception):
    """A bad argument found after parsing: ``main`` reports it as argparse does (usage, one line, exit 2)."""

    def __init__(self, option, message):
        super().__init__(f"argument {option}: {message}")


_CHECKPOINT_KEYS = {"model", "optimizer", "scheduler", "epoch", "step", "history"}


def _read_checkpoint(path):
    """The dict a checkpoint.npgrad holds, or a UsageError saying why ``path`` is not one."""
    import npgrad
    from .tensor import Tensor
    if os.path.isdir(path):
        hint = os.path.join(path, "checkpoint.npgrad")
        raise UsageError("--resume", f"{path} is a folder, not a checkpoint file" +
                         (f" (did you mean {hint}?)" if os.path.isfile(hint) else ""))
    if not os.path.isfile(path):
        raise UsageError("--resume", f"no such file: {path}")
    try:
        state = npgrad.load(path)
    except Exception as e:  # noqa: BLE001 - whatever is wrong with the file, it is said in one line
        raise UsageError("--resume", f"cannot read {path}: {e}") from None
    if isinstance(state, dict) and _CHECKPOINT_KEYS <= state.keys():
        return state
    if isinstance(state, dict) and state and all(isinstance(v, Tensor) for v in state.values()):
        raise UsageError("--resume", f"{path} holds a model's state_dict (as model.npgrad does), not a training "
                         "checkpoint: resume from the checkpoint.npgrad that the run wrote next to it")
    raise UsageError("--resume", f"{path} is not a checkpoint written by npgrad train")


def _restore(state, path, model, opt, sched, total, arch, lr):
    """Load a checkpoint into the model and optimizer, and put the scheduler on this command's schedule."""
    saved_arch = state.get("architecture")
    if saved_arch is not None and saved_arch != arch:
        raise UsageError("--resume", f"{path} holds an MLP {saved_arch}, but this run trains an MLP {arch} "
                         "(another dataset?)")
    try:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
    except (RuntimeError, KeyError, ValueError) as e:
        raise UsageError("--resume", f"{path} does not fit this model: {str(e).splitlines()[0]}") from None
    step = state["step"]
    if step >= total:
        raise UsageError("--resume", f"{path} is at step {step}, where this command's schedule ({total} steps) "
                         "already ends: ask for more with --epochs or --max-steps")
    saved = state["scheduler"]
    if saved.get("T_max") == sched.T_max and list(saved.get("base_lrs", ())) == sched.base_lrs:
        sched.load_state_dict(saved)  # the same schedule: continued exactly where it was
        return step
    # Another length (or lr): the learning rate is this command's cosine schedule at `step`, as if the run
    # had used it from the start, and it decays to zero where this command says the run ends.
    for group in opt.param_groups:
        group["initial_lr"] = lr
    sched.last_epoch = step
    # CosineAnnealingLR's closed form (PyTorch's documented formula), not a scheduler's private method
    value = sched.eta_min + (lr - sched.eta_min) * (1 + math.cos(math.pi * step / sched.T_max)) / 2
    for group in opt.param_groups:
        group["lr"] = value
    sched._last_lr = [group["lr"] for group in opt.param_groups]
    return step


def _stop_on_first_ctrl_c():
    """A flag set by the first Ctrl-C, so that training stops between two steps, saves a checkpoint at that
    step and says how to resume; a second Ctrl-C interrupts at once. Returns (flag, undo)."""
    import signal
    import threading
    flag = {"stop": False}
    if threading.current_thread() is not threading.main_thread():
        return flag, lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if previous is None:  # a handler installed outside Python: Python's own is what a second Ctrl-C should get
        previous = signal.default_int_handler

    def handler(signum, frame):
        flag["stop"] = True
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, handler)
    return flag, lambda: signal.signal(signal.SIGINT, previous)


_BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _blas_threads(args):
    """--threads, else what the environment sets, else 1: this MLP's matrix products are small, so a second
    thread gains little on an idle machine and, busy-waiting, costs ten times over on a busy one (see README);
    and one thread makes the run repeat bit for bit everywhere."""
    if getattr(args, "threads", None) is not None:
        return args.threads
    for var in _BLAS_ENV:
        if os.environ.get(var, "").strip().isdigit() and int(os.environ[var]) > 0:
            return int(os.environ[var])
    return 1


def train(args, say=print):
    """Run ``npgrad train``; returns a dict of what happened (also written to metrics.json)."""
    from . import _runtime
    saved = _runtime._state["threads"], _runtime.get_num_threads()
    threads = _blas_threads(args)
    if threads != saved[1]:
        _runtime.set_num_threads(threads)
    try:
        return _train(args, say, threads)
    finally:  # a process that calls train() (a test, a notebook) gets its own setting back
        if threads != saved[1]:
            _runtime.set_num_threads(saved[1])
        _runtime._state["threads"] = saved[0]


def _train(args, say, threads):
    import itertools

    import npgrad
    import npgrad.nn.functional as F
    from npgrad.utils.data import DataLoader, TensorDataset

    from ._launch import launcher_world_size
    rank, world = 0, launcher_world_size()
    if world > 1:  # started by mpiexec: data-parallel, one shard of every batch per process
        from . import distributed as dist
        if not dist.is_initialized():
            dist.init_process_group("mpi")
        rank, world = dist.get_rank(), dist.get_world_size()
        if rank:
            def say(msg):  # rank 0 speaks for the job
                pass
    npgrad.manual_seed(args.seed)
    state = getattr(args, "resume_state", None)
    if args.resume and state is None:
        state = _read_checkpoint(args.resume)
    data = _load_data(args, say)
    n_in, n_classes = data["x_train"].shape[1], 10
    epochs = args.epochs if args.epochs is not None else (5 if data["source"] == "mnist" else 40)
    model = _mlp(n_in, n_classes)
    n_params = sum(p.numel() for p in model.parameters())
    arch = "-".join(str(n) for n in (n_in,) + HIDDEN + (n_classes,))

    train_set = TensorDataset(npgrad.from_numpy(data["x_train"]), npgrad.from_numpy(data["y_train"]))
    net, sampler, order = model, None, None
    if world > 1:
        from .nn.parallel import DistributedDataParallel
        from .utils.data.distributed import DistributedSampler
        net = DistributedDataParallel(model)
        # --batch-size stays the global batch: each of the `world` processes takes its share of it.
        sampler = DistributedSampler(train_set, world, rank, shuffle=True, seed=args.seed)
        loader = DataLoader(train_set, batch_size=max(1, args.batch_size // world), sampler=sampler)
    else:
        order = npgrad.Generator().manual_seed(args.seed)  # the shuffles; its state rides in the checkpoint
        loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, generator=order)
    steps_per_epoch = len(loader)
    total = epochs * steps_per_epoch
    if args.max_steps is not None:
        total = min(total, args.max_steps)
        epochs = math.ceil(total / steps_per_epoch)
    opt = npgrad.optim.Adam(model.parameters(), lr=args.lr)
    # Cosine decay to zero over the whole run: the last epochs fine-tune with small steps.
    sched = npgrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, total))

    say(f"npgrad train {args.dataset}: MLP {arch} ({n_params:,} parameters) on {data['name']} "
        f"({len(data['x_train'])} train / {len(data['x_test'])} test), Adam lr {args.lr:g} with cosine decay, "
        f"batch {args.batch_size}, {epochs} epoch{'s' if epochs != 1 else ''} ({total} steps), "
        f"{threads} BLAS thread{'s' if threads != 1 else ''}" +
        (f", data-parallel on {world} processes" if world > 1 else ""))

    history = {"train_x": [], "train_loss": [], "train_acc": [], "test_x": [], "test_loss": [], "test_acc": []}
    step = 0
    if state is not None:
        # Written by one process and holding no per-rank state, a checkpoint resumes on any world size.
        step = _restore(state, args.resume, model, opt, sched, total, arch, args.lr)
        history = state["history"]
        if order is not None and state.get("shuffle_state") is not None:
            order.set_state(state["shuffle_state"])
        say(f"resumed from {args.resume} at epoch {step // steps_per_epoch}, step {step}; continuing to step "
            f"{total} on this command's schedule")
    tb = None
    if getattr(args, "tensorboard", None) and rank == 0:  # one writer, as for every other file
        from .utils.tensorboard import SummaryWriter
        tb = SummaryWriter(args.tensorboard)
    record_every = max(1, steps_per_epoch // 20)  # about 20 points per epoch on the training curves
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    checkpoint_path = os.path.join(args.out, "checkpoint.npgrad")

    def save_checkpoint(epoch_start_order):
        if rank:  # one writer; npgrad.save replaces the file atomically
            return
        # The shuffle generator as it was when the epoch `step` falls in began: a resumed run draws that
        # epoch's order again and skips the batches already done, so it goes on exactly as this one would.
        mid_epoch = step % steps_per_epoch != 0
        npgrad.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                     "epoch": step // steps_per_epoch, "step": step, "history": history,
                     "architecture": arch, "dataset": data["source"],
                     "shuffle_state": epoch_start_order if mid_epoch or order is None else order.get_state()},
                    checkpoint_path)
        args.saved_step = step

    ctrl_c, undo_ctrl_c = _stop_on_first_ctrl_c() if world == 1 else ({"stop": False}, lambda: None)
    test_loss = test_acc = test_correct = None
    try:
        for epoch in range(step // steps_per_epoch, epochs):
            t_epoch = time.time()
            if sampler is not None:
                sampler.set_epoch(epoch)
            epoch_start_order = order.get_state() if order is not None else None
            done_before = step - epoch * steps_per_epoch  # batches of this epoch a resumed run already took
            bar = _progress_bar(args.progress if rank == 0 else "off",
                                min(steps_per_epoch - done_before, total - step), f"epoch {epoch + 1}/{epochs}")
            ep_loss = ep_correct = ep_seen = 0
            win_loss = win_correct = win_seen = 0
            for xb, yb in itertools.islice(loader, done_before, None):
                if step >= total or ctrl_c["stop"]:
                    break
                logits = net(xb)
                loss = F.cross_entropy(logits, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                step += 1

                n = yb.shape[0]
                batch_loss = loss.item() * n
                batch_correct = (logits.argmax(1) == yb).sum().item()
                ep_loss += batch_loss
                ep_correct += batch_correct
                ep_seen += n
                win_loss += batch_loss
                win_correct += batch_correct
                win_seen += n
                if tb is not None:  # per step: this batch's loss and accuracy
                    tb.add_scalar("train/loss", batch_loss / n, step)
                    tb.add_scalar("train/accuracy", 100.0 * batch_correct / n, step)
                if step % record_every == 0 or step == total:
                    history["train_x"].append(step / steps_per_epoch)
                    history["train_loss"].append(win_loss / win_seen)
                    history["train_acc"].append(100.0 * win_correct / win_seen)
                    win_loss = win_correct = win_seen = 0
                bar.set_postfix_str(f"loss {ep_loss / ep_seen:.4f}  acc {100.0 * ep_correct / ep_seen:.2f}%",
                                    refresh=False)
                bar.update(1)
            bar.close()
            if ctrl_c["stop"]:
                save_checkpoint(epoch_start_order)
                raise KeyboardInterrupt
            if world > 1:  # every process trained on its shard and tests one: the job's totals
                ep_loss, ep_correct, ep_seen = _sum_over_ranks(ep_loss, ep_correct, ep_seen)
                test_loss, test_correct = _evaluate(model, data["x_test"][rank::world], data["y_test"][rank::world])
                test_loss, test_correct = _sum_over_ranks(test_loss * len(data["x_test"][rank::world]), test_correct)
                test_loss, test_correct = test_loss / len(data["x_test"]), int(test_correct)
            else:
                test_loss, test_correct = _evaluate(model, data["x_test"], data["y_test"])
            test_acc = 100.0 * test_correct / len(data["x_test"])
            history["test_x"].append(step / steps_per_epoch)
            history["test_loss"].append(test_loss)
            history["test_acc"].append(test_acc)
            if tb is not None:  # per epoch, at the step it ended on
                tb.add_scalar("epoch/train_loss", ep_loss / max(ep_seen, 1), step)
                tb.add_scalar("epoch/train_accuracy", 100.0 * ep_correct / max(ep_seen, 1), step)
                tb.add_scalar("epoch/test_loss", test_loss, step)
                tb.add_scalar("epoch/test_accuracy", test_acc, step)
            if epochs <= 10 or (epoch + 1) % math.ceil(epochs / 10) == 0 or epoch + 1 == epochs:
                say(f"epoch {epoch + 1}/{epochs}  train loss {ep_loss / max(ep_seen, 1):.4f}  "
                    f"acc {100.0 * ep_correct / max(ep_seen, 1):.2f}%  |  test loss {test_loss:.4f}  "
                    f"acc {test_acc:.2f}%  ({time.time() - t_epoch:.1f} s)")
            save_checkpoint(epoch_start_order)
    finally:
        undo_ctrl_c()
    seconds = time.time() - t0
    if tb is not None:
        tb.close()
        say(f"wrote TensorBoard logs to {args.tensorboard} (tensorboard --logdir {args.tensorboard})")
    if rank:
        return None

    say(f"test accuracy: {test_acc:.2f}% ({test_correct}/{len(data['x_test'])}) after {step} steps "
        f"in {seconds:.1f} s")
    model_path = os.path.join(args.out, "model.npgrad")
    npgrad.save(model.state_dict(), model_path)
    say(f"saved the model's state_dict to {model_path}")
    if getattr(args, "onnx", None):
        _export_onnx(model, n_in, args.onnx, say)
    result = {"dataset": data["source"], "architecture": arch, "parameters": n_params, "epochs": epochs,
              "blas_threads": threads,
              "steps": step, "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed,
              "normalize": {"mean": data["mean"], "std": data["std"]}, "seconds": seconds,
              "test_accuracy": test_acc, "test_loss": test_loss, "history": history, "model": model_path}
    if not args.no_plot:
        from .utils.plot import save_curves
        written = save_curves(os.path.join(args.out, "curves.png"), [
            {"title": "loss", "xlabel": "epoch", "series": [
                {"label": "train", "x": history["train_x"], "y": history["train_loss"]},
                {"label": "test", "x": history["test_x"], "y": history["test_loss"], "marker": True}]},
            {"title": "accuracy (%)", "xlabel": "epoch", "series": [
                {"label": "train", "x": history["train_x"], "y": history["train_acc"]},
                {"label": "test", "x": history["test_x"], "y": history["test_acc"], "marker": True}]},
        ], backend=args.plot_backend, title=f"npgrad train {args.dataset}: MLP {arch} on {data['name']}, test "
                                             f"accuracy {test_acc:.2f}% after {step} steps")
        if written.endswith(".png"):
            say(f"saved loss/accuracy curves to {written}")
        else:
            say(f"saved loss/accuracy curves as numbers to {written}" +
                (" (matplotlib is not installed: `pip install matplotlib` and run again for curves.png, "
                 "or plot the CSV with any spreadsheet or plotting tool)" if args.plot_backend == "auto" else ""))
        result["curves"] = written
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result


def _sum_over_ranks(*values):
    import npgrad
    from . import distributed as dist
    t = npgrad.tensor([float(v) for v in values], dtype=npgrad.float64)
    dist.all_reduce(t)
    return t.tolist()


def _export_onnx(model, n_in, path, say):
    """The trained model as an ONNX file: input "input" (batch, n_in) of normalized pixels, output "logits";
    the batch size is free."""
    import npgrad
    model.eval()
    npgrad.onnx.export(model, (npgrad.zeros(1, n_in),), path, input_names=["input"], output_names=["logits"],
                       dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    say(f"exported the model to ONNX: {path}")


# -- command line --------------------------------------------------------------------------------------------
def _positive_int(s):
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s}")
    return v


def _positive_float(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {s!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {s}")
    return v


def _check_train_args(args):
    """What argparse's types cannot see: the folders and the checkpoint. Raises UsageError."""
    if args.data_dir is not None:
        d = os.path.expanduser(args.data_dir)
        if os.path.exists(d) and not os.path.isdir(d):
            raise UsageError("--data-dir", f"{args.data_dir} is a file, not a folder")
        if not os.path.isdir(d) and not args.download:
            raise UsageError("--data-dir", f"no such folder: {args.data_dir} (add --download to fetch MNIST into it)")
    if args.resume:
        args.resume_state = _read_checkpoint(args.resume)
    # Folders are made now, so that one that cannot be written is said before training, not after it.
    folders = [("--out", args.out)]
    if getattr(args, "tensorboard", None):
        folders.append(("--tensorboard", args.tensorboard))
    if getattr(args, "onnx", None):
        folders.append(("--onnx", os.path.dirname(os.path.abspath(args.onnx))))
    for option, folder in folders:
        try:
            os.makedirs(folder, exist_ok=True)
            import tempfile
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as e:
            raise UsageError(option, f"cannot write to {folder}: {e.strerror or e}") from None


def _resume_command(argv, checkpoint):
    """The command line that continues this run from ``checkpoint``: the same arguments, --resume replaced."""
    import shlex
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--resume":
            skip = True
        elif not a.startswith("--resume="):
            kept.append(a)
    return shlex.join(["npgrad", *kept, "--resume", checkpoint])


def _parser():
    from . import __version__
    p = argparse.ArgumentParser(prog="npgrad", description="npgrad: PyTorch's API on NumPy alone.")
    p.add_argument("--version", action="version", version=f"npgrad {__version__}")
    sub = p.add_subparsers(dest="command", metavar="command")
    r = sub.add_parser("run", help="run an unmodified PyTorch script with `torch` resolving to npgrad",
                       usage="npgrad run [-h] [torchrun options] (script | -m module) [args ...]",
                       description="Run SCRIPT as `python SCRIPT ARGS...` would (or MODULE as `python -m MODULE "
                                   "ARGS...`), with `import torch` and every `import torch.<sub>` giving npgrad's "
                                   "modules (PyTorch itself is never loaded). Everything after the script or "
                                   "module is its own. With torchrun's options before it (--nproc-per-node N, "
                                   "--nnodes, --hostfile, ...; `python -m npgrad.distributed.run --help` lists "
                                   "them) it starts the processes of a distributed job as torchrun does, on MPI.")
    r.add_argument("-m", dest="module", metavar="module", help="run a library module as a script, as python -m does")
    r.add_argument("script", nargs="?", help="the PyTorch program to run")
    r.add_argument("args", nargs=argparse.REMAINDER, help="its own command-line arguments")
    t = sub.add_parser("train", help="train a model end to end",
                       description="Train an MLP (784-256-128-10) classifier and save it with its curves.")
    t.add_argument("dataset", choices=["mnist", "digits"],
                   help="mnist (falls back to the embedded digits when MNIST is missing) or digits")
    t.add_argument("--epochs", type=_positive_int, default=None, help="default: 5 (MNIST), 40 (digits)")
    t.add_argument("--batch-size", type=_positive_int, default=128)
    t.add_argument("--lr", type=_positive_float, default=1e-3, help="Adam's learning rate (cosine-decayed to 0)")
    t.add_argument("--data-dir", default=None, help="folder holding the MNIST files (default: $NPGRAD_DATA, "
                   "then ~/.cache/npgrad)")
    t.add_argument("--download", action="store_true", help="download MNIST (md5-checked) when it is missing")
    t.add_argument("--out", default=None, help="output folder (default: runs/<dataset>, e.g. runs/mnist)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=_positive_int, default=None,
                   help="BLAS threads for the matrix products (default: OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / "
                        "MKL_NUM_THREADS when set, else 1, which is fastest for this small model on a busy machine "
                        "and repeats bit for bit)")
    t.add_argument("--resume", default=None, metavar="CHECKPOINT",
                   help="continue from the checkpoint.npgrad an earlier run wrote (after every epoch, and where "
                        "Ctrl-C stopped it), on any number of processes. The run follows THIS command's schedule: "
                        "it stops at this command's --epochs/--max-steps, and the learning rate is this command's "
                        "cosine decay at the checkpoint's step (the same command continues exactly as if never "
                        "stopped)")
    t.add_argument("--onnx", default=None, metavar="FILE", help="also export the trained model to this ONNX file "
                   "(needs the onnx package)")
    t.add_argument("--max-steps", type=_positive_int, default=None,
                   help="stop after this many steps in all (smoke runs); the cosine decay ends there")
    t.add_argument("--no-plot", action="store_true", help="do not write curves.png (or curves.csv)")
    t.add_argument("--plot-backend", choices=["auto", "matplotlib", "csv"], default="auto",
                   help="auto: curves.png drawn by matplotlib when installed, else the numbers in curves.csv")
    t.add_argument("--progress", choices=["auto", "tqdm", "plain", "off"], default="auto",
                   help="auto: tqdm when installed, else a plain text bar")
    d = sub.add_parser("distributed-run", help="run a script on N processes (mpiexec) for data-parallel training",
                       description="Start NPROC copies of SCRIPT under `mpiexec -n NPROC python -m mpi4py`, each "
                                   "run as `npgrad run` does; torch.distributed.init_process_group() then joins "
                                   "them. One failing process aborts the job.")
    d.add_argument("--nproc", "--nproc-per-node", "--nproc_per_node", dest="nproc", type=_positive_int, default=1,
                   help="number of processes")
    d.add_argument("--hostfile", default=None, help="MPI hostfile listing the machines (see docs/distributed.md)")
    d.add_argument("--mpiexec", default=None, help="the MPI launcher (default: $NPGRAD_MPIEXEC, then mpiexec on PATH)")
    d.add_argument("script", help="the PyTorch program to run")
    d.add_argument("args", nargs=argparse.REMAINDER, help="its own command-line arguments")
    t.add_argument("--tensorboard", metavar="DIR", default=None,
                   help="also log loss/accuracy per step and per epoch to TensorBoard event files in DIR")
    sub.add_parser("info", help="print the versions, threads and optional parts (compiled kernels) in use",
                   description="What this npgrad runs on: versions, the BLAS threads, and whether the compiled "
                               "kernels (the [kernels] extra) run, and if not, why.")
    p.subcommands = {"run": r, "train": t, "distributed-run": d}
    return p


def _run_command(parser, rest):
    """``npgrad run``'s arguments read as python reads its own: options up to the script (or -m module),
    everything after it the program's."""
    run_parser = parser.subcommands["run"]
    if rest and rest[0] in ("-h", "--help"):
        run_parser.print_help()
        return 0
    if not rest:
        run_parser.error("a script to run is required (or -m module)")
    if rest[0].startswith("--"):  # torchrun's options: `npgrad run --nproc-per-node 4 train.py` starts the job
        from .distributed.run import main as torchrun
        return torchrun(rest)
    from ._launch import export_torchrun_env
    from ._torch_alias import run_module, run_path
    export_torchrun_env()  # under mpiexec: RANK, WORLD_SIZE, LOCAL_RANK as torchrun sets them
    if os.environ.pop("NPGRAD_TORCHRUN_LOCAL_RANK_ARG", None):  # started by torch.distributed.launch
        rest = rest[:1] + (rest[1:2] if rest[0] == "-m" else []) + [f"--local-rank={os.environ['LOCAL_RANK']}"] + \
            rest[(2 if rest[0] == "-m" else 1):]
    if rest[0].startswith("-m"):
        if len(rest[0]) > 2:  # -mpackage.module, as python takes it too
            module, rest = rest[0][2:], rest[1:]
        else:
            module, rest = (rest[1] if len(rest) > 1 else None), rest[2:]
        if not module:
            run_parser.error("argument -m: expected one argument")
        return run_module(module, rest)
    if rest[0].startswith("-") and rest[0] != "-":
        run_parser.error(f"unrecognized option {rest[0]!r} (the script comes first; its own options follow it)")
    return run_path(rest[0], rest[1:])


def _kernels_line(kernels):
    kernels.ready()  # (loads numba where it is installed and switched on, so a failing import is reported)
    return kernels.status()


def _info():
    import platform
    import numpy as np
    from . import __version__, get_num_threads, kernels
    return "\n".join([f"npgrad: {__version__}", f"numpy: {np.__version__}",
                      f"python: {platform.python_version()} ({platform.machine()})",
                      f"threads: {get_num_threads()}", f"kernels: {_kernels_line(kernels)}"])


def main(argv=None):
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        return _run_command(parser, argv[1:])
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "info":
        print(_info())
        return 0
    if args.command == "distributed-run":
        from ._launch import distributed_run
        return distributed_run(args.nproc, args.script, args.args, args.mpiexec, args.hostfile)
    if args.command == "train":
        if args.out is None:
            args.out = os.path.join("runs", args.dataset)
        if args.plot_backend == "matplotlib" and not args.no_plot and importlib.util.find_spec("matplotlib") is None:
            # Said before training, not after it.
            raise SystemExit(f"npgrad: --plot-backend matplotlib needs matplotlib ({install_hint('matplotlib')})")
        if args.onnx and importlib.util.find_spec("onnx") is None:
            raise SystemExit(f"npgrad: --onnx needs the onnx package ({install_hint('onnx')})")
        if args.tensorboard and importlib.util.find_spec("tensorboard") is None:
            raise SystemExit(f"npgrad: --tensorboard needs tensorboard ({install_hint('tensorboard')})")

        def say(msg):
            print(msg, flush=True)
        from .datasets import IDXError
        train_parser = parser.subcommands["train"]
        try:
            _check_train_args(args)
            train(args, say)
        except UsageError as e:
            train_parser.error(str(e))
        except (IDXError, DownloadFailed) as e:  # a damaged dataset file, a failed download: say what, no traceback
            print(f"npgrad train: {e}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            checkpoint = os.path.join(args.out, "checkpoint.npgrad")
            if getattr(args, "saved_step", None) is None:
                print("\ninterrupted before the first checkpoint", file=sys.stderr)
            else:
                print(f"\ninterrupted; {checkpoint} holds step {args.saved_step}. Continue with:\n  "
                      f"{_resume_command(argv, checkpoint)}", file=sys.stderr)
            return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
