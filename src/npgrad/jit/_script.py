"""torch.jit.script, ScriptModule and ScriptFunction, over eager code.

npgrad has no TorchScript compiler: a "scripted" function or module runs the Python it was given, so it
computes what the eager program computes (values, gradients, hooks). What PyTorch's scripting adds that a
program can observe is kept: the object's types (``ScriptModule``, ``ScriptFunction``), a module that is
a *copy* sharing the original's parameters and buffers (its own training flag and plain attributes), the
``original_name`` in its repr, and the deprecation warning PyTorch 2.13 gives.
"""
import collections
import copy
import typing
import warnings
import weakref

from ..nn.modules.module import Module

__all__ = ["ScriptModule", "RecursiveScriptModule", "ScriptFunction", "script", "script_method", "freeze",
           "optimize_for_inference", "Attribute", "NO_ARCHIVE"]

NO_ARCHIVE = ("npgrad cannot write or read TorchScript archives (it runs eager code and has no TorchScript "
              "compiler). Save the weights with torch.save(model.state_dict(), path) and rebuild the model "
              "in Python, or export it with torch.onnx.export")


def _deprecated(name, instead="switch to `torch.compile` or `torch.export`"):
    # Warned from this file, as PyTorch warns from its own: hidden by Python's default filters.
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please {instead}.", DeprecationWarning)


# ``torch.jit.Attribute(value, type)``: a value with its TorchScript type; a ScriptModule keeps the value.
Attribute = collections.namedtuple("Attribute", ["value", "type"])


class ScriptModule(Module):
    """A module TorchScript would have compiled; subclassing it directly is the legacy scripting API."""

    def __setattr__(self, name, value):
        if isinstance(value, Attribute):
            value = value.value
        elif isinstance(value, Module) and not isinstance(value, ScriptModule) and "_modules" in self.__dict__:
            value = _script_module(value, RecursiveScriptModule, {})
        super().__setattr__(name, value)

    def __reduce_ex__(self, protocol):
        # PyTorch pickles no script module (its archives are the way out, which npgrad lacks)
        cls = self.__dict__.get("_original_class") or getattr(type(self), "_original_class", None)
        cls = type(self) if cls is None or cls is Module else cls
        raise RuntimeError(f"Tried to serialize object __torch__.{cls.__module__}.{cls.__qualname__} which does not "
                           "have a __getstate__ method defined!")

    def __deepcopy__(self, memo):
        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __getattr__(self, name):
        if name in ("save", "save_to_buffer", "_save_for_lite_interpreter"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}': {NO_ARCHIVE}")
        return super().__getattr__(name)


class RecursiveScriptModule(ScriptModule):
    """What ``torch.jit.script(module)`` returns. Each instance's class derives from the original module's
    class too, so its forward (and super() calls in it), methods and properties run unchanged."""

    _original_class = Module
    _constants = frozenset()

    @property
    def original_name(self):
        return self._original_class.__name__

    def extra_repr(self):
        return f"original_name={self.original_name}"

    def __setattr__(self, name, value):
        if name in self._constants:
            raise RuntimeError(f"Can't set constant '{name}' which has value:{getattr(self, name)}")
        super().__setattr__(name, value)


def _constants_of(cls):
    """The attributes TorchScript makes constants: annotated ``Final`` or listed in ``__constants__``."""
    names = set()
    for klass in cls.__mro__:
        names.update(getattr(klass, "__constants__", ()))
        for name, ann in vars(klass).get("__annotations__", {}).items():
            if ann is typing.Final or typing.get_origin(ann) is typing.Final or \
                    (isinstance(ann, str) and ann.split("[")[0].rsplit(".", 1)[-1] == "Final"):
                names.add(name)
    return frozenset(names)


_CLASSES = weakref.WeakKeyDictionary()


def _derived_class(cls, base):
    per_cls = _CLASSES.setdefault(cls, {})
    made = per_cls.get(base)
    if made is None:
        made = type(base.__name__, (base, cls), {"__module__": base.__module__, "__qualname__": base.__qualname__,
                                                 "_original_class": cls, "_constants": _constants_of(cls)})
        per_cls[base] = made
    return made


