import os
import sys

# Test modules import shared helpers by bare name (`from oracle import ...`, `from _parity import ...`).
# With --import-mode=importlib pytest leaves sys.path alone, so put tests/ and its folders on it here.
_here = os.path.dirname(os.path.abspath(__file__))
# With tests/ on sys.path each folder in it is importable as a namespace package, so a folder named after a
# package the code imports optionally (tests/onnx, tests/tensorboard) stands in for that package wherever it is
# not installed: importorskip passes and the real import fails. Such names are refused here.
_SHADOWING = {"onnx", "onnxruntime", "tensorboard", "mpi4py", "torch", "safetensors", "threadpoolctl", "tqdm",
              "matplotlib", "mkdocs", "yaml", "numpy", "hypothesis", "npgrad"}
assert not _SHADOWING & set(os.listdir(_here)), f"tests/ folders shadow packages: {_SHADOWING & set(os.listdir(_here))}"
for _d in [_here] + sorted(os.path.join(_here, d) for d in os.listdir(_here)
                           if os.path.isdir(os.path.join(_here, d)) and not d.startswith(("_", "."))):
    if _d not in sys.path:
        sys.path.insert(0, _d)
