"""The one error every unreadable checkpoint raises, whatever is wrong with it."""


class CheckpointError(RuntimeError):
    """A file that ``npgrad.load`` refuses: not a checkpoint, truncated, corrupted, over a limit, or unsafe."""


CheckpointError.__module__ = "npgrad.serialization"


def fail(name, why, who="npgrad.load"):
    raise CheckpointError(f"{who}: {name} {why}")
