"""Optimizers and learning-rate schedulers with torch.optim's API."""
