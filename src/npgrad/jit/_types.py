"""``torch.jit.isinstance``: an isinstance that also checks the element types of List/Dict/Tuple/Optional/Union."""
import types
import typing
import warnings

_BARE = {list: ("list", "a contained type", "list[int]"), dict: ("dict", "contained types", "dict[int, int]"),
         tuple: ("tuple", "a contained type", "tuple[int]"), typing.List: ("List", "a contained type", "List[int]"),
         typing.Dict: ("Dict", "contained types", "Dict[int, int]"),
         typing.Tuple: ("Tuple", "a contained type", "Tuple[int]")}


def _empty_warning():
    warnings.warn("The inner type of a container is lost when calling torch.jit.isinstance in eager mode. For "
                  "example, List[int] would become list and therefore falsely return True for List[float] or "
                  "List[str].")


def _matches(obj, target):
    if target in _BARE:
        name, what, example = _BARE[target]
        add = "contained type" if what == "contained types" else what
        raise RuntimeError(f"Attempted to use {name} without {what}. Please add {add}, e.g. {example}")
    origin, args = typing.get_origin(target), typing.get_args(target)
    if origin is None:
        return isinstance(obj, target)
    if origin is typing.Union or origin is types.UnionType:
        return any(_matches(obj, a) for a in args)
    if origin is list:
        if not isinstance(obj, list):
            return False
        if not obj:
            _empty_warning()
        return all(_matches(x, args[0]) for x in obj)
    if origin is dict:
        if not isinstance(obj, dict):
            return False
        if not obj:
            _empty_warning()
        return all(_matches(k, args[0]) and _matches(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        if not isinstance(obj, tuple):
            return False
        if not obj:
            _empty_warning()
        if len(args) == 2 and args[1] is Ellipsis:
            raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")
        args = () if args == ((),) else args
        return len(obj) == len(args) and all(_matches(x, a) for x, a in zip(obj, args))
    return False


def jit_isinstance(obj, target_type):
    """``torch.jit.isinstance(obj, List[int])``: True when ``obj`` and, for containers, every element match."""
    return _matches(obj, target_type)
