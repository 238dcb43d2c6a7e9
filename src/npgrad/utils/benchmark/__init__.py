"""torch.utils.benchmark: ``Timer`` (timeit with warm-up, thread control and replicates), the ``Measurement``
it returns, and ``Compare`` to print many measurements as a table.

PyTorch's C++ timing (``language="cpp"``), Callgrind instruction counts and the fuzzers are not here: they
need a C++ toolchain and PyTorch's own extension machinery.
"""
from .utils.common import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
