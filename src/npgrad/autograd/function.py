"""Function: the one abstraction behind every differentiable operation.

A Function subclass defines ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` as static
methods and is called through ``apply``. The ``ctx`` object is the graph node itself: an instance of
the subclass that remembers its inputs' nodes (``next_functions``), what ``forward`` saved, and
``needs_input_grad``. A node exists only when grad mode is on and some input requires grad;
otherwise ``forward`` runs against a throw-away context and nothing is recorded.

There are two flavours, sharing everything but the types ``forward`` sees:

* ``Function`` (the user API, as ``torch.autograd.Function``): ``forward`` receives the Tensors
  themselves and runs under ``no_grad``; ``backward`` receives and returns Tensors.
* ``Op`` (how npgrad's own operators are written): ``forward`` receives the NumPy arrays inside the
  Tensors and returns arrays, which keeps the per-op path short. ``backward`` receives NumPy arrays
  during a plain backward pass and Tensors under ``create_graph=True``; its formulas use only Python
  operators and the helpers in ``npgrad.ops._poly``, which work on both, so one formula serves first
  and higher-order gradients.

This module is the API (the class, its ctx methods, saved-value access, ``once_differentiable``);
``record.py`` runs ``apply``: forward, then building the node.
"""
import itertools
import re

import numpy as np

from .grad_mode import state as _grad_state

__all__ = ["Function", "Op", "FunctionCtx", "once_differentiable"]

Tensor = None  # bound by _protocol.register_tensor_type (npgrad.tensor registers the class at import)

_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")


# Creation numbers of nodes (a C-level counter: cheap, and safe across threads).
_next_seq = itertools.count().__next__

# Bumped by every in-place write (ops.inplace.bump_version). A node remembers the epoch it was created
# in; while it is unchanged no saved tensor can have been modified, so the per-tensor check is skipped.
INPLACE_EPOCH = [0]


def bump_version(t):
    """Record an in-place write to ``t``: its version goes up, and so does the epoch."""
    INPLACE_EPOCH[0] += 1
    vc = t._vc
    if vc is None:
        t._vc = [1]  # saved-tensor checks treat a missing counter as version 0
    else:
        vc[0] += 1


class FreedError(RuntimeError, AttributeError):
    """Reading a node's saved values after backward released them. An AttributeError too, so
    ``getattr(node, name, default)`` still returns the default."""


class _OutputRef:
    """Marks a saved value that is one of the node's own outputs.

    Keeping the output Tensor itself on its own node would make a reference cycle; the node keeps the
    array and rebuilds an equivalent Tensor (same data, same grad_fn) when a Tensor is needed.
    """

    __slots__ = ("data", "index", "vc", "version")

    def __init__(self, data, index, vc, version):
        self.data, self.index, self.vc, self.version = data, index, vc, version


class _NoCtx:
    """The context ``forward`` gets when nothing is recorded: saving and attributes are no-ops."""

    __slots__ = ()
    needs_input_grad = ()
    materialize_grads = True

    def save_for_backward(self, *values):
        pass

    def save_for_forward(self, *values):
        pass

    def mark_non_differentiable(self, *values):
        pass

    def mark_dirty(self, *values):
        pass

    def set_materialize_grads(self, value):
        pass

    def __setattr__(self, name, value):
        pass


NO_CTX = _NoCtx()


