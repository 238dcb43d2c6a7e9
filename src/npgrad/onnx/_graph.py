"""The ONNX graph being written: value names, nodes, initializers.

A value is *live* when it depends on a graph input; everything else the recorded steps consume is a
constant (a parameter, a buffer, a tensor the model built from constants, or the result of a step whose
inputs were all constants: that is constant folding, for free, since the recording already holds its
value) and becomes an initializer. Values are known by the identity of their NumPy array: a Tensor object
can be re-wrapped (``_alias``, views) while its array stays the one the step produced.
"""
import numpy as np

from ..tensor import Tensor


def export_error(msg):
    return RuntimeError(f"npgrad.onnx.export: {msg}")


class Graph:
    def __init__(self, onnx, opset):
        self.onnx, self.helper, self.opset = onnx, onnx.helper, opset
        self.nodes, self.inits = [], []
        self.live = {}      # id(array) -> value name
        self.by_memory = {}  # (address, size, dtype) of a live C-contiguous array -> value name
        self.consts = {}    # id(array) -> initializer name
        self.names = set()
        self.keep = []      # arrays whose ids are in the maps stay alive
        self.param_names = {}
        self.step = None
        self.counts = {}

    # -- names -----------------------------------------------------------------------------------------
    def fresh(self, base):
        n = self.counts.get(base, 0)
        self.counts[base] = n + 1
        name = base if n == 0 and base not in self.names else f"{base}_{n}"
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    def bind(self, arr, name):
        self.keep.append(arr)
        self.live[id(arr)] = name
        key = _memory(arr)
        if key is not None:
            self.by_memory[key] = name

    def is_live(self, x):
        a = _array(x)
        return a is not None and (id(a) in self.live or _memory(a) in self.by_memory)

    def _same_memory(self, a):
        """A live value that an operator's wrapper reshaped or cast with NumPy (``idx.reshape(-1)``,
        ``astype(copy=False)``) before calling it: same buffer, same dtype, same element order."""
        name = self.by_memory.get(_memory(a))
        if name is None:
            return None
        name = self.op("Reshape", name, self.ints([-1] if a.ndim == 1 else a.shape))
        self.bind(a, name)
        return name

    # -- values ----------------------------------------------------------------------------------------
    def val(self, x, dtype=None):
        """The name of ``x``: a live value's, or an initializer holding the constant (a Python number
        becomes a 0-d constant of ``dtype``)."""
        a = _array(x)
        if a is None:
            if x is None:
                return ""
            self._check_constant(x, None)
            return self.const(np.asarray(x, dtype=dtype))
        name = self.live.get(id(a)) or self._same_memory(a)
        if name is not None:
            return name
        self._check_constant(x, a)
        name = self.consts.get(id(a))
        if name is None:
            name = self.consts[id(a)] = self._initializer(self.param_names.get(id(a)) or "const", a)
            self.keep.append(a)
        return name

    def const(self, value, base="const"):
        return self._initializer(base, np.asarray(value))

    def ints(self, values):
        return self.const(np.asarray(list(values), np.int64))

    def _initializer(self, base, a):
        name = self.fresh(base)
        # (not np.ascontiguousarray: it turns a 0-d array into a 1-d one)
        self.inits.append(self.onnx.numpy_helper.from_array(a if a.flags.c_contiguous else a.copy(order="C"), name))
        return name

    def _check_constant(self, x, a):
        """A constant must be the same in the second recording (other input values, other sizes along the
        dynamic axes). One that differs was computed from the inputs by something the recording cannot see
        (NumPy behind a Tensor's back, a size read off a tensor): baking it in would give wrong results."""
        step = self.step
        if step is None or step.alt is None:
            return
        for mine, other in zip(_flat(step.args), _flat(step.alt.args)):
            if a is None and mine is x:   # a Python number
                if other != x and not (x != x and other != other):
                    check_same_constant(step.name, np.asarray(x), np.asarray(other))
                return
            if mine is x or (a is not None and _array(mine) is a):
                check_same_constant(step.name, a, _array(other))
                return


    # -- nodes -----------------------------------------------------------------------------------------
    def op(self, op_type, *inputs, n_out=1, **attrs):
        """Add a node; returns its output name (or the tuple of names when ``n_out`` > 1)."""
        outs = [self.fresh(f"{op_type}_out") for _ in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.helper.make_node(op_type, list(inputs), outs, name=self.fresh(op_type), **attrs))
        return outs[0] if n_out == 1 else tuple(outs)

    def dtype(self, np_dtype):
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))


def check_same_constant(what, a, other):
    if other is None:
        return
    if other.shape != a.shape:
        raise export_error(f"operator '{what}' uses a constant of shape {list(a.shape)} whose shape changes with the "
                           "dynamic axes (it was built from a size outside the recorded operators); only the "
                           "recorded operators can follow a dynamic axis")
    if a.dtype.kind != "O" and not np.array_equal(a, other, equal_nan=a.dtype.kind in "fc"):
        raise export_error(f"operator '{what}' uses a value that depends on the inputs but was not computed by a "
                           "recorded operator (an operator computed outside the op registry, a value read back "
                           "from a tensor, or a random one); it cannot be exported")


def _flat(args):
    for x in args:
        if isinstance(x, (tuple, list)):
            yield from _flat(x)
        else:
            yield x


def _memory(a):
    if a is None or not a.flags.c_contiguous or a.size == 0:
        return None
    return a.__array_interface__["data"][0], a.size, a.dtype.str


def _array(x):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, np.ndarray):
        return x
    return None
