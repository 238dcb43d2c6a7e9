"""Datasets and data loading with torch.utils.data's API."""
