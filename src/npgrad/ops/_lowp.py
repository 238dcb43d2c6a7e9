"""bfloat16/float8 arithmetic and CPU autocast: one hook on the op path, armed only while it can matter.

NumPy has no arithmetic of its own for ml_dtypes' reduced-precision floats (a bfloat16 sum would accumulate
in bfloat16, a matmul would run without BLAS). PyTorch's CPU kernels compute such a tensor in float32 and
round the result once; so does every npgrad operator here: ``_hook`` hands ``_apply_op`` a subclass of the
op whose forward sees float32 arrays and whose float32 result is rounded to the dtype PyTorch's promotion
gives. The node still records the inputs' dtypes, so the engine hands each input a gradient in its own
dtype (a bfloat16 weight gets a bfloat16 ``.grad``), as PyTorch's.

Autocast (``torch.autocast("cpu", dtype=...)``) goes through the same hook: the ops PyTorch's CPU autocast
runs in lower precision round their floating inputs to that dtype and give a result in it; the ones it runs
in float32 take reduced-precision inputs up to float32 and give float32.

Data-movement ops (views, reshapes, indexing, casts) run on the stored values as they are: they compute
nothing, and a view must keep sharing its base's memory.

The hook is installed in ``record.LOWP_HOOK`` only once a reduced-precision dtype has been asked for, or
while autocast is on: until then an op pays one truth test of an empty list.
"""
import numpy as np

from .. import dtypes as _dt
from ..autograd import record as _record
from ..tensor import Tensor

_F32, _F16, _BF16 = np.dtype(np.float32), np.dtype(np.float16), _dt.bfloat16.np
_LOWP = _dt.LOW_PRECISION_NP
_SKIP, _COMPUTE, _LOWER, _FP32, _CAST = 0, 1, 2, 3, 4

# What PyTorch 2.13's CPU autocast lists, by the npgrad op that computes it (found by running each op on
# float32 and bfloat16 inputs inside torch.autocast("cpu")): products and convolutions run in lower precision
# (mm, bmm, matmul, addmm's and baddbmm's product, einsum and tensordot, linear, conv*, conv_transpose*) ...
_LOWER_OPS = {"ops.products.MatMul", "ops.products.Einsum", "nn._functional.linear.LinearOp",
              "nn._functional.conv.ConvNdOp", "nn._functional.conv.ConvTransposeNdOp"}
# ... and losses, distances, products of many terms and the linear-algebra decompositions in float32.
_FP32_OPS = {"nn._functional.loss.CrossEntropy", "nn._functional.loss.NLLLossOp", "nn._functional.loss.MSELossOp",
             "nn._functional.loss.SmoothL1LossOp", "nn._functional.loss.HuberLossOp",
             "nn._functional.loss.BinaryCrossEntropy", "nn._functional.loss.BCEWithLogits",
             "ops.distance.Cdist", "ops.reduce.Prod"}
_FP32_MODULES = ("ops.decomp", "ops.householder", "ops.matrix_exp")
# Families whose ops only move stored values (and may return views of their input).
_SKIP_MODULES = {"ops.movement", "ops.movement_extra", "ops.strided", "ops.indexing", "ops.view_copy"}
_SKIP_OPS = {"ops.broadcast.Expand", "ops.broadcast.BroadcastTo"}
_FIXED_CASTS = _dt.FIXED_CASTS

_policy = {}
_wrapped = {}
_autocast = _dt._AUTOCAST["cpu"]  # [enabled, dtype], shared with torch.autocast's state


def _classify(cls):
    mod = cls.__module__
    key = (mod[7:] if mod.startswith("npgrad.") else mod) + "." + cls.__name__
    mod = key.rsplit(".", 1)[0]
    if key == "ops.arith.ToCopy":
        return _CAST
    if key in _SKIP_OPS or mod in _SKIP_MODULES:
        return _SKIP
    if key in _LOWER_OPS:
        return _LOWER
    if key in _FP32_OPS or mod.startswith(_FP32_MODULES):
        return _FP32
    return _COMPUTE


def _result_low(args):
    """The reduced-precision NumPy dtype the result takes by PyTorch's promotion, or None when the arguments
    hold none or promote past it (bfloat16 with a float32 tensor is float32; with float16, float32): dimensioned
    tensors decide the float type when they hold one, else 0-d tensors do; Python numbers never do."""
    dims, zeros = set(), set()
    for x in args:
        d = x._data if isinstance(x, Tensor) else x
        if type(d) is not np.ndarray:
            continue
        dt = d.dtype
        if dt in _LOWP or dt.kind in "fc":
            (dims if d.ndim else zeros).add(dt)
    group = dims or zeros
    if len(group) == 1:
        (dt,) = group
        if dt in _LOWP:
            return dt
    return None


