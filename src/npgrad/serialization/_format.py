"""Names shared by the checkpoint writer and reader: the archive's layout and the dtypes a tensor may have."""
import re

from .. import dtypes as _dt

FORMAT = "npgrad.checkpoint"
VERSION = 1
STRUCTURE = "npgrad/structure.json"
DATA = "npgrad/data/{}.npy"
DATA_RE = re.compile(r"npgrad/data/(0|[1-9][0-9]{0,8})\.npy\Z")
TAG = "$"
TENSOR_DTYPES = {d.name: d for d in (_dt.float16, _dt.float32, _dt.float64, _dt.int8, _dt.int16, _dt.int32,
                                     _dt.int64, _dt.uint8, _dt.bool, _dt.complex64, _dt.complex128)}