def _script_module(module, base, memo, child_base=None, warn=True):
    """A copy of ``module`` (children copied recursively, each once) that shares its tensors."""
    if id(module) in memo:
        return memo[id(module)]
    # PyTorch warns for the module scripted and for each child class it has not compiled before
    new_class = base not in _CLASSES.get(type(module), {})
    if warn is True or (warn and new_class):
        _deprecated("script")
    new = object.__new__(_derived_class(type(module), base))
    memo[id(module)] = new
    state = {k: copy.copy(v) if type(v) in (dict, set, list) or k.endswith("hooks") else v
             for k, v in module.__dict__.items()}
    child_base = child_base or base
    children = module.__dict__["_modules"]
    state["_modules"] = type(children)(
        (k, c if c is None or isinstance(c, ScriptModule) else _script_module(c, child_base, memo, warn=warn and "new"))
        for k, c in children.items())
    new.__dict__.update(state)
    return new


class ScriptFunction:
    """A scripted or traced function: calling it runs the Python function."""

    __name__ = "ScriptFunction"  # what PyTorch's pybind type answers for instances too
    __slots__ = ("_fn", "name", "qualified_name")

    def __init__(self, fn):
        self._fn = fn
        self.name = getattr(fn, "__name__", type(fn).__name__)
        module = getattr(fn, "__module__", None)
        self.qualified_name = ".".join(["__torch__"] + ([module] if module and module != "__main__" else [])
                                       + [self.name])

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __getattr__(self, name):
        if name in ("save", "save_to_buffer"):
            raise AttributeError(f"'ScriptFunction' object has no attribute '{name}': {NO_ARCHIVE}")
        raise AttributeError(f"'ScriptFunction' object has no attribute '{name}'")

    def __repr__(self):
        return f"<npgrad.jit.ScriptFunction object for {self.name}>"


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: a module becomes a RecursiveScriptModule copy, a function a ScriptFunction, and
    a plain class (a TorchScript class) is returned as it is; all of them run their Python code."""
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _script_module(obj, RecursiveScriptModule, {})
    if isinstance(obj, type):
        if issubclass(obj, Module):
            raise RuntimeError(f"Type '{obj}' cannot be compiled since it inherits from nn.Module, "
                               "pass an instance instead")
        if obj.__module__ == "builtins":
            raise TypeError(f"{obj} is a built-in class")
        _deprecated("script")
        return obj
    if callable(obj):
        _deprecated("script")
        return ScriptFunction(obj)
    if isinstance(obj, (dict, list)):
        raise TypeError("npgrad's torch.jit.script does not convert a dict or list to a TorchScript container: "
                        "use the object itself")
    raise TypeError(f"{type(obj)} is a built-in class" if type(obj).__module__ == "builtins"
                    else f"cannot script an object of type {type(obj).__name__}")


def script_method(fn):
    """The legacy ``@torch.jit.script_method`` on a ScriptModule subclass's method: the method as written."""
    return fn


class _FrozenModule(RecursiveScriptModule):
    """``torch.jit.freeze``'s result: the weights folded in as constants, so the module shows no parameters,
    buffers or submodules, and later changes to the source module do not reach it."""

    def forward(self, *args, **kwargs):
        return self.__dict__["_frozen"](*args, **kwargs)

    def __getattr__(self, name):
        frozen = self.__dict__.get("_frozen")
        if frozen is not None and name in self.__dict__.get("_kept", ()):
            return getattr(frozen, name)
        return super().__getattr__(name)

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        return f"original_name={self.__dict__['_frozen'].original_name}"


def _frozen(mod, kept, what):
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(f"{what} expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    from ..autograd.grad_mode import no_grad
    with no_grad():
        inner = copy.deepcopy(mod)
    for t in list(inner.parameters()) + list(inner.buffers()):
        t.requires_grad_(False)
    out = Module.__new__(_FrozenModule)
    Module.__init__(out)
    out.training = False
    out.__dict__["_frozen"] = inner
    out.__dict__["_kept"] = frozenset(kept or ())
    return out


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """``torch.jit.freeze``: an eval-mode ScriptModule with its weights folded in (a detached copy)."""
    result = _frozen(mod, preserved_attrs, "Freezing")
    _deprecated("freeze", "use `torch.compile` instead")
    return result


def optimize_for_inference(mod, other_methods=None):
    """``torch.jit.optimize_for_inference``: freezing; npgrad has no graph passes to run on top of it."""
    if isinstance(mod, _FrozenModule):
        return mod
    result = _frozen(mod, other_methods, "optimize_for_inference")
    _deprecated("optimize_for_inference", "use `torch.compile` instead")
    _deprecated("freeze", "use `torch.compile` instead")
    return result
