"""The op-table record: one ``OpInfo`` per public operator, from which every test family draws.

An entry says once how to call the operator (``fn(lib, *inputs)``, written against PyTorch's API so the
same expression runs with ``lib=npgrad`` and ``lib=torch``), which inputs to call it on and which checks
apply:

* ``samples``: ``Sample`` rows (an ``OpCase`` plus the checks that run it) for the per-family table tests
  (torch parity, finite differences, double backward, no float32 upcast) and for the second-order suite
  (tests/autograd/test_double_backward.py: PyTorch at a tighter tolerance, and gradgradcheck);
* ``properties``: ``Unary``/``Binary``/``Reduction`` specs (value domain, kinks to stay away from, a NumPy
  reference) for the hypothesis fuzz, special-value and chain suites; their ``fn``/``ref`` default to the
  entry's;
* ``float16``, ``integer``, ``errors``, ``promotion``: the call forms the float16 suite, the integer-dtype
  sweep, the binary error sweeps and the dtype-pair fuzz run (``True``: the entry's ``fn``);
* ``sweeps``: the one-input sweeps that call the operator by its name (``lib.<name>(x)``, ``x.<name>()``);
* ``empty``: operator-specific calls for the empty-tensor suite (tests/reliability/test_empty_tensors.py), as
  ``(label, fn(lib, *inputs), *specs)`` with one ``(shape, dtype[, grad])`` spec per input (that suite's ``Case``);
* ``dtype_forms``: the call forms of a comparison, logical or bitwise operator that tests/ops/test_compare.py
  runs on every dtype, on mixed dtype pairs, on NaN/inf and on broadcast shapes (against PyTorch);
* ``shape_ops``: ``ShapeOp`` specs (tests/opinfo/_shape_draws.py: arguments drawn for a random input shape, a
  NumPy reference) for the shape fuzz and the suites sharing its tables (tests/reliability/_shape_ops.py);
* ``special_fuzz``: one-input call forms whose values and gradients on inputs drawn from NaN, +-inf, +-0, tiny and
  huge numbers must equal PyTorch's (tests/reliability/test_special_values.py);
* ``raises``: calls that must fail, ``(id, fn(lib), exception class, message)``, run by the family's
  ``test_expected_errors`` (tests/_table_tests.py ``expected_errors_test``): npgrad raises that class with that
  message, and PyTorch too when installed.
"""
import dataclasses
from typing import Callable, Optional, Sequence

from oracle import OpCase

# Checks a Sample can ask for. FAMILY: the four per-family table tests (fd and double backward only
# where a float input needs grad). SECOND_ORDER: the second-order suite.
PARITY, FD, DOUBLE_BACKWARD, NO_UPCAST, SECOND_ORDER = "parity", "fd", "double_backward", "no_upcast", "second_order"
FAMILY = frozenset({PARITY, FD, DOUBLE_BACKWARD, NO_UPCAST})

# One-input sweeps by name (tests/ops/test_unary.py, tests/reliability/test_empty_tensors.py): lib.<name>(x)
# on int8..int64, uint8 and bool ("integer"), on float16 ("float16"), on inf/NaN/+-0/huge values ("special");
# x.<name>() gradients at kinks and domain edges ("kinks"); lib.<name>(x) of empty integer and bool tensors
# ("empty_integer").
INTEGER_SWEEP, FLOAT16_SWEEP, SPECIAL_SWEEP, KINKS_SWEEP, EMPTY_INTEGER_SWEEP = (
    "integer", "float16", "special", "kinks", "empty_integer")


@dataclasses.dataclass
class Sample(OpCase):
    """An ``OpCase`` (inputs, dtypes, tolerances) with the checks that run it; ``fn`` None: the entry's."""
    fn: Optional[Callable] = None
    inputs: Sequence = ()
    checks: frozenset = FAMILY


@dataclasses.dataclass(frozen=True)
class Unary:
    """Property spec of a one-input call: values in [low, high], 0.05 away from ``away``; ``fd`` False for
    piecewise-constant operators (zero gradient)."""
    name: str
    fn: Optional[Callable] = None
    ref: Optional[Callable] = None
    low: float = -2.0
    high: float = 2.0
    away: tuple = ()
    fd: bool = True
    # False: -0.0 and -inf stay out of the special-value tests (pow(-0.0, 0.5): C's pow and PyTorch's
    # sqrt-based gradient disagree on the sign of an infinite result)
    special_negatives: bool = True

    def __str__(self):
        return self.name


@dataclasses.dataclass(frozen=True)
class Binary:
    name: str
    fn: Optional[Callable] = None
    ref: Optional[Callable] = None
    a: tuple = (-2.0, 2.0)        # value range of the first operand
    b: tuple = (-2.0, 2.0)
    b_away: tuple = ()
    fd: bool = True
    # False: gradients at special values are not compared (addcdiv: PyTorch's own formula squares the
    # divisor, so a float32 divisor of 1e-30 gives 0/0 = NaN where div's (a / b) / b gives 0)
    special_grads: bool = True
    kinked: bool = False          # gradient jumps where a == b (ties): keep the operands apart
    # (a, b) -> (a, b) with the special-value pairs where PyTorch's result is an artifact replaced
    special_filter: Optional[Callable] = None

    def __str__(self):
        return self.name


