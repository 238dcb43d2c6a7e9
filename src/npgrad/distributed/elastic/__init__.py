"""``torch.distributed.elastic``: the parts a training script started by torchrun uses itself
(``multiprocessing.errors.record``). npgrad's launcher is MPI's, which has no elastic agent."""
