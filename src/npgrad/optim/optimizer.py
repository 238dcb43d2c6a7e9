"""The Optimizer base class: parameter groups, per-parameter state, state_dict, zero_grad and step hooks.

Subclasses implement ``step`` as NumPy in-place updates on each parameter's array (``p._data``). That
is exactly what ``with torch.no_grad(): p.add_(...)`` does in PyTorch: the parameter object stays the
same, every alias of its memory sees the new values, and its version counter is bumped so autograd
notices a graph that saved the old value.
"""
import copy
import functools
import itertools
from typing import Callable, Optional
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from .. import _layout, _parallel
from .. import dtypes as _dt
from .._fp_quiet import quiet
from ..autograd.grad_mode import enable_grad
from ..autograd.hooks import RemovableHandle
from ..ops.inplace import bump_version
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter that has no default: every parameter group must give it."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in (None, "builtins") else f"{module}.{name}"


def _scalar(x):
    """A hyper-parameter as a Python float. NumPy would widen float32 updates for an np.float64 scalar."""
    return float(x._data) if isinstance(x, Tensor) else float(x)


def check_lr(lr):
    """PyTorch's check of a learning rate (a number or a 1-element Tensor) in Adam, RMSprop and Adagrad: NaN and
    negative rates are refused. (SGD's own check, ``lr < 0``, lets NaN through, as PyTorch's does.)"""
    if isinstance(lr, Tensor) and lr._data.size != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_nonnegative(label, value):
    """PyTorch's ``if not 0.0 <= value`` checks of eps and weight_decay (NaN is refused too)."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {label} value: {value}")


def check_betas(betas):
    """The beta checks of the Adam family: each in [0, 1)."""
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def check_capturable(group, what="params and state_steps", xla=True, foreach_xla=False):
    """PyTorch refuses ``capturable=True`` at the first step with gradients on the CPU (graph capture needs an
    accelerator); the message lists the devices of the path taken (the foreach path's list differs)."""
    if group["capturable"] and any(p._grad is not None for p in group["params"]):
        if group.get("foreach"):
            xla = foreach_xla
        devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if xla else [])
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def check_fused_flags(group_defaults):
    """PyTorch's constructor checks of ``fused`` (after the parameters are taken, as there)."""
    if group_defaults.get("fused"):
        if group_defaults.get("differentiable"):
            raise RuntimeError("`fused` does not support `differentiable`")
        if group_defaults.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_fused_params(group, params):
    """PyTorch's check at a ``fused=True`` step of every parameter that has a gradient."""
    if group.get("fused"):
        for p in params:
            if not p.is_floating_point():
                raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported "
                                   "devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone'] but "
                                   f"{p.dtype} and {p.device.type}")


def one_call(group):
    """Whether a group's update may run as one compiled call over all its parameters (``adam_many`` and
    ``sgd_many`` in kernels/optim_updates.py, which answer None where they do not apply). Asked for by
    foreach=True or fused=True, as PyTorch's flags ask for its multi-tensor kernels; taken by default too
    (foreach=None: PyTorch picks its for-loop on the CPU), because the results are the per-parameter path's bit
    for bit and the step is faster; foreach=False keeps the per-parameter loop. The group's options are left as
    given, so ``defaults`` and ``param_groups`` report what PyTorch's do."""
    foreach = group.get("foreach")
    return bool(group.get("fused")) or foreach is None or bool(foreach)


def _step_dtype():
    # PyTorch keeps step counts in a 0-d tensor of the default float type.
    return np.float64 if _dt.get_default_dtype() is _dt.float64 else np.float32


def new_step(value=0.0):
    return Tensor._wrap(np.full((), value, _step_dtype()))


def tensor_scalars(optimizer, *keys):
    """Turn the plain numbers an older checkpoint stored under ``keys`` into 0-d step-dtype tensors."""
    for state in optimizer.state.values():
        for key in keys:
            if key in state and not isinstance(state[key], Tensor):
                state[key] = new_step(float(state[key]))


