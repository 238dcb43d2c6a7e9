"""torch.testing.assert_close: PyTorch's verdicts, default tolerances, error types and messages word for word.

Comparison runs in two passes, as PyTorch's does (which decides which error a caller sees first): every leaf
of the nested sequences and mappings is first matched to the first leaf kind that accepts both inputs
(None, bool, number, tensor-like), which may already fail (bad tolerances, unknown types); then the leaves
are compared in order and the first mismatch is raised. Third-party suites match on the message text.
"""
import cmath
import collections.abc
import warnings

import numpy as np

import npgrad as torch

# {dtype: (rtol, atol)}; PyTorch's values (bfloat16 and complex32, which npgrad lacks, are left out).
_TOLERANCES = {
    torch.float16: (0.001, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}
# assert_allclose's looser table.
_ALLCLOSE_TOLERANCES = {torch.float16: (1e-3, 1e-3), torch.float32: (1e-4, 1e-5), torch.float64: (1e-5, 1e-8)}
_PYTHON_NUMBER_DTYPES = {int: torch.int64, float: torch.float64, complex: torch.complex128}
# PyTorch's ending for a comparison that crashed rather than failed (its text, names included).
_CRASHED = ("resulted in the unexpected exception above. If you are a user and see this message during normal "
            "operation please file an issue at https://github.com/pytorch/pytorch/issues. If you are a developer "
            "and working on the comparison functions, please except the previous error and raise an expressive "
            "`ErrorMeta` instead.")


def _path_text(path):
    return "".join(f"[{key!r}]" for key in path)


class _Mismatch(Exception):
    """A failure found while comparing: the exception type and text the caller will get, and where it was."""

    def __init__(self, kind, text, path=()):
        super().__init__(text)
        self.kind, self.text, self.path = kind, text, path

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.text + (f"\n\nThe failure occurred for item {_path_text(self.path)}" if self.path else "")
        return self.kind(msg(text) if callable(msg) else text)


class _Refused(Exception):
    """A leaf kind does not take these inputs: the next kind is tried."""


def _dtype_tolerances(dtypes, table=_TOLERANCES):
    """The loosest (rtol, atol) over the dtypes; integers and bool compare exactly."""
    pairs = [table.get(dt, (0.0, 0.0)) for dt in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _tolerances(dtypes, rtol, atol, path):
    if (rtol is None) != (atol is None):
        # One alone would be surprising: atol=0.0 by itself could still pass through the default rtol.
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{'atol' if atol is None else 'rtol'}.", path)
    return _dtype_tolerances(dtypes) if rtol is None else (rtol, atol)


# ---- message text --------------------------------------------------------------------------------------------

def _not_close_text(what, rtol, atol, extra, absolute, relative):
    """PyTorch's report; ``absolute``/``relative`` are (difference, index or None)."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", ""]
    if extra:
        lines.append(extra.strip())
    for name, (diff, where), allowed in (("absolute", absolute, atol), ("relative", relative, rtol)):
        line = f"{name.title()} difference: {diff}" if where is None else \
            f"Greatest {name} difference: {diff} at index {where}"
        lines.append(line if exact else f"{line} (up to {allowed} allowed)")
    return "\n".join(lines).strip()


def _scalar_text(actual, expected, rtol, atol):
    gap = abs(actual - expected)
    ratio = float("inf") if expected == 0 else gap / abs(expected)
    return _not_close_text("Scalars", rtol, atol, f"Expected {expected} but got {actual}.", (gap, None),
                           (ratio, None))


def _tensor_text(actual, expected, close, rtol, atol):
    shape = tuple(close.shape)
    count = close.numel()
    bad = count - int(torch.sum(close))
    matched = close.flatten()
    a, e = actual.flatten(), expected.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        a, e = a.to(torch.int64), e.to(torch.int64)  # int8: 100 - -100 overflows its own dtype

    def worst(diff):
        # Matched elements (a nan equal under equal_nan) must not be the greatest difference.
        diff[matched] = 0
        value, flat = torch.max(diff, 0)
        where = tuple(int(i) for i in np.unravel_index(int(flat), shape)) if shape else ()
        return value.item(), where

    gap = torch.abs(a - e)
    absolute = worst(gap)
    relative = worst(gap / torch.abs(e))
    return _not_close_text("Tensor-likes", rtol, atol, f"Mismatched elements: {bad} / {count} ({bad / count:.1%})",
                           absolute, relative)


# ---- leaves: each kind accepts its inputs (or refuses them) and returns the check to run later -----------------

class _Check:
    """One leaf's deferred comparison; its repr is PyTorch's pair repr, shown if the comparison itself crashes."""

    def __init__(self, kind, actual, expected, path, run, shown=()):
        self.kind, self.actual, self.expected, self.path, self._run, self._shown = \
            kind, actual, expected, path, run, shown

    def fail(self, text):
        raise _Mismatch(AssertionError, text, self.path)

    def run(self):
        self._run(self)

    def __repr__(self):
        fields = [("id", self.path), ("actual", self.actual), ("expected", self.expected), *self._shown]
        return "\n".join([f"{self.kind}(", *(f"    {k}={v!s}," for k, v in fields), ")"])


def _none_leaf(actual, expected, path, **_):
    if actual is not None and expected is not None:
        raise _Refused

    def run(c):
        if c.actual is not None or c.expected is not None:
            c.fail(f"None mismatch: {c.actual} is not {c.expected}")
    return _Check("NonePair", actual, expected, path, run)


def _bool_leaf(actual, expected, path, **_):
    if not (isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_))):
        raise _Refused

    def run(c):
        if c.actual is not c.expected:
            c.fail(f"Booleans mismatch: {c.actual} is not {c.expected}")
    return _Check("BooleanPair", bool(actual), bool(expected), path, run)


def _number_leaf(actual, expected, path, rtol=None, atol=None, equal_nan=False, check_dtype=False, **_):
    kinds = (*_PYTHON_NUMBER_DTYPES, np.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Refused
    a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    for x in (a, e):
        if not isinstance(x, tuple(_PYTHON_NUMBER_DTYPES)):
            raise _Mismatch(TypeError, f"Unknown number type {type(x)}.", path)
    # A subclass (bool beside an int, an IntEnum) has no dtype here: PyTorch's "unexpected exception" too.
    rtol, atol = _tolerances([_PYTHON_NUMBER_DTYPES[type(x)] for x in (a, e)], rtol, atol, path)

    def run(c):
        if check_dtype and type(a) is not type(e):
            c.fail(f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e or (equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        gap = abs(a - e)
        if not (cmath.isfinite(gap) and gap <= atol + rtol * abs(e)):
            c.fail(_scalar_text(a, e, rtol, atol))
    shown = [("rtol", rtol), ("atol", atol), ("equal_nan", equal_nan), ("check_dtype", check_dtype)]
    return _Check("NumberPair", a, e, path, run, shown)


def _as_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    try:
        return torch.as_tensor(x)
    except Exception:
        raise _Refused from None


def _tensor_leaf(actual, expected, path, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **_):
    # Only directly related types pair up: a tensor and a NumPy array do not, as in PyTorch.
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not allow_subclasses and type(actual) is not type(expected)):
        raise _Refused
    a, e = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances([a.dtype, e.dtype], rtol, atol, path)

    def differ(c, attribute, x, y):
        c.fail(f"The values for attribute '{attribute}' do not match: {x} != {y}.")

    def run(c):
        if a.shape != e.shape:
            differ(c, "shape", a.shape, e.shape)
        if a.layout != e.layout:
            if check_layout:
                differ(c, "layout", a.layout, e.layout)
        elif check_stride and a.stride() != e.stride():
            differ(c, "stride()", a.stride(), e.stride())
        if check_device and a.device != e.device:
            differ(c, "device", a.device, e.device)
        if check_dtype and a.dtype != e.dtype:
            differ(c, "dtype", a.dtype, e.dtype)
        x, y = a.detach(), e.detach()
        if x.device != y.device:
            x, y = x.cpu(), y.cpu()
        if x.dtype != y.dtype:
            common = torch.promote_types(x.dtype, y.dtype)
            x, y = x.to(common), y.to(common)
        close = torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if not torch.all(close):
            c.fail(_scalar_text(x.item(), y.item(), rtol, atol) if x.shape == torch.Size([])
                   else _tensor_text(x, y, close, rtol, atol))
    shown = [("rtol", rtol), ("atol", atol), ("equal_nan", equal_nan), ("check_device", check_device),
             ("check_dtype", check_dtype), ("check_layout", check_layout), ("check_stride", check_stride)]
    return _Check("TensorLikePair", a, e, path, run, shown)


_LEAF_KINDS = (_none_leaf, _bool_leaf, _number_leaf, _tensor_leaf)


def _is_sequence(x):
    # str is a sequence of str: "a"[0][0]... would recurse forever.
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _collect(actual, expected, path, options, checks):
    """Append every leaf's check (depth first) to ``checks``; containers of different shape fail at once."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != "
                                            f"{len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _collect(a, e, (*path, i), options, checks)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        keys = set(actual.keys())
        if keys != set(expected.keys()):
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: {sorted(expected.keys() - keys)}\n"
                                            f"Additional keys in the actual mapping: {sorted(keys - expected.keys())}",
                            path)
        try:  # the first failure is reported: visit keys in a reproducible order where they sort
            keys = sorted(keys)
        except Exception:
            pass
        for key in keys:
            _collect(actual[key], expected[key], (*path, key), options, checks)
        return
    for make in _LEAF_KINDS:
        try:
            checks.append(make(actual, expected, path, **options))
            return
        except _Refused:
            continue
        except _Mismatch:
            raise
        except Exception as error:
            kind = {_none_leaf: "NonePair", _bool_leaf: "BooleanPair", _number_leaf: "NumberPair",
                    _tensor_leaf: "TensorLikePair"}[make]
            raise RuntimeError(
                f"Originating a {kind}() at item {_path_text(path)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\n"
                + _CRASHED) from error
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} "
                               f"and {type(expected)}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    r"""Asserts that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol + rtol * |expected|``.

    Tensors, NumPy arrays, Python and NumPy scalars, ``None``, and sequences and mappings of them (compared
    element by element). Without ``rtol``/``atol`` the tolerances follow the dtype: float16 ``1e-3``/``1e-5``,
    float32 and complex64 ``1.3e-6``/``1e-5``, float64 and complex128 ``1e-7``/``1e-7``, integers and bool exact.
    Raises ``AssertionError`` with PyTorch's message ("Tensor-likes are not close!", the count of mismatched
    elements, the greatest absolute and relative differences and where they are); ``msg`` replaces it (a
    string) or edits it (a callable taking the generated message).
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    checks = []
    try:
        _collect(actual, expected, (), options, checks)
    except _Mismatch as m:
        raise m.error() from None
    first = None
    for check in checks:  # all of them: one that crashes is reported even after a mismatch
        try:
            check.run()
        except _Mismatch as m:
            first = first or m
        except Exception as error:
            raise RuntimeError(f"Comparing\n\n{check}\n\n{_CRASHED}") from error
    if first is not None:
        raise first.error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated in PyTorch since 1.12 (still present in 2.13): use :func:`assert_close`."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. "
        "You can find detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    actual = actual if isinstance(actual, torch.Tensor) else torch.tensor(actual)
    expected = expected if isinstance(expected, torch.Tensor) else torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _dtype_tolerances([actual.dtype, expected.dtype], _ALLCLOSE_TOLERANCES)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
