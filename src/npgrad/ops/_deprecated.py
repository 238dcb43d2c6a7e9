"""The deprecated argument orders PyTorch 2.13 still accepts: ``add(alpha, other)``, ``sub(alpha, other)``,
``addcdiv(value, tensor1, tensor2)``, ``addcmul(value, tensor1, tensor2)`` (methods, in-place methods, and
``torch.add(input, alpha, other)``...). Each call computes what the current order computes; the first in the
process warns with PyTorch's text (one warning for all of them, as PyTorch has one), or every one under
``set_warn_always(True)``.

The operators take the extra positional argument as ``*deprecated`` and call here only when it is there, so
the ordinary call pays nothing.
"""
import sys

import numpy as np

from .. import _runtime
from ..tensor import Tensor

# name -> (the deprecated arguments, the current ones), as PyTorch's message spells them
_FORMS = {
    "add": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "sub": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "addcdiv": ("Number value, Tensor tensor1, Tensor tensor2", "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
    "addcmul": ("Number value, Tensor tensor1, Tensor tensor2", "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
}


def _how_called():
    """"function" (torch.add, through the registry's out= wrapper), "inplace" (add_, through ops.inplace's
    in-place maker) or "method": which of PyTorch's spellings the operator's caller used, for the message's
    wording. (Frames: this, alpha_first/value_first, the operator, its caller.)"""
    module = sys._getframe(3).f_globals.get("__name__")
    return {"npgrad.ops._registry": "function", "npgrad.ops.inplace": "inplace"}.get(module, "method")


def _is_number(x):
    if isinstance(x, Tensor):
        return x._data.ndim == 0
    return isinstance(x, (int, float, complex, np.number, np.bool_))


def _positional_error(name, how, given):
    n = name + "_" if how == "inplace" else name
    takes = len(_FORMS[name][1].split("*")[0].split(",")) - 1 + (how == "function")
    noun = "argument" if takes == 1 else "arguments"
    return TypeError(f"{n}() takes {takes} positional {noun} but {given} were given")


def _warn(name, how):
    old, new = _FORMS[name]
    n = name + "_" if how == "inplace" else name
    if how == "function":
        old, new = f"Tensor input, {old}, *, Tensor out = None", f"Tensor input, {new}, Tensor out = None"
    _runtime.warn_once("deprecated overload", f"This overload of {n} is deprecated:\n\t{n}({old})\nConsider using "
                       "one of the following signatures instead:\n\t" + f"{n}({new})", stacklevel=5)


def alpha_first(name, other, deprecated, alpha, how=None):
    """``add(input, alpha, other)``: (other, alpha) in the current order."""
    how = how or _how_called()
    if len(deprecated) != 1 or not _is_number(other) or not (isinstance(deprecated[0], Tensor) or
                                                          _is_number(deprecated[0])):
        raise _positional_error(name, how, 2 + len(deprecated) - (how != "function"))
    if not (type(alpha) is int and alpha == 1):
        n = name + "_" if how == "inplace" else name
        raise TypeError(f"{n}() received an invalid combination of arguments - got unrecognized keyword arguments: "
                        "alpha")
    _warn(name, how)
    return deprecated[0], other


def value_first(name, tensor1, tensor2, deprecated, value):
    """``addcdiv(input, value, tensor1, tensor2)``: (tensor1, tensor2, value) in the current order."""
    how = _how_called()
    if len(deprecated) != 1 or not _is_number(tensor1) or not isinstance(tensor2, Tensor) or \
            not isinstance(deprecated[0], Tensor) or not (type(value) is int and value == 1):
        raise _positional_error(name, how, 3 + len(deprecated) - (how != "function"))
    _warn(name, how)
    return tensor2, deprecated[0], tensor1
