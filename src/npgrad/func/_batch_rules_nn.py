"""Batching rules of the nn.functional pieces per-sample-gradient code uses.

Activations are elementwise; linear is a (batched) matmul; softmax shifts its dim; the losses fold the
batch into N with ``reduction='none'`` and reduce per example; convolution folds a batched input into N
and a batched weight into the groups (one grouped convolution for every example's filters); pooling folds
the batch into N.
"""
from ._batched import _BatchedBase, make, materialise
from ._batch_rules import elementwise, dim_op, _b
from ._dispatch import RULES, call, _size

__all__ = []

F_ = "nn.functional."
ACTIVATIONS = ("relu", "relu6", "gelu", "tanh", "sigmoid", "silu", "elu", "selu", "celu", "leaky_relu", "hardtanh",
               "softplus", "logsigmoid", "softsign", "mish", "hardswish", "hardsigmoid", "threshold", "tanhshrink",
               "softshrink", "hardshrink")


def _activation(qname, level, args, kwargs):
    if kwargs.get("inplace") or len(args) > 1 and args[-1] is True and qname.endswith(("relu", "silu", "elu")):
        return NotImplemented
    return elementwise(qname, level, args, kwargs)


def _linear(qname, level, args, kwargs):
    def arg(i, name, default=None):
        return args[i] if len(args) > i else kwargs.get(name, default)
    x, w, b = arg(0, "input"), arg(1, "weight"), arg(2, "bias")
    if not _b(x, level) and not _b(b, level) and not _b(w, level):
        return NotImplemented
    if not _b(w, level) and not _b(b, level):
        return make(call(qname, x._value, w, b), level)   # the batch is one more leading dim of the input
    out = call("matmul", x, w.mT) if w.dim() == 2 else NotImplemented
    if out is NotImplemented:
        return out
    return out if b is None else out + b


def _softmax(qname, level, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is None:
        n = x.dim()
        dim = 0 if n in (0, 1, 3) else 1  # PyTorch's legacy implicit choice, on the logical rank
        args = (x, dim) + tuple(args[2:])
        kwargs = {k: v for k, v in kwargs.items() if k != "dim"}
    return dim_op(("dim",), none=None)(qname, level, args, kwargs)


def _bind(qname, args, kwargs):
    import inspect
    from ._dispatch import ORIGINAL
    ba = inspect.signature(ORIGINAL[qname]).bind(*args, **kwargs)
    ba.apply_defaults()
    return ba.arguments


_ELEMENTWISE_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                       "binary_cross_entropy_with_logits", "soft_margin_loss", "kl_div", "poisson_nll_loss")


def _pointwise_loss(qname, level, args, kwargs):
    a = _bind(qname, args, kwargs)
    if a.get("size_average") is not None or a.get("reduce") is not None:
        return NotImplemented
    if any(isinstance(v, _BatchedBase) and k not in ("input", "target", "log_input") for k, v in a.items()):
        return NotImplemented
    red = a["reduction"]
    x, t = a["input"], a["target"]
    if tuple(x.shape) != tuple(t.shape):
        return NotImplemented
    size = _size(level)
    a["input"], a["target"] = materialise(x, level, size)._value, materialise(t, level, size)._value
    a["reduction"] = "none"
    out = call(qname, **a)
    if red == "none":
        return make(out, level)
    dims = tuple(range(1, out.dim()))
    if red == "sum":
        out = out.sum(dims) if dims else out
    elif red == "mean":
        out = out.mean(dims) if dims else out
    elif red == "batchmean":
        out = (out.sum(dims) if dims else out) / (x.shape[0] if x.dim() else 1)
    else:
        return NotImplemented
    return make(out, level)


def _class_loss(qname, level, args, kwargs):
    a = _bind(qname, args, kwargs)
    if a.get("size_average") is not None or a.get("reduce") is not None or _b(a.get("weight"), level):
        return NotImplemented
    red, x, t = a["reduction"], a["input"], a["target"]
    if red not in ("none", "sum", "mean") or x.dim() == 0:
        return NotImplemented
    probs = t.is_floating_point()
    if a.get("label_smoothing", 0.0) and red == "mean" and a["weight"] is not None:
        return NotImplemented
    size = _size(level)
    px, pt = materialise(x, level, size)._value, materialise(t, level, size)._value
    if x.dim() == 1:              # one example of C classes: the batch is N
        fx, ft = px, pt
    else:
        fx, ft = px.flatten(0, 1), pt.flatten(0, 1)
    a["input"], a["target"], a["reduction"] = fx, ft, "none"
    out = call(qname, **a)
    if x.dim() > 1:
        out = out.unflatten(0, (size, x.shape[0]))
    if red == "none":
        return make(out, level)
    dims = tuple(range(1, out.dim()))
    total = out.sum(dims) if dims else out
    if red == "sum":
        return make(total, level)
    if probs:
        return make(total / (out[0].numel() if dims else 1), level)
    w = a["weight"]
    valid = (pt != a["ignore_index"])
    per = valid.to(out.dtype) if w is None else call("where", valid, w[pt.clamp(0, w.shape[0] - 1)],
                                                     call("zeros_like", out))
    denom = per.sum(tuple(range(1, per.dim()))) if per.dim() > 1 else per
    return make(total / denom, level)


