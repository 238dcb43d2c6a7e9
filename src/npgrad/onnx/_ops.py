"""Each recorded step's ONNX form: the mapping table (step name -> emitter), filled by the modules below,
one per kind of operator (``_table`` holds the table itself and the helpers emitters share)."""
from . import _ops_intercepted, _ops_math, _ops_nn, _ops_shape  # noqa: F401 (each fills TABLE)
from ._table import TABLE  # noqa: F401