def _hook(cls, args):
    """The class ``_apply_op`` runs for ``cls`` on ``args``: ``cls`` itself, or its float32-computing form."""
    p = _policy.get(cls)
    if p is None:
        p = _policy[cls] = _classify(cls)
    if p is _SKIP:
        return cls
    if p is _CAST:
        fix = _FIXED_CASTS.get(args[1]) if len(args) == 2 and isinstance(args[1], np.dtype) else None
        return cls if fix is None else _cast_variant(cls, fix)
    if _autocast[0] and p is _LOWER:
        return _variant(cls, _autocast[1].np, True)
    fp32 = p is _FP32 and _autocast[0]
    for x in args:
        d = x._data if isinstance(x, Tensor) else x
        if type(d) is np.ndarray and (d.dtype in _LOWP or (fp32 and d.dtype == _F16)):
            break
    else:
        return cls
    if fp32:  # autocast's float32 ops: reduced-precision (float16 too) inputs up to float32, a float32 result
        return _variant(cls, None, False)
    return _variant(cls, _result_low(args), False)


def _round_bf16(a):
    """float32 -> bfloat16 rounded to nearest even, as ml_dtypes' astype but ~4x faster: keep the high 16 bits."""
    bits = a.view(np.uint32)
    out = ((bits + (((bits >> 16) & np.uint32(1)) + np.uint32(0x7FFF))) >> 16).astype(np.uint16)
    nan = a != a
    if nan.any():
        out[nan] = 0x7FC0  # (the carry could have turned a NaN's payload into infinity)
    return out.view(_BF16)


def _up(v):
    return v.astype(_F32) if type(v) is np.ndarray and (v.dtype in _LOWP or v.dtype == _F16) else v


def _variant(cls, out_np, round_inputs):
    """``cls`` computing in float32 (inputs in a reduced-precision dtype taken up to float32; with
    ``round_inputs``, every floating input first rounded to ``out_np``, as autocast's cast), its float32
    results rounded to ``out_np`` (None: left in float32)."""
    key = (cls, out_np, round_inputs)
    w = _wrapped.get(key)
    if w is not None:
        return w
    fwd, bwd = cls.forward, cls.backward

    to_low = _round_bf16 if out_np == _BF16 else (lambda a: a.astype(out_np))

    def down(o):
        if (type(o) is np.ndarray or isinstance(o, np.generic)) and o.dtype == _F32:  # (a full reduction: a scalar)
            return to_low(np.asarray(o))
        if type(o) is tuple:
            return tuple([down(x) for x in o])
        return o

    def conv_in(v):
        if type(v) is not np.ndarray:
            return v
        if round_inputs and (v.dtype.kind == "f" or v.dtype in _LOWP) and v.dtype != out_np:
            return v.astype(out_np).astype(_F32)
        return _up(v)

    def forward(ctx, *vals):
        out = fwd(ctx, *[conv_in(v) for v in vals])
        return down(out) if out_np is not None else out

    def backward(ctx, *grads):
        return bwd(ctx, *[_up(g) for g in grads])

    w = type(cls.__name__, (cls,), {"__slots__": (), "forward": staticmethod(forward),
                                    "backward": staticmethod(backward), "__module__": cls.__module__,
                                    "__qualname__": cls.__qualname__, "_lowp_of": cls})
    _policy[w] = _SKIP
    _wrapped[key] = w
    return w


def _cast_variant(cls, fix):
    w = _wrapped.get((cls, fix))
    if w is None:
        w = _wrapped[(cls, fix)] = type(cls.__name__, (cls,), {
            "__slots__": (), "forward": staticmethod(lambda ctx, x, np_dtype: fix(x)), "__module__": cls.__module__,
            "__qualname__": cls.__qualname__, "_lowp_of": cls})
        _policy[w] = _SKIP
    return w


def arm():
    """Install the hook (idempotent)."""
    if not _record.LOWP_HOOK:
        _record.LOWP_HOOK.append(_hook)


def _on_autocast_change():
    if _autocast[0] or _dt._LOW_USED[0]:
        arm()
    elif _record.LOWP_HOOK:
        del _record.LOWP_HOOK[:]


_dt._AUTOCAST_LISTENERS.append(_on_autocast_change)
_dt._LOW_LISTENERS.append(arm)
if _dt._LOW_USED[0]:
    arm()