@dataclasses.dataclass(frozen=True)
class Reduction:
    """``fn(lib, x, dim, keepdim)``; ``dims``: "tuple" (None, an int or a tuple), "int" (an int or
    None), "required" (an int, never None)."""
    name: str
    fn: Optional[Callable] = None
    ref: Optional[Callable] = None
    dims: str = "tuple"
    low: float = -2.0
    high: float = 2.0
    fd: bool = True
    # False: with inf/NaN inputs only the forward is compared (prod/cumprod: npgrad multiplies the other
    # elements, PyTorch divides the result by the element, so inf/inf gives NaN there; var_mean: PyTorch's
    # Welford mean turns [inf, 0] into NaN)
    special_grads: bool = True
    # False: +-1e30 stay out of the special values (var/std of equal huge values depends on PyTorch's kernel:
    # [-1e30]*3 gives 2.97e28 as a 1-d full reduction and 0 along dim 0 of a 3-d tensor; npgrad gives 0)
    special_huge: bool = True

    def __str__(self):
        return self.name


@dataclasses.dataclass
class OpInfo:
    name: str                               # the public operator, as registered_ops() spells it
    family: str                             # tests/ops/test_<family>.py runs its FAMILY samples
    fn: Optional[Callable] = None           # the canonical call fn(lib, *inputs)
    ref: Optional[Callable] = None          # NumPy reference of fn (the oracle without PyTorch)
    samples: Sequence[Sample] = ()
    properties: Sequence = ()               # Unary/Binary/Reduction specs
    float16: object = ()                    # True or [(id, fn(lib, x, y))]
    integer: object = ()                    # True or [(id, fn(lib, cond, a, b))] on int64/int32/uint8/bool
    errors: object = ()                     # True or [(id, fn(lib, a, b))]: shape and dtype error sweeps
    promotion: Optional[str] = None         # dtype-pair fuzz of fn(lib, a, b): Python scalars on "both"
    #                                         sides, the "second" only, or "none"
    aliases: Sequence[str] = ()             # other public names of the same operator, covered by this entry
    sweeps: frozenset = frozenset()         # of the *_SWEEP names above
    empty: Sequence = ()                    # [(label, fn(lib, *inputs), *specs)]: empty-tensor calls
    raises: Sequence = ()                   # [(id, fn(lib), exception class, message)]: expected errors
    special_values: Sequence = ()           # [(id, fn(lib, x), values)]: value and gradient at poles,
    #                                         infinities and NaN equal PyTorch's (float32 and float64)
    dtype_forms: object = ()                # True or [(id, fn(lib, a, b))]: the dtype sweeps of the compare
    #                                         family (every dtype, mixed pairs, NaN/inf, broadcasting)
    shape_ops: Sequence = ()                # _shape_draws.ShapeOp specs for the shape fuzz
    special_fuzz: Sequence = ()             # [(id, fn(lib, x))]: tests/reliability/test_special_values.py draws
    #                                         x from NaN, +-inf, +-0, tiny and huge values; value and gradient
    #                                         equal PyTorch's

    def __post_init__(self):
        for s in self.samples:
            if s.fn is None:
                s.fn = self.fn
        self.properties = [p if p.fn is not None else dataclasses.replace(p, fn=self.fn, ref=p.ref or self.ref)
                           for p in self.properties]

    def call_forms(self, field):
        """[(id, fn)] for ``float16``/``integer``/``errors``/``dtype_forms``; ``True`` means the canonical call."""
        forms = getattr(self, field)
        forms = [(self.name, None)] if forms is True else forms
        return [(name, fn or self._canonical(field)) for name, fn in forms]

    def _canonical(self, field):
        fn = self.fn
        return (lambda lib, c, a, b: fn(lib, a, b)) if field == "integer" else fn


# One-input sweep by name: lib.<name>(x) of an int64 tensor is float32, as PyTorch's (tests/ops/test_special.py).
FLOAT32_RESULT_SWEEP = "integer_float32"

# Checks of argument-free Samples (``fn(lib)``): the results equal PyTorch's exactly (values, indices,
# counts, dtypes), or the call raises PyTorch's exception class with its message.
EXACT, RAISES_LIKE_TORCH = "exact", "raises_like_torch"


# The Sample makers the family files share: parity + finite differences (+ double backward), a second-order
# row, and an argument-free call that must raise PyTorch's exception with its message.
ROW = frozenset({PARITY, FD})
ROW2 = ROW | {DOUBLE_BACKWARD}


def row(*args, **kw):
    return Sample(*args, checks=ROW, **kw)


def row2(*args, **kw):
    return Sample(*args, checks=ROW2, **kw)


def second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


def raises_like_torch(name, fn):
    return Sample(name, fn, (), checks=frozenset({RAISES_LIKE_TORCH}))
