"""The one error every unreadable checkpoint raises, whatever is wrong with it."""
import pickle


class CheckpointError(RuntimeError):
    """A file that ``npgrad.load`` refuses: not a checkpoint, truncated, corrupted, over a limit, or unsafe."""


class WeightsOnlyError(CheckpointError, pickle.UnpicklingError):
    """``load(..., weights_only=True)`` met something outside what it allows: PyTorch raises an
    ``UnpicklingError`` there, so this is one too (and a ``CheckpointError``)."""


CheckpointError.__module__ = WeightsOnlyError.__module__ = "npgrad.serialization"

_RERUN = ("Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
          "arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS = ("Check the documentation of torch.load to learn more about types accepted by default with weights_only "
         "https://pytorch.org/docs/stable/generated/torch.load.html.")


def fail(name, why, who="npgrad.load"):
    raise CheckpointError(f"{who}: {name} {why}")


def weights_only_fail(name, detail, global_name=None):
    """PyTorch's weights-only refusal, its lines as PyTorch words them, then the file's name."""
    if global_name is not None:
        head = ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n"
                "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
                f"from `False` to `True`. {_RERUN}\n"
                "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
                "following error message.\n"
                f"\tWeightsUnpickler error: Unsupported global: GLOBAL {global_name} was not an allowed global by "
                f"default. Please use `torch.serialization.add_safe_globals([{global_name}])` or the "
                f"`torch.serialization.safe_globals([{global_name}])` context manager to allowlist this global if "
                "you trust this class/function.")
    else:
        head = ("Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` "
                f"argument in `torch.load` from `False` to `True`. {_RERUN}\nWeightsUnpickler error: \n\n{detail}")
    raise WeightsOnlyError(f"{head}\n\n{_DOCS}\n(npgrad.load: {name}; nothing from the file was executed)")
