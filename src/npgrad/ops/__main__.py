"""``python -m npgrad.ops``: regenerate ops/_lazy_index.py from the operator registry."""
import os

from npgrad import ops

ops.write_lazy_index(os.path.join(os.path.dirname(os.path.abspath(ops.__file__)), "_lazy_index.py"))
