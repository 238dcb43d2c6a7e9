"""The op table (like PyTorch's OpInfo): one ``OpInfo`` entry per public operator, from which the
per-family tables, the second-order suite, the reliability suites, the float16 suite, the integer-dtype
sweep and the error sweeps draw their rows (see ``_record.py`` for what an entry holds).

The coverage test in tests/test_op_db.py fails for any public operator without an entry (bar its EXCLUDED list,
each with its reason).
"""
from _record import (EMPTY_INTEGER_SWEEP, FLOAT16_SWEEP, INTEGER_SWEEP, KINKS_SWEEP, SPECIAL_SWEEP,  # noqa: F401
                     DOUBLE_BACKWARD, FAMILY, FD, NO_UPCAST, PARITY, SECOND_ORDER, Binary, OpInfo, Reduction, Sample, Unary)
from _record import EXACT, FLOAT32_RESULT_SWEEP, RAISES_LIKE_TORCH  # noqa: F401
import family_activation
import family_activation_inplace
import family_arith
import family_broadcast
import family_compare
import family_conv
import family_decomp
import family_decomp_lu
import family_decomp_more
import family_indexing
import family_loss
import family_loss_extra
import family_lrn
import family_grid
import family_math_extra
import family_lowrank
import family_movement
import family_nn_misc
import family_norm
import family_pointwise
import family_pool
import family_products
import family_products_extra
import family_reduce
import family_scatter_extra
import family_softmax
import family_sorting
import family_special
import family_special_functions
import family_unary
import family_view_copy
import family_volumetric
import family_complex
import family_fft

OP_DB = [*family_unary.OPS, *family_arith.OPS, *family_pointwise.OPS, *family_compare.OPS, *family_indexing.OPS,
         *family_movement.OPS, *family_broadcast.OPS, *family_reduce.OPS, *family_softmax.OPS, *family_special.OPS,
         *family_products.OPS, *family_sorting.OPS, *family_decomp.OPS,
         *family_activation.OPS, *family_loss.OPS,
         *family_conv.OPS, *family_pool.OPS, *family_norm.OPS, *family_nn_misc.OPS]
OP_DB += family_loss_extra.OPS  # nn losses beyond family_loss (margin, linear, ctc)
OP_DB += family_lrn.OPS
OP_DB += family_grid.OPS
OP_DB += [*family_scatter_extra.OPS, *family_view_copy.OPS]
OP_DB += [*family_math_extra.OPS]
OP_DB += [*family_products_extra.OPS, *family_decomp_lu.OPS, *family_decomp_more.OPS, *family_lowrank.OPS]
OP_DB += [*family_special_functions.OPS]
OP_DB += [*family_activation_inplace.OPS]
OP_DB += [*family_volumetric.OPS]
OP_DB += [*family_complex.OPS]
OP_DB += [*family_fft.OPS]  # torch.fft and stft/istft, run by the complex table
BY_NAME = {op.name: op for op in OP_DB}


def registered_ops():
    """The public operator names the op table must cover: every public name in the source's operator
    registry (npgrad.ops._registry, lazy families loaded), plus the nn.functional functions."""
    import npgrad.nn.functional as F
    from npgrad import ops
    from npgrad.ops import _registry
    ops.load_lazy_families()
    functional = {n for n, v in vars(F).items() if not n.startswith("_") and callable(v) and
                  getattr(v, "__module__", "").startswith("npgrad.nn")}
    return set(_registry.OPS) | {"F." + n for n in functional}


def covered_names():
    return {name for op in OP_DB for name in (op.name, *op.aliases)}


def samples(check, family=None):
    """Every Sample running ``check`` (of ``family`` when given), in table order."""
    return [s for op in OP_DB if family in (None, op.family) for s in op.samples if check in s.checks]


def grad_samples(rows):
    """The rows the gradient checks run: fd allowed and some float input needs grad."""
    return [c for c in rows if c.fd and any(i.grad and i.dtype is None for i in c.inputs)]


def properties(kind):
    """Every Unary, Binary or Reduction property spec."""
    return [p for op in OP_DB for p in op.properties if isinstance(p, kind)]


def call_forms(field, family=None):
    """[(id, fn)] over the table (of ``family`` when given) for ``float16``, ``integer`` or ``errors``."""
    return [form for op in OP_DB if family in (None, op.family) for form in op.call_forms(field)]


def swept(sweep):
    """The operator names that a one-input sweep (``_record.*_SWEEP``) runs."""
    return [op.name for op in OP_DB if sweep in op.sweeps]


def promotion():
    """(name, fn, scalar sides) for the dtype-pair fuzz."""
    return [(op.name, op.fn, op.promotion) for op in OP_DB if op.promotion]



def empty_calls():
    """(name, label, fn, *specs) rows for the empty-tensor suite's operator-specific table."""
    return [(op.name, *row) for op in OP_DB for row in op.empty]


def raised(family=None):
    """[(id, fn(lib), exception class, message)]: the calls that must fail (of ``family`` when given)."""
    return [row for op in OP_DB if family in (None, op.family) for row in op.raises]


def special_values(family=None):
    """(id, fn, values) rows of the special-value comparisons (of ``family`` when given)."""
    return [row for op in OP_DB if family in (None, op.family) for row in op.special_values]


def special_fuzz():
    """(id, fn(lib, x)) one-input forms of the special-value property (tests/reliability/test_special_values.py)."""
    return [row for op in OP_DB for row in op.special_fuzz]


def shape_ops(family=None):
    """Every ``ShapeOp`` spec of the shape fuzz (of ``family`` when given), in table order."""
    return [spec for op in OP_DB if family in (None, op.family) for spec in op.shape_ops]
