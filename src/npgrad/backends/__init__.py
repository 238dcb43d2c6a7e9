"""``torch.backends``: the flags PyTorch scripts set for their accelerator backends. npgrad has none of
those backends, so each reports it is not available and its settings are kept but change nothing
(as in a PyTorch build without them); ``backends.cpu`` reports the CPU's vector extension, and ``backends.kernels``
is npgrad's own switch for its compiled kernels (the ``[kernels]`` extra)."""
from . import cpu, cuda, cudnn, kernels, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
