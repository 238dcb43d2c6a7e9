"""torch.nn.utils.parametrize: make a module's parameter or buffer the output of a function of other tensors.

``register_parametrization(m, "weight", P)`` moves ``m.weight`` to ``m.parametrizations.weight.original``
(or ``original0``, ``original1``, ... when ``P.right_inverse`` returns several tensors) and gives the module a
class of its own, ``Parametrized<Class>``, whose ``weight`` property computes ``P(original)`` on every read
and calls ``right_inverse`` on every assignment. The state-dict keys are therefore PyTorch's
(``parametrizations.weight.original``), so checkpoints move between the two libraries.
"""
import collections.abc
import copy
from contextlib import contextmanager

from ...autograd import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# Nesting depth of ``cached()`` blocks and the values computed inside them, keyed by (id(module), name).
_cache_depth = [0]
_cache = {}

# The checks a new parametrization passes unless ``unsafe``: (not a tensor, other dtype, other shape), formatted
# with the tensor's name, the value's type name, and the expected (``want``) and produced (``got``) attribute.
_ON_FIRST = ("A parametrization must return a tensor. Got {kind}.",
             "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is enabled."
             "\nunparametrized dtype: {want}\nparametrized dtype: {got}",
             "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is enabled."
             "\nunparametrized shape: {want}\nparametrized shape: {got}")
_ON_CHAINED = ("A parametrization must return a tensor. Got {kind}.",
               "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag is "
               "enabled.\nmodule.{name}.dtype: {want}\nparametrization(module.{name}).dtype: {got}",
               "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is "
               "enabled.\nmodule.{name}.shape: {want}\nparametrization(module.{name}).shape: {got}")
_ON_CHAINED_INVERSE = ("parametrization.right_inverse must return a tensor. Got: {kind}",
                       "The tensor returned by parametrization.right_inverse must have the same dtype as "
                       "module.{name}, unless the `unsafe` flag is enabled.\nmodule.{name}.dtype: {want}\n"
                       "returned dtype: {got}",
                       "The tensor returned by parametrization.right_inverse must have the same shape as "
                       "module.{name}, unless the `unsafe` flag is enabled.\nmodule.{name}.shape: {want}\n"
                       "returned shape: {got}")
# An assignment only checks the kind and the dtype: of the one original, or of original<i>.
_ON_ASSIGN = ("`right_inverse` should return a tensor. Got {kind}",
              "The tensor returned by `right_inverse` has dtype {got} while `original` has dtype {want}")
_ON_ASSIGN_PART = ("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                   "Got element {i} of type {kind}.",
                   "Tensor {i} returned by `right_inverse` has dtype {got} while `original{i}` has dtype {want}")
_NOT_TENSOR_OR_SEQ = "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "


def _check_like(out, ref, messages, **fields):
    """Raise the ValueError of ``messages`` for the first way ``out`` differs from tensor ``ref``."""
    if not isinstance(out, Tensor):
        raise ValueError(messages[0].format(kind=type(out).__name__, **fields))
    for attr, msg in zip(("dtype", "shape"), messages[1:]):
        want, got = getattr(ref, attr), getattr(out, attr)
        if got != want:
            raise ValueError(msg.format(want=want, got=got, **fields))


@contextmanager
def cached():
    """Compute each parametrized tensor once inside the block and reuse it (e.g. a weight read at every step
    of a recurrent loop); the values are dropped when the outermost block exits."""
    _cache_depth[0] += 1
    try:
        yield
    finally:
        _cache_depth[0] -= 1
        if _cache_depth[0] == 0:
            _cache.clear()


def _register(module, name, t):
    (module.register_parameter if isinstance(t, Parameter) else module.register_buffer)(name, t)


def _set_storage(dest, src):
    # Tensor.set_: dest takes src's data (shape included) and stays the same object, so an optimizer
    # holding it keeps working.
    dest._data = src._data


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in registration order, and the original tensor(s).

    It is ``module.parametrizations[name]``; register_parametrization makes it, not the user.
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        before = _Spec(original.dtype, original.shape)
        with no_grad():
            stored = self._pull_back(original, lenient=True)
        single = isinstance(stored, Tensor)
        if not single and not isinstance(stored, collections.abc.Sequence):
            raise ValueError(_NOT_TENSOR_OR_SEQ + f"Got {type(stored).__name__}")
        parts = [stored] if single else list(stored)
        self.is_tensor, self.ntensors = single, len(parts)
        if single:
            if stored.dtype != original.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {stored.dtype}")
            _set_storage(original, stored)  # keeps the original object (and its shape until now: checked below)
            parts = [original]
        trainable = original.requires_grad
        for i, (name, t) in enumerate(zip(self._original_names(), parts)):
            if not single:
                if not isinstance(t, Tensor):
                    raise ValueError(_NOT_TENSOR_OR_SEQ + f"Got element {i} of the sequence with type "
                                     f"{type(t).__name__}.")
                t = Parameter(t, trainable) if isinstance(original, Parameter) else t
                t.requires_grad_(trainable)
            _register(self, name, t)
        if not unsafe:
            _check_like(self(), before, _ON_FIRST)

    def _original_names(self):
        return ("original",) if self.is_tensor else tuple(f"original{i}" for i in range(self.ntensors))

    def _pull_back(self, value, lenient):
        # The right inverses, last parametrization first. At registration one that is missing or raises
        # NotImplementedError is passed over; an assignment needs every one.
        for m in reversed(self):
            inverse = getattr(m, "right_inverse", None)
            if inverse is None:
                if lenient:
                    continue
                raise RuntimeError(f"parametrization {type(m).__name__} does not implement right_inverse.")
            try:
                value = inverse(value)
            except NotImplementedError:
                if not lenient:
                    raise
        return value

    def right_inverse(self, value):
        """Store in the original tensor(s) what the parametrizations' right inverses make of ``value``."""
        with no_grad():
            value = self._pull_back(value, lenient=False)
            if self.is_tensor:
                _check_like(value, self.original, _ON_ASSIGN)
                _set_storage(self.original, value)
                return
            for i, (t, held) in enumerate(zip(self._as_parts(value), self._originals())):
                _check_like(t, held, _ON_ASSIGN_PART, i=i)
                _set_storage(held, t)

    def _as_parts(self, value):
        # Several originals: the right inverse gives one tensor for each.
        if isinstance(value, collections.abc.Sequence):
            got = len(value)
            if got == self.ntensors:
                return value
            raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                             f"Got a sequence of length {got}.")
        raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")

    def _originals(self):
        return [getattr(self, n) for n in self._original_names()]

    def forward(self):
        first, *rest = self
        x = first(*self._originals())
        for m in rest:
            x = m(x)
        return x