class Function:
    """Base class of graph nodes; subclass it to write a differentiable operation (see module doc)."""

    # Only what every node sets lives in slots; the rest are class defaults that a node overrides in
    # its __dict__ when it needs to (hooks, saved values ...), which keeps node creation cheap.
    # _saved: what forward passed to save_for_backward; _saved_refs: the same as references that survive
    # forward (see _fix_saved); _saved_versions: ((tensor or _OutputRef, version at save time, producing
    # node, output index), ...) for the in-place check (an _OutputRef's producer is this node, left as
    # None to avoid a reference cycle); _epoch: INPLACE_EPOCH when they were recorded. Every node sets
    # these slots when it is made (see _new_node). _seq: the node's creation number; a node's inputs
    # are always made before it, so the engine runs nodes in decreasing _seq (see engine.py).
    __slots__ = ("_fns", "_idxs", "needs_input_grad", "_in_meta", "_saved", "_saved_refs", "_saved_versions",
                 "_epoch", "_seq", "__weakref__", "__dict__")

    _array_forward = False  # True for Op: forward sees NumPy arrays
    node_name = None  # PyTorch's name for this node class, when not <Class>Backward0 (see ops/_registry.py)
    _released = False
    _pre_hooks = None
    _post_hooks = None
    _trace = None
    _non_diff = ()
    _materialize = True
    _n_out = 1
    # True where the engine's inline loop may run this node: a built-in Op with one output and no hooks
    # (Op sets it; multi-output nodes and hook registration clear it per node).
    _plain = False
    _dirty = ()
    # _complex: the node has a complex output (set per node by record.py). _complex_native: the class's
    # backward already follows PyTorch's complex convention (grad_in = grad_out * conj(df/dz) for a
    # holomorphic f) instead of the real formula g * f'(z) the engine conjugates around.
    _complex = False
    _complex_native = False

    # -- the API a subclass writes -------------------------------------------------------------
    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        vjp = type(ctx).vjp
        if vjp is not Function.vjp:  # PyTorch accepts `vjp` as the name of backward
            return vjp(ctx, *grad_outputs)
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    # vmap (torch.func): True runs forward on the batched tensors, each operator through its batching rule
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """Override to batch this Function under vmap: ``info.batch_size``/``info.randomness``, one in_dim per
        argument (None where it is not batched); return ``(output, out_dims)``."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Newer style: ``forward(*args)`` without ctx, then ``setup_context(ctx, inputs, output)`` saves."""
        raise NotImplementedError("setup_context is not implemented.")

    # -- the ctx API used inside forward/backward ----------------------------------------------
    def save_for_backward(self, *values):
        self._saved = values

    def save_for_forward(self, *values):
        """Tensors the Function's ``jvp`` reads back as ``ctx.saved_tensors`` (forward-mode AD)."""
        self.__dict__["_saved_fw"] = values

    def mark_non_differentiable(self, *values):
        self._non_diff = values

    def mark_dirty(self, *values):
        self._dirty = values  # inputs forward modified in place (and returns): they are rebased on this node

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        if self._epoch == INPLACE_EPOCH[0] and self._array_forward and not _grad_state.enabled:
            saved = self._saved
            if saved is not None:
                return saved  # a plain backward of a built-in works on the arrays directly
        if self._released:
            raise RuntimeError(_FREED_MSG)
        if self._epoch != INPLACE_EPOCH[0] and self._saved_versions is not None:
            _check_versions(self, self._saved_versions)
        if self._array_forward and not _grad_state.enabled:
            return self._saved
        refs = self._saved_refs
        if refs is None:
            return ()
        return tuple([_as_tensor(self, r) for r in refs])

    @property
    def saved_values(self):  # the values exactly as forward saved them (arrays for an Op)
        if self._released:
            raise RuntimeError(_FREED_MSG)
        return self._saved

    # -- the node API (as torch.autograd.graph.Node) --------------------------------------------
    @property
    def next_functions(self):
        """``((node, output_index), ...)`` per Tensor input, ``(None, 0)`` where it needs no gradient.

        The node keeps one entry per forward argument in ``_fns`` (the node each input's gradient goes
        to) and ``_idxs`` (which output of that node; -1 for a non-Tensor argument), two flat tuples
        rather than a tuple of pairs: fewer objects per node for the garbage collector to walk. PyTorch
        lists Tensor inputs only, so non-Tensor arguments are left out here.
        """
        return tuple([(f, i) for f, i in zip(self._fns, self._idxs) if i >= 0])

    def name(self):
        n = type(self).node_name
        if n is not None:  # PyTorch's name, where a class declares it: a string or a function of the node
            return n if type(n) is str else n(self)
        if self._array_forward:
            return type(self).__name__ + "Backward0"
        return type(self).__name__ + "Backward"  # a user Function's node, as PyTorch names it

    def __repr__(self):
        return f"<{self.name().replace('torch::autograd::', '')} object at {hex(id(self))}>"

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node's backward; it may return new grad_inputs."""
        from .hooks import RemovableHandle
        if self._post_hooks is None:
            self._post_hooks = {}
        self._plain = False
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node's backward; it may return new grad_outputs."""
        return self._add_pre_hook(None, fn)

    def _add_pre_hook(self, index, fn):
        # index None: a node pre-hook over all outputs; an int: a tensor hook on that output.
        from .hooks import RemovableHandle
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._plain = False
        return RemovableHandle(self._pre_hooks, (index, fn))

    @property
    def metadata(self):
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    # -- recording (record.py) ----------------------------------------------------------------------
    @classmethod
    def apply(cls, *args, **kwargs):
        if cls._array_forward:
            return _apply_op(cls, args)
        return _apply_function(cls, args, kwargs)

    def _release(self):
        if self._saved is not None:
            self._saved = self._saved_refs = self._saved_versions = None
            self._released = True
        d = self.__dict__
        if not self._array_forward or not d or d.keys() <= _ENGINE_KEYS:
            return  # a user Function's ctx attributes stay, as in PyTorch (only save_for_backward frees)
        # Arrays a built-in Op keeps as ctx attributes (masks, indices, im2col windows, probabilities) are
        # saved values too, freed once backward has used them, as PyTorch frees its saved tensors: each is
        # replaced by a value that raises PyTorch's "backward a second time" error. Shapes, dims and other
        # small arguments stay, as PyTorch keeps its non-tensor saved values (a second backward through
        # mean or pad works there too).
        arrays = [k for k, v in d.items() if type(v) is np.ndarray]
        for k in arrays:
            d[k] = FREED
        if arrays:
            self._released = True


