"""``torch.distributed.elastic.multiprocessing``: ``errors.record`` for the scripts torchrun starts."""
