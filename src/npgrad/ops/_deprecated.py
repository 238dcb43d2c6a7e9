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


def _positional_error(name, how, given, takes=None):
    n = name + "_" if how == "inplace" else name
    if takes is None:
        takes = len(_FORMS[name][1].split("*")[0].split(",")) - 1 + (how == "function")
    noun = "argument" if takes == 1 else "arguments"
    return TypeError(f"{n}() takes {takes} positional {noun} but {given} were given")


def _warn(name, how, old=None, new=None):
    if old is None:
        old, new = _FORMS[name]
        if how == "function":
            old, new = f"Tensor input, {old}, *, Tensor out = None", f"Tensor input, {new}, Tensor out = None"
    n = name + "_" if how == "inplace" else name
    news = "\n\t".join(f"{n}({x})" for x in ([new] if isinstance(new, str) else new))
    _runtime.warn_once("deprecated overload", f"This overload of {n} is deprecated:\n\t{n}({old})\nConsider using "
                       "one of the following signatures instead:\n\t" + news, stacklevel=5)


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


# beta-first orders of the products with a bias: addmm(beta, [alpha,] mat1, mat2) as methods, and
# torch.addmm(beta, input, [alpha,] mat1, mat2)
_OPERANDS = {"addmm": ("mat1", "mat2"), "addbmm": ("batch1", "batch2"), "baddbmm": ("batch1", "batch2"),
             "addmv": ("mat", "vec"), "addr": ("vec1", "vec2")}
_WITH_OUT_DTYPE = ("addmm", "baddbmm")  # PyTorch lists their out_dtype overload among the current ones


def beta_first(name, input, first, second, deprecated):
    """``input.addmm(beta, alpha, mat1, mat2)`` and the rest: (input, mat1, mat2, beta, alpha) in the current
    order; the operator passes its three named positions and the extra positional arguments."""
    how = _how_called()
    args = (input, first, second, *deprecated) if how == "function" else (first, second, *deprecated)
    beta, rest = args[0], list(args[1:])
    if how == "function":
        input = rest.pop(0)
    alpha = rest.pop(0) if len(rest) == 3 else 1
    if len(rest) != 2 or not _is_number(beta) or not _is_number(alpha) or not isinstance(input, Tensor) or \
            not all(isinstance(t, Tensor) for t in rest):
        raise _positional_error(name, how, len(args), takes=3 if how == "function" else 2)
    m1, m2 = _OPERANDS[name]
    lead = "Tensor input, " if how == "function" else ""
    tail = ", *, Tensor out = None" if how == "function" else ""
    old = f"Number beta, {lead}" + ("Number alpha, " if len(args) - (how == "function") == 4 else "") + \
        f"Tensor {m1}, Tensor {m2}{tail}"
    current = f"{lead}Tensor {m1}, Tensor {m2}, *, Number beta = 1, Number alpha = 1" + (", Tensor out = None" if tail
                                                                                       else "")
    news = [current]
    if how == "function" and name in _WITH_OUT_DTYPE:
        news.append(f"{lead}Tensor {m1}, Tensor {m2}, torch.dtype out_dtype, *, Number beta = 1, Number alpha = 1, "
                    "Tensor out = None")
    _warn(name, how, old, news)
    return input, rest[0], rest[1], beta, alpha
