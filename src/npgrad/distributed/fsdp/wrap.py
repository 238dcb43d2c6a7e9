"""Auto-wrap policies: which submodules FullyShardedDataParallel turns into units of their own.

A policy is called as ``policy(module=m, recurse=..., nonwrapped_numel=n)``: with ``recurse=True`` it says
whether to look inside ``m``; with ``recurse=False`` whether to wrap ``m``, ``n`` being the number of its
parameters not already in a unit below it. Children are decided before their parents.
"""
import contextlib

from ...nn.modules.activation import MultiheadAttention
from ...nn.modules.container import ModuleDict, ModuleList


def always_wrap_policy(*args, **kwargs):
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """Wrap every module for which ``lambda_fn(module)`` is true."""
    return True if recurse else lambda_fn(module)


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Wrap every instance of the classes in ``transformer_layer_cls`` (e.g. the encoder layer class)."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """Wrap a module once it holds at least ``min_num_params`` parameters not wrapped below it (and look
    inside only such modules); never look inside ``force_leaf_modules`` (MultiheadAttention, which is
    then left to its parent's unit) nor wrap ``exclude_wrap_modules`` (ModuleList, ModuleDict)."""
    leaves = size_based_auto_wrap_policy.FORCE_LEAF_MODULES if force_leaf_modules is None else force_leaf_modules
    excluded = size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES if exclude_wrap_modules is None \
        else exclude_wrap_modules
    big = nonwrapped_numel >= min_num_params
    if recurse:
        return big and not isinstance(module, tuple(leaves))
    return big and not isinstance(module, tuple(excluded))


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {ModuleList, ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {MultiheadAttention}


class ModuleWrapPolicy:
    """Wrap every instance of the given module classes."""

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)
        self._module_classes_str = str(self._module_classes)

    def __call__(self, module, recurse, *args, **kwargs):
        return True if recurse else isinstance(module, tuple(self._module_classes))

    def __repr__(self):
        return super().__repr__() + f"({self._module_classes_str})"


def _numel_outside_units(module, is_unit, seen):
    n = 0
    for p in module._parameters.values():
        if p is not None and id(p) not in seen:
            seen.add(id(p))
            n += p.numel()
    for child in module._modules.values():
        if child is not None and not is_unit(child):
            n += _numel_outside_units(child, is_unit, seen)
    return n


def _auto_wrap(root, policy, wrap, is_unit, ignored=()):
    """Wrap ``root``'s descendants as ``policy`` says (bottom-up), replacing each by ``wrap(child)``."""
    ignored_ids = {id(m) for m in ignored}

    def visit(module):
        numel = _numel_outside_units(module, is_unit, set())
        if not policy(module=module, recurse=True, nonwrapped_numel=numel):
            return module, 0
        wrapped = 0
        for name, child in list(module._modules.items()):
            if child is None or is_unit(child) or id(child) in ignored_ids:
                continue
            new, n = visit(child)
            if new is not child:
                module._modules[name] = new
            wrapped += n
        if module is not root and policy(module=module, recurse=False, nonwrapped_numel=numel - wrapped):
            return wrap(module), numel
        return module, wrapped
    visit(root)


class _WrapConfig:
    stack = []


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Inside this context ``wrap(module)`` returns ``wrapper_cls(module, **wrapper_kwargs)``."""
    _WrapConfig.stack.append((wrapper_cls, wrapper_kwargs))
    try:
        yield
    finally:
        _WrapConfig.stack.pop()


def wrap(module, **wrap_overrides):
    """``module`` wrapped by the innermost ``enable_wrap``'s class (its keywords updated by
    ``wrap_overrides``); outside ``enable_wrap``, ``module`` itself."""
    if not _WrapConfig.stack:
        return module
    cls, kwargs = _WrapConfig.stack[-1]
    return cls(module, **{**kwargs, **wrap_overrides})


__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "ModuleWrapPolicy", "enable_wrap", "wrap"]