def _conv(qname, level, args, kwargs):
    from ._dispatch import ORIGINAL
    import inspect
    ba = inspect.signature(ORIGINAL[qname]).bind(*args, **kwargs)
    ba.apply_defaults()
    a = ba.arguments
    x, w, b, groups = a["input"], a["weight"], a.get("bias"), a["groups"]
    spatial = w.dim() - 2
    if isinstance(a.get("padding"), str) and a["padding"] not in ("valid", "same"):
        return NotImplemented
    size = _size(level)
    unbatched = x.dim() == spatial + 1
    if not _b(w, level) and not _b(b, level):
        px = x._value
        if unbatched:
            return make(call(qname, px, w, b, *list(a.values())[3:]), level)
        out = call(qname, px.flatten(0, 1), w, b, *list(a.values())[3:])
        return make(out.unflatten(0, (size, x.shape[0])), level)
    # per-example weights: fold the examples into the channels and the groups
    px = materialise(x, level, size)._value
    if unbatched:
        px = px.unsqueeze(1)
    px = px.movedim(0, 1).flatten(1, 2)                     # [N, B*C, ...]
    pw = materialise(w, level, size)._value.flatten(0, 1)   # [B*O, C/g, ...]
    pb = None if b is None else materialise(b, level, size)._value.flatten(0, 1)
    rest = list(a.values())[3:-1]
    out = call(qname, px, pw, pb, *rest, groups * size)     # [N, B*O, ...]
    out = out.unflatten(1, (size, w.shape[0])).movedim(1, 0)
    return make(out.squeeze(1) if unbatched else out, level)


def _pool(spatial):
    def rule(qname, level, args, kwargs):
        x = args[0]
        if not _b(x, level) or any(isinstance(v, _BatchedBase) for v in list(args[1:]) + list(kwargs.values())):
            return NotImplemented
        px = x._value
        if x.dim() == spatial + 1:
            return _wrap_all(call(qname, px, *args[1:], **kwargs), level)
        if x.dim() != spatial + 2:
            return NotImplemented
        out = call(qname, px.flatten(0, 1), *args[1:], **kwargs)
        def unfold(o):
            return o.unflatten(0, (px.shape[0], x.shape[0]))
        return _wrap_all(tuple(unfold(o) for o in out) if isinstance(out, tuple) else unfold(out), level)
    return rule


def _wrap_all(out, level):
    return tuple(make(o, level) for o in out) if isinstance(out, tuple) else make(out, level)


def _first_only(qname, level, args, kwargs):
    # layer_norm, embedding weight ...: batched first argument, the rest per-example-independent
    x = args[0]
    if not _b(x, level) or any(isinstance(v, _BatchedBase) for v in list(args[1:]) + list(kwargs.values())):
        return NotImplemented
    return make(call(qname, x._value, *args[1:], **kwargs), level)


def _layer_norm(qname, level, args, kwargs):
    # a batched (per-example) weight or bias: normalise with the rule, then scale and shift elementwise
    x, shape = args[0], args[1]
    weight = args[2] if len(args) > 2 else kwargs.get("weight")
    bias = args[3] if len(args) > 3 else kwargs.get("bias")
    eps = args[4] if len(args) > 4 else kwargs.get("eps", 1e-5)
    if not (_b(weight, level) or _b(bias, level)):
        return _first_only(qname, level, args, kwargs)
    out = call(qname, x, shape, None, None, eps)
    out = out if weight is None else out * weight
    return out if bias is None else out + bias


def _constant_pad(qname, level, args, kwargs):
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    return _first_only(qname, level, args, kwargs) if mode == "constant" else NotImplemented


def _one_hot(qname, level, args, kwargs):
    n = args[1] if len(args) > 1 else kwargs.get("num_classes", -1)
    return _first_only(qname, level, args, kwargs) if n > 0 else NotImplemented  # -1: the max of all examples


def _install():
    for n in ACTIVATIONS:
        RULES[F_ + n] = _activation
    RULES[F_ + "linear"] = _linear
    RULES[F_ + "softmax"] = RULES[F_ + "log_softmax"] = _softmax
    for n in _ELEMENTWISE_LOSSES:
        RULES[F_ + n] = _pointwise_loss
    RULES[F_ + "cross_entropy"] = RULES[F_ + "nll_loss"] = _class_loss
    for d in (1, 2, 3):
        RULES[F_ + f"conv{d}d"] = _conv
        for n in (f"max_pool{d}d", f"avg_pool{d}d", f"adaptive_avg_pool{d}d", f"adaptive_max_pool{d}d"):
            RULES[F_ + n] = _pool(d)
    RULES[F_ + "layer_norm"] = _layer_norm
    RULES[F_ + "softmin"] = _softmax
    RULES[F_ + "glu"] = dim_op(("dim",), none=None)
    RULES[F_ + "normalize"] = dim_op(("dim",), none=None)
    RULES[F_ + "pad"] = _constant_pad
    RULES[F_ + "one_hot"] = _one_hot
    RULES[F_ + "embedding"] = _first_only


_install()