def increment_step(state):
    """Add one to ``state['step']`` and return the new count as a Python float."""
    step = state["step"]
    if not isinstance(step, Tensor):  # a checkpoint that stored a plain number
        step = state["step"] = Tensor._wrap(np.asarray(step, _step_dtype()))
    arr = step._data
    # The sum in a Python float, stored with one rounding: what ``arr += 1`` gives in the array's dtype (the
    # exact sum rounded once), at a tenth of a 0-d ufunc call's cost (this runs once per parameter and step).
    arr[()] = float(arr) + 1.0
    return float(arr)


# Parameters above WHOLE elements are updated CHUNK elements at a time: every formula makes several
# passes over its arrays, and on cache-sized pieces those passes stay in cache instead of streaming
# the whole parameter from memory each time. It also bounds the scratch memory. Those parameters are also
# split over the threads (see _parallel), each piece in its own CHUNKs; below WHOLE the hand-off cost more
# than it saved (mlp's 784x512 SGD-momentum update: the step went 6.0 -> 6.4 ms with it).
CHUNK = 1 << 18
WHOLE = 1 << 20


class Scratch:
    """Reusable temporaries for the update formulas: one flat buffer per (dtype, slot), grown on demand."""

    def __init__(self):
        self._bufs = {}

    def __call__(self, like, slot=0):
        key = (like.dtype.str, slot)
        buf = self._bufs.get(key)
        n = like.size
        if buf is None or buf.size < n:
            buf = self._bufs[key] = np.empty(n, like.dtype)
        return buf[:n].reshape(like.shape)


def run_update(kernel, param, arrays, scratch, *args):
    """Apply ``kernel(tmp, arrays, *args)`` in place and bump the parameter's version.

    ``arrays`` are same-shaped arrays (the parameter's first); ``tmp(slot)`` gives a scratch array
    shaped like the piece being updated. Large contiguous parameters go through in chunks.
    """
    _run_update(kernel, arrays, scratch, *args)
    bump_version(param)


@quiet  # an update's inf and NaN silently, as PyTorch
def _run_update(kernel, arrays, scratch, *args):
    first = arrays[0]
    if first.dtype.kind == "c":
        # As PyTorch: a complex parameter is updated as view_as_real of itself, its gradient and its state, so
        # second moments are per real and imaginary part (|g|^2 would couple them), not g * g
        arrays = [None if a is None else np.expand_dims(a, -1).view(a.real.dtype) for a in arrays]
        first = arrays[0]
    n = first.size
    if n <= WHOLE or not all(a.flags.c_contiguous for a in arrays):
        kernel(lambda slot: scratch(first, slot), arrays, *args)
    else:
        flats = [a.reshape(-1) for a in arrays]  # views: the arrays are contiguous

        def piece(lo, hi):
            # Each thread's piece has its own scratch slots; the formulas are elementwise, so the split
            # changes no bit of the result.
            for start in range(lo, hi, CHUNK):
                pieces = [f[start:min(start + CHUNK, hi)] for f in flats]
                kernel(lambda slot, like=pieces[0]: scratch(like, (lo, slot)), pieces, *args)

        _parallel.split(piece, n, CHUNK)


def _hooked_step(step):
    """Wrap a subclass's ``step``: run the step pre/post hooks and note that the optimizer has stepped."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        self._opt_called = True  # read by LR schedulers to warn about calling them first
        out = step(self, *args, **kwargs)
        for hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


_global_pre_hooks = OrderedDict()
_global_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """A hook ``hook(optimizer, args, kwargs)`` run before every optimizer's step."""
    return RemovableHandle(_global_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """A hook ``hook(optimizer, args, kwargs)`` run after every optimizer's step."""
    return RemovableHandle(_global_post_hooks, hook)


# The per-optimizer hook registries (PyTorch's attribute names), made fresh on construction and on unpickling.
_HOOK_REGISTRIES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                    "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                    "_optimizer_load_state_dict_post_hooks")

# Defaults a pickle from an older version may lack.
_LATER_DEFAULTS = {"differentiable": False}


def _chain_hooks(hooks, optimizer, value):
    """Pass ``value`` through ``hooks``: a hook that returns something other than None replaces it."""
    for hook in hooks.values():
        out = hook(optimizer, value)
        if out is not None:
            value = out
    return value


def _param_list(params):
    """A group's ``'params'`` as a list: one Tensor, or an ordered iterable (a set's order is not stable)."""
    if isinstance(params, Tensor):
        return [params]
    if isinstance(params, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                        "tensors in sets will change between runs. Please use a list instead.")
    return list(params)


def _split_names(params):
    """Separate ``(name, tensor)`` pairs from bare tensors: (tensors, names); names only for the pairs."""
    tensors = [p[1] if isinstance(p, tuple) else p for p in params]
    names = [p[0] for p in params if isinstance(p, tuple)]
    return tensors, names


def _group_repr(i, group):
    options = "".join(f"    {key}: {group[key]}\n" for key in sorted(group) if key != "params")
    return f"\nParameter Group {i}\n{options}"


def _pack_group(group, index):
    """A group as state_dict stores it: its options, then ``'params'`` as indices (last, as in PyTorch)."""
    packed = dict(group)
    del packed["params"]
    packed["params"] = [index[id(p)] for p in group["params"]]
    return packed


def _check_group_sizes(groups, saved_groups):
    mine = [len(g["params"]) for g in groups]
    theirs = [len(g["params"]) for g in saved_groups]
    if len(mine) != len(theirs):
        raise ValueError("loaded state dict has a different number of parameter groups")
    if mine != theirs:
        raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                         "optimizer's group")


