"""Datasets: MNIST/Fashion-MNIST (IDX files), character-level text, and a small embedded digits set."""