class _Spec:
    """The dtype and shape a tensor had before registration (its storage has been replaced since)."""

    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


def _refuse_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _deepcopy(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    twin = self.__new__(self.__class__)
    memo[id(self)] = twin
    twin.__dict__ = copy.deepcopy(self.__dict__, memo)
    return twin


def _give_own_class(module):
    # A class per module: the properties added below must not appear on other instances of the class.
    base = type(module)
    keep_own_copy = hasattr(base, "__deepcopy__")
    extra = {} if keep_own_copy else {"__deepcopy__": _deepcopy}
    module.__class__ = type(f"Parametrized{base.__name__}", (base,), {"__getstate__": _refuse_pickle, **extra})


def _add_property(module, name):
    if hasattr(module, name):
        raise AssertionError(f"Module already has an attribute named '{name}'")

    def get(self):
        compute = self.parametrizations[name]
        if _cache_depth[0] == 0:
            return compute()
        key = (id(self), name)
        if _cache.get(key) is None:
            _cache[key] = compute()
        return _cache[key]

    def put(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(type(module), name, property(get, put))


def _chain(module, name, parametrization, unsafe):
    # A further parametrization on an already parametrized tensor: it must keep the current value's kind.
    if not unsafe:
        current = getattr(module, name)
        produced = parametrization(current)
        _check_like(produced, current, _ON_CHAINED, name=name)
        inverse = getattr(parametrization, "right_inverse", None)
        try:
            back = None if inverse is None else inverse(produced)
        except NotImplementedError:
            back = None
        if back is not None:
            _check_like(back, current, _ON_CHAINED_INVERSE, name=name)
    chain = module.parametrizations[name]
    chain.append(parametrization)
    chain.unsafe = chain.unsafe or unsafe


def _first(module, name, parametrization, unsafe):
    chain = ParametrizationList([parametrization], getattr(module, name), unsafe=unsafe)
    delattr(module, name)
    chains = _chains_of(module)
    _add_property(module, name)
    chains[name] = chain


def _chains_of(module):
    """``module.parametrizations``; the first registration makes it and gives the module its own class."""
    if is_parametrized(module):
        return module.parametrizations
    _give_own_class(module)
    chains = ModuleDict()
    module.parametrizations = chains
    return chains


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` read as ``parametrization(original)``; a second registration on the same
    name chains after the first. ``unsafe=True`` skips the shape and dtype checks."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        _chain(module, tensor_name, parametrization, unsafe)
    elif tensor_name in module._parameters or tensor_name in module._buffers:
        _first(module, tensor_name, parametrization, unsafe)
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    chains = getattr(module, "parametrizations", None)
    if isinstance(chains, ModuleDict):
        return tensor_name in chains if tensor_name is not None else len(chains) > 0
    return False


def _plain_tensor(module, name, chain, leave_parametrized):
    # What takes the parametrized tensor's place once its parametrizations are gone.
    if chain.is_tensor:
        kept = chain.original
        if leave_parametrized:
            with no_grad():
                _set_storage(kept, getattr(module, name))
        return kept
    if not leave_parametrized:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                         "in terms of a sequence of tensors.")
    value = getattr(module, name)
    return Parameter(value.detach()) if value.requires_grad else value


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations on ``tensor_name``: it becomes a plain parameter (or buffer) again, holding the
    parametrized value (``leave_parametrized=True``) or the original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chains = module.parametrizations
    restored = _plain_tensor(module, tensor_name, chains[tensor_name], leave_parametrized)
    own_class = type(module)
    delattr(own_class, tensor_name)
    del chains[tensor_name]
    _register(module, tensor_name, restored)
    if len(chains) == 0:  # the last one: back to the module's own class
        delattr(module, "parametrizations")
        module.__class__ = own_class.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before register_parametrization gave it its own."""
    cls = type(module)
    return cls.__bases__[0] if is_parametrized(module) else cls


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on ``to_module`` the parametrizations of ``from_module`` (all, or those on ``tensor_name``),
    sharing the original tensors."""
    if not is_parametrized(from_module):
        return to_module
    for name in ([tensor_name] if tensor_name is not None else list(from_module.parametrizations)):
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for p in source:
            register_parametrization(to_module, name, p)
        target = to_module.parametrizations[name]
        for slot, t in zip(source._original_names(), source._originals()):
            setattr(target, slot, t)
    return to_module