class _Freed:
    """Stands in for a released ctx array: any use raises the "backward a second time" error."""

    __slots__ = ()

    def _fail(self, *args, **kwargs):
        raise FreedError(_FREED_MSG)

    __getattr__ = __array__ = __array_ufunc__ = __getitem__ = __iter__ = __len__ = __bool__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __matmul__ = __rmatmul__ = __pow__ = __rpow__ = __neg__ = __eq__ = __ne__ = __lt__ = __gt__ = _fail
    __le__ = __ge__ = __and__ = __or__ = __invert__ = __index__ = __float__ = __int__ = _fail
    __hash__ = object.__hash__

    def __repr__(self):
        return "<freed saved value>"


FREED = _Freed()


FunctionCtx = Function

# Attributes the machinery itself keeps in a node's __dict__ (none of them an array to release).
_ENGINE_KEYS = frozenset({"_released", "_n_out", "_plain", "_trace", "_complex",
                          "_pre_hooks", "_post_hooks", "_non_diff", "_materialize", "_dirty", "_out_shapes",
                          "_metadata", "_fw_out"})


class Op(Function):
    """A Function whose forward works on NumPy arrays: the base of npgrad's built-in operators."""

    __slots__ = ()
    _array_forward = True
    _plain = True


def _new_node(cls):
    """A node with every slot set (nodes are made with object.__new__: no __init__ on the per-op path)."""
    node = object.__new__(cls)
    node._fns = node._idxs = node.needs_input_grad = node._in_meta = ()
    node._saved = node._saved_refs = node._saved_versions = None
    node._epoch = -1
    node._seq = _next_seq()
    return node


def _check_versions(node, versions):
    T = Tensor
    for ref, version, fn, idx in versions:
        vc = ref._vc if isinstance(ref, T) else ref.vc
        now = vc[0] if vc is not None else 0
        if now != version:
            _raise_modified(node, ref, now, version, fn, idx)


def _as_tensor(node, r):
    """A saved reference as a Tensor (used when backward must be differentiable, or for user code)."""
    T = Tensor
    if isinstance(r, T):
        return r
    if isinstance(r, _OutputRef):
        t = T._wrap(r.data, node, r.index)
        fw = node.__dict__.get("_fw_out")
        if fw is not None and r.index in fw:  # the output's forward-AD tangent (forward_ad._propagate)
            t.__dict__["_fw"] = fw[r.index]
        return t
    if type(r) is np.ndarray:
        return T._wrap(r)
    return r


def _raise_modified(node, value, now, then, fn, idx):
    data = value.data if isinstance(value, _OutputRef) else value._data
    if isinstance(value, _OutputRef):
        fn, idx = node, value.index
    # PyTorch names the saved variable by the node that produced it, without the "Backward0" suffix.
    what = ""
    if fn is not None:
        producer = re.sub(r"Backward\d*$", "", fn.name().replace("torch::autograd::", ""))
        what = f", which is output {idx} of {producer},"
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{_type_name(data.dtype)} {list(data.shape)}]{what} is at version {now}; expected version {then} instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _type_name(dt):
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
             "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short"}
    return "torch." + names.get(dt.name, str(dt)) + "Tensor"


_ONCE_MSG = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Op):
    """Stands after a once_differentiable backward's results under create_graph: differentiating them
    again raises, instead of silently giving a wrong (zero) higher-order gradient."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, *xs):
        return xs

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(_ONCE_MSG)


def once_differentiable(fn):
    """Decorator for a backward that is not itself differentiable: it runs under no_grad, and under
    ``create_graph=True`` its results raise if something tries to differentiate through them."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _grad_state.enabled = prev
        T = Tensor
        if not prev or not any(isinstance(a, T) and a._requires_grad for a in args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        pos = [k for k, o in enumerate(outs) if isinstance(o, T)]
        fakes = []
        for k in pos:
            f = outs[k].detach()
            f._requires_grad = f._data.dtype.kind in "fc"
            fakes.append(f)
        wrapped = _DelayedError.apply(*fakes) if fakes else ()
        for k, w in zip(pos, wrapped):
            outs[k] = w
        return tuple(outs) if is_tuple else outs[0]
    return wrapper


from .record import _apply_function, _apply_op  # noqa: E402 (record builds on the classes above)