class Optimizer:
    """Base class of all optimizers.

    ``params`` is an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts (parameter groups,
    each with its own options; options a group leaves out take the values in ``defaults``).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._ensure_hook_registries()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        given = list(params)
        if not given:
            raise ValueError("optimizer got an empty parameter list")
        # a flat list of tensors (or named pairs) is one group; otherwise each item is a group's dict
        for group in given if isinstance(given[0], dict) else [{"params": given}]:
            self.add_param_group(group)

    def _ensure_hook_registries(self):
        for name in _HOOK_REGISTRIES:
            self.__dict__.setdefault(name, OrderedDict())
        self._patch_step_function()

    # The hook signatures, as in PyTorch: (optimizer, args, kwargs) -> None or new (args, kwargs); and -> None.
    OptimizerPreHook = Callable[..., Optional[tuple]]
    OptimizerPostHook = Callable[..., None]

    @staticmethod
    def profile_hook_step(func):
        """Wrap a ``step`` function to run the step pre/post hooks around it (what ``Optimizer`` does to every
        subclass's ``step``; npgrad has no profiler to annotate)."""
        return _hooked_step(func)

    def _patch_step_function(self):
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked_step(cls.step)

    @property
    def _scratch(self):
        s = self.__dict__.get("_scratch_bufs")
        if s is None:
            s = self.__dict__["_scratch_bufs"] = Scratch()
        return s

    def _group_cache(self, index):
        """A dict the one-call kernels keep for the group at ``index`` (checked array addresses: see
        kernels/optim_updates.py ``_table``); like the scratch buffers, never saved or copied."""
        caches = self.__dict__.get("_group_caches")
        if caches is None:
            caches = self.__dict__["_group_caches"] = {}
        cache = caches.get(index)
        if cache is None:
            cache = caches[index] = {}
        return cache

    # -- pickling / deepcopy: the hooks and scratch buffers are not part of the optimizer's state ------
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._ensure_hook_registries()
        for key, value in _LATER_DEFAULTS.items():
            self.defaults.setdefault(key, value)

    def _setdefault_in_groups(self, **options):
        """Give every group the options a pickle from an older version lacks (for a subclass's __setstate__)."""
        missing = options.items()
        for group, (key, value) in itertools.product(self.param_groups, missing):
            group.setdefault(key, value)

    def _all_params(self):
        return chain.from_iterable(group["params"] for group in self.param_groups)

    def __repr__(self):
        groups = "".join(_group_repr(i, group) for i, group in enumerate(self.param_groups))
        return f"{type(self).__name__} ({groups})"

    # -- parameter groups ------------------------------------------------------------------------------
    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with ``'params'`` and optional per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        tensors, names = _split_names(_param_list(param_group["params"]))
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        self._check_params(tensors)
        self._fill_defaults(param_group)

        ids = [id(p) for p in tensors]
        if len(set(ids)) < len(ids):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        named = "param_names" in param_group
        if any(("param_names" in group) != named for group in self.param_groups):
            which = "with names" if named else "without names"
            raise ValueError("all optimizer param groups should be with/without names. "
                             f"cannot add param group {which} to the optimizer")
        if not {id(p) for p in self._all_params()}.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _check_params(self, tensors):
        # a differentiable optimizer may update non-leaf tensors (it is part of the graph)
        leaves_only = not self.defaults.get("differentiable", None)
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if leaves_only and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

    def _fill_defaults(self, group):
        """Options the group leaves out take the optimizer's defaults; a ``required`` one must be given."""
        for name, default in self.defaults.items():
            if name in group:
                continue
            if default is required:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group[name] = default

    # -- gradients -------------------------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Reset every parameter's gradient: to None (default), or to zeros in place."""
        # nested loops: cheaper per call than chaining the groups' lists
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if g._grad_fn is not None:
                    g.detach_()
                else:
                    g._requires_grad = False
                if g._data.flags.writeable:
                    g._data.fill(0)
                    bump_version(g)
                else:  # a broadcast view: give the parameter a fresh zero gradient instead
                    p._grad = Tensor._wrap(np.zeros(g._data.shape, g._data.dtype))

    def step(self, closure=None):
        """Update the parameters once from their ``.grad``; ``closure`` re-evaluates and returns the loss."""
        raise NotImplementedError

    def _eval_closure(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -- state_dict ------------------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}`` as in PyTorch.

        Parameters are numbered in the order they appear across the groups; the state's tensors are
        the optimizer's own (not copies), as in PyTorch.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        for p in self._all_params():
            index.setdefault(id(p), len(index))  # a parameter listed twice keeps its first number
        groups = [_pack_group(group, index) for group in self.param_groups]
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return _chain_hooks(self._optimizer_state_dict_post_hooks, self, {"state": state, "param_groups": groups})

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()``: groups are matched in order, parameters by position within groups."""
        # a shallow copy, so that a pre hook's edits never reach the caller's dict
        state_dict = _chain_hooks(self._optimizer_load_state_dict_pre_hooks, self, copy.copy(state_dict))
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        _check_group_sizes(groups, saved_groups)
        saved_ids = chain.from_iterable(g["params"] for g in saved_groups)
        owner = dict(zip(saved_ids, self._all_params()))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            param = owner.get(key)
            if param is None:  # state not tied to a parameter is kept as it is
                state[key] = value
            else:
                state[param] = _cast_state(param, value)
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # -- hooks -----------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` before each step; may return new ``(args, kwargs)``."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` after each step."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)


def _register(registry, hook, prepend):
    handle = RemovableHandle(registry, hook)
    if prepend:
        registry.move_to_end(handle.id, last=False)
    return handle


def _cast_state(param, value, key=None):
    """A copy of loaded state with tensors in the parameter's dtype (step counts keep theirs)."""
    if isinstance(value, Tensor):
        arr = value._data
        if key != "step" and param.is_floating_point() and arr.dtype.kind == "f":
            arr = arr.astype(param._data.dtype)  # astype copies, so the loaded dict is never aliased
        else:
            arr = arr.copy()
        return Tensor._wrap(arr)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


def with_grads(group, sparse_decay_error=None):
    """The ``(param, grad array)`` pairs of a group's parameters that have a gradient. A sparse gradient
    (``nn.Embedding(sparse=True)``) is made dense for an optimizer whose update that does not change (SGD,
    Adagrad: they pass ``sparse_decay_error``, PyTorch's message when weight decay meets a sparse gradient),
    and refused with PyTorch's message by the others."""
    try:
        return [(p, p._grad._data) for p in group["params"] if p._grad is not None]
    except _layout.SparseOperand:
        pass
    if sparse_decay_error is None:
        import sys
        me = sys._getframe(1).f_locals.get("self")  # the optimizer whose step asked (error path only)
        name = type(me).__name__ if isinstance(me, Optimizer) else "This optimizer"
        if name in ("Adam", "AdamW"):
            raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")
        raise RuntimeError(f"{name} does not support sparse gradients")
    if group.get("weight_decay"):
        raise RuntimeError(sparse_decay_error)
    return [(p, p._grad.to_dense()._data if p._grad.layout is not _layout.strided else p._grad._data)
            for p in group["params"] if p._grad is not None]


def zeros_like(p, fill=0):
    """A C-contiguous state tensor shaped like parameter ``p`` (so large ones can be updated in chunks)."""
    return Tensor._wrap(np.full(p._data.shape, fill, p._data.dtype))
