"""torch.nn.utils.stateless.functional_call: call a module with some parameters and buffers replaced.

The given tensors stand in for the module's own for the duration of the call (in ``_parameters`` /
``_buffers``, so they may be any Tensor, e.g. one computed from other parameters, and gradients flow to them);
the originals are put back afterwards, also when the call raises.
"""
import contextlib
import warnings

__all__ = ["functional_call"]


def _tied(module, given):
    """With tie_weights, a value given for one name of a tensor shared under several names covers them all."""
    names = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names.setdefault(id(t), set()).add(name)
    groups = {n: g for g in names.values() if len(g) > 1 for n in g}
    out = dict(given)
    for name in [n for n in given if n in groups]:
        group = groups[name]
        values = {id(given[n]) for n in group if n in given}
        if len(group & set(given)) > 1 and len(values) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                             "Consider using tie_weights=False")
        for other in group:
            out[other] = given[name]
    return out


def _swap(module, name, value):
    """Put ``value`` at the dotted ``name``; return what was there (``_MISSING`` when nothing was)."""
    path, _, attr = name.rpartition(".")
    owner = module.get_submodule(path) if path else module
    for store in (owner._parameters, owner._buffers):
        if attr in store:
            old = store[attr]
            if value is _MISSING:
                del store[attr]
            else:
                store[attr] = value
            return old
    old = owner.__dict__.get(attr, _MISSING)
    if value is _MISSING:
        owner.__dict__.pop(attr, None)
    else:
        owner.__dict__[attr] = value
    return old


class _Missing:
    pass


_MISSING = _Missing()


@contextlib.contextmanager
def _reparametrized(module, tensors, tie_weights, strict):
    if tie_weights:
        tensors = _tied(module, tensors)
    if strict:
        known = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        unexpected = sorted(set(tensors) - known)
        missing = sorted(known - set(tensors))
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                               "\n\t".join(msgs)))
    saved = []
    try:
        for name, value in tensors.items():
            saved.append((name, _swap(module, name, value)))
        yield
    finally:
        for name, old in reversed(saved):
            _swap(module, name, old)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the named parameters / buffers replaced by the given tensors."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)
