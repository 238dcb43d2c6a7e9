"""The corpus: one module per source (a repository or a family of them); importing this registers all."""
from . import pytorch_examples, karpathy, cifar_zoo, tutorials, transformers, graphs_and_more  # noqa: F401
