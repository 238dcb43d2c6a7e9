"""The batched tensor of vmap: a physical Tensor whose dim 0 is the mapped dimension, seen as one example.

``vmap`` gives each call a level (an increasing integer). A ``BatchedTensor`` of level L holds ``_value``,
the physical tensor with L's batch dim at 0; ``_value`` is itself batched at lower levels when vmaps nest,
so outer wrappers always carry higher levels and the fully unwrapped array has its batch dims in level
order. ``shape``/``dim()``/``size()`` report the logical (per-example) shape. Operators reach a batched
tensor only through the dispatch of _dispatch.py (its methods, and the public functions swapped in while
a vmap runs); code that reads its array directly gets an error, never a silently batch-mixed result.
"""
from ..tensor import Tensor, Size

__all__ = ["BatchedTensor", "Unbatchable", "LEVELS", "suspended", "make", "level_of", "unwrap", "materialise", "unwrap_all", "rewrap"]

# the active vmap calls, outermost first: [level, batch size, randomness]
LEVELS = []


class Unbatchable(RuntimeError):
    """Code outside the dispatch read a batched tensor's data (vmap then loops over the examples)."""


class _BatchedBase(Tensor):
    """The non-operator attributes; _dispatch.py derives the class with every operator method."""

    __slots__ = ("_value", "_level")

    @property
    def _data(self):
        raise Unbatchable("vmap: an operation read the data of a batched tensor directly; it has no batching "
                          "rule and was not dispatched (call it through npgrad.<name> or a Tensor method)")

    @property
    def shape(self):
        return Size(self._value.shape[1:])

    def size(self, dim=None):
        shape = self._value.shape[1:]
        if dim is None:
            return Size(shape)
        n = len(shape)
        if not n:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return shape[dim]

    def dim(self):
        return self._value.dim() - 1

    ndimension = dim

    @property
    def ndim(self):
        return self._value.dim() - 1

    def numel(self):
        return self.shape.numel()

    nelement = numel

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def device(self):
        return self._value.device

    def is_floating_point(self):
        return self._value.is_floating_point()

    def is_complex(self):
        return self._value.is_complex()

    def is_signed(self):
        return self._value.is_signed()

    def element_size(self):
        return self._value.element_size()

    @property
    def itemsize(self):
        return self._value.itemsize

    @property
    def requires_grad(self):
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._value.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self._value.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._value.grad_fn

    @property
    def is_leaf(self):
        return self._value.is_leaf

    @property
    def grad(self):
        g = self._value.grad
        return None if g is None else make(g, self._level)

    @property
    def data(self):
        return make(self._value.data, self._level)

    def detach(self):
        return make(self._value.detach(), self._level)

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                           "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                           "operations.")

    def _data_dependent(self, *args, **kwargs):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                           "flow. We don't support that yet, please shout over at "
                           "https://github.com/pytorch/functorch/issues/257 .")

    __bool__ = __float__ = __int__ = __index__ = __complex__ = tolist = numpy = __array__ = _data_dependent

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"

    def __reduce_ex__(self, protocol):
        raise RuntimeError("vmap: a batched tensor cannot be pickled or deep-copied")

    __deepcopy__ = __reduce_ex__


BatchedTensor = _BatchedBase   # replaced by the full class (with operator methods) in _dispatch.py


class suspended:
    """Context: ``level`` inactive while its examples run one at a time (nothing is batched at it then)."""

    def __init__(self, level):
        self.level, self.entry = level, None

    def __enter__(self):
        for k, e in enumerate(LEVELS):
            if e[0] == self.level:
                self.at, self.entry = k, LEVELS.pop(k)
                break

    def __exit__(self, *exc):
        if self.entry is not None:
            LEVELS.insert(self.at, self.entry)
        return False


def make(value, level):
    """The batched tensor of ``level`` over physical ``value`` (batch dim 0)."""
    t = object.__new__(BatchedTensor)
    t._value, t._level = value, level
    return t


def level_of(t):
    return t._level if isinstance(t, _BatchedBase) else 0


def unwrap(t, level):
    """(physical tensor, batched?) of ``t`` at ``level``: batched tensors of lower levels are left whole."""
    if isinstance(t, _BatchedBase) and t._level == level:
        return t._value, True
    return t, False


def materialise(t, level, size):
    """``t`` batched at ``level``: an unbatched ``t`` is expanded to ``size`` copies along a new dim 0."""
    if isinstance(t, _BatchedBase):
        if t._level == level:
            return t
        if t._level > level:
            return make(materialise(t._value, level, size), t._level)
    return make(t.unsqueeze(0).expand(size, *t.shape), level)


def unwrap_all(t):
    """(the plain physical tensor under every level of ``t``, its levels innermost first)."""
    levels = []
    while isinstance(t, _BatchedBase):
        levels.append(t._level)
        t = t._value
    return t, levels[::-1]


def rewrap(plain, levels):
    for lv in levels:
        plain = make(plain, lv)
    return plain
