"""torch.func.replace_all_batch_norm_modules_: batch norm without running statistics, so a function
transform (vmap over an ensemble, per-sample grad) does not update shared buffers in place."""
from ..nn.modules.batchnorm import _BatchNorm

__all__ = ["replace_all_batch_norm_modules_"]


def replace_all_batch_norm_modules_(root):
    """In place: every batch norm module under ``root`` stops tracking running stats (they become None, so
    it normalises with the batch's statistics in train and eval mode alike). Returns ``root``."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
