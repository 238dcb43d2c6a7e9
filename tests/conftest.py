import os
import sys

# Test modules import shared helpers by bare name (`from oracle import ...`, `from _parity import ...`).
# With --import-mode=importlib pytest leaves sys.path alone, so put tests/ and its folders on it here.
_here = os.path.dirname(os.path.abspath(__file__))
for _d in [_here] + sorted(os.path.join(_here, d) for d in os.listdir(_here)
                           if os.path.isdir(os.path.join(_here, d)) and not d.startswith(("_", "."))):
    if _d not in sys.path:
        sys.path.insert(0, _d)
