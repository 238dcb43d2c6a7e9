"""Batching rules of the tensor operators, by family, filled into _dispatch.RULES from the op registry.

A rule gets ``(qname, level, args, kwargs)`` and works on physical tensors (batch dim 0): elementwise
operators align logical ranks by inserting size-1 dims after the batch dim; operators with a ``dim``
shift it past the batch dim; movement, indexing and products have a rule each. A rule answers
``NotImplemented`` for argument forms it does not cover, and the per-example loop takes over.
"""
import inspect

from ..tensor import Tensor
from ._batched import _BatchedBase, make, materialise
from ._dispatch import RULES, ORIGINAL, call, is_inplace, _size

__all__ = []

ELEMENTWISE_FAMILIES = ("arith", "unary", "pointwise", "compare", "special", "special_bessel", "special_poly",
                        "special_gamma", "pointwise_extra")
NOT_ELEMENTWISE = {"allclose", "equal", "isin", "renorm", "where", "nan_to_num"}


def _b(x, level):
    return isinstance(x, _BatchedBase) and x._level == level


def _rank(x, level):
    return x._value.dim() - 1 if _b(x, level) else x.dim()


def _pad(p, n):
    """Physical ``p`` (batch dim 0) with ``n`` size-1 dims after the batch dim."""
    for _ in range(n):
        p = p.unsqueeze(1)
    return p


def _wrap(out, level):
    if isinstance(out, Tensor):
        return make(out, level)
    if isinstance(out, tuple) and all(isinstance(o, Tensor) for o in out):
        fields = [make(o, level) for o in out]
        return type(out)(*fields) if hasattr(out, "_fields") else tuple(fields)
    if isinstance(out, list) and all(isinstance(o, Tensor) for o in out):
        return [make(o, level) for o in out]
    return out


def _base(qname):
    return qname[7:] if qname.startswith("Tensor.") else qname


# -- elementwise -------------------------------------------------------------------------------------
def elementwise(qname, level, args, kwargs):
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
    if any(type(a) in (list, tuple) for a in args):
        return NotImplemented
    r = max(_rank(t, level) for t in tensors)
    cast = _zero_dim_casts(tensors, level) if r else {}

    def phys(a):
        if not _b(a, level):
            return a
        return _pad(cast[id(a)] if id(a) in cast else a._value, r - _rank(a, level))
    inplace = is_inplace(qname)
    if inplace:
        if not _b(args[0], level):
            raise RuntimeError(f"vmap: {_base(qname)}(self, *extra_args) is not possible because there exists a "
                               "Tensor `other` in extra_args that has more elements than `self`. This happened due "
                               "to `other` being vmapped over but `self` not being vmapped over in a vmap. Please "
                               "try to use out-of-place operators instead of " + _base(qname) + ".")
        if _rank(args[0], level) < r:
            return NotImplemented
    out = call(qname, *[phys(a) for a in args], **{k: phys(v) for k, v in kwargs.items()})
    return args[0] if inplace else _wrap(out, level)


def _zero_dim_casts(tensors, level):
    """Physical operands of one-number examples, cast as PyTorch's promotion treats 0-dim tensors: a 0-dim
    operand of the same category as a dimensioned one does not widen the result (physically it has dims)."""
    from ..dtypes import bool as bool_, promote_types, result_type
    zero = [t for t in tensors if _b(t, level) and _rank(t, level) == 0 and t.dtype != bool_]
    dimensioned = [t.dtype for t in tensors if _rank(t, level) > 0 and t.dtype != bool_]
    if not zero or not dimensioned:
        return {}
    from ..factories import zeros
    target = dimensioned[0]
    for dt in dimensioned[1:]:
        target = promote_types(target, dt)
    cast = {}
    for t in zero:
        want = result_type(zeros((), dtype=t.dtype), zeros((1,), dtype=target))
        if want != t.dtype:
            cast[id(t)] = t._value.to(want)
    return cast


# -- operators with dims -----------------------------------------------------------------------------
_SIGS = {}


def _signature(qname):
    sig = _SIGS.get(qname)
    if sig is None:
        from ..ops import _registry
        rec = _registry.OPS.get(_base(qname))
        fn = rec.fn if rec is not None else ORIGINAL[qname]
        sig = _SIGS[qname] = inspect.signature(getattr(fn, "__wrapped__", fn))
    return sig


def _shift(d, n):
    """Physical dim of logical ``d`` in rank ``n`` (negative dims need no shift); None when out of range."""
    if isinstance(d, bool) or not isinstance(d, int):
        return None
    if d < 0:
        return d if d >= -n else None
    return d + 1 if d < n else None


def dim_op(params, extra=0, none="flatten"):
    """Rule of an operator whose only batched argument is its first and whose ``params`` are dims.
    ``extra``: how many more dims than the input's the dims range over (unsqueeze: 1); ``none``: what
    ``dim=None`` means ("flatten": every logical dim; "keep": nothing to shift; None: no rule)."""
    def rule(qname, level, args, kwargs):
        if not _b(args[0], level) or any(isinstance(a, _BatchedBase) for a in list(args[1:]) + list(kwargs.values())):
            return NotImplemented
        try:
            ba = _signature(qname).bind(*args, **kwargs)
        except TypeError:
            return NotImplemented
        ba.apply_defaults()   # a default dim (flatten's start_dim=0, unbind's dim=0) is shifted too
        first = next(iter(ba.arguments))
        x = args[0]._value
        n = x.dim() - 1 + extra
        flatten, names = False, params
        var = next((p.name for p in ba.signature.parameters.values() if p.kind is p.VAR_POSITIONAL), None)
        if var and ba.arguments.get(var) and (params[0] not in ba.arguments or ba.arguments[params[0]] is None):
            given = ba.arguments[var]   # flip(x, 0, 1) / flip(x, [0, 1]): the dims as positional arguments
            s = [_shift(e, n) for e in (given[0] if len(given) == 1 and isinstance(given[0], (tuple, list)) else given)]
            if None in s:
                return NotImplemented
            ba.arguments[var] = (s,) if len(given) == 1 else tuple(s)
            names = ()
        for p in names:
            if p not in ba.arguments:
                if none == "flatten" and p == params[0]:
                    flatten = True
                continue
            d = ba.arguments[p]
            if d is not None and x.dim() == 1 and not extra:
                return NotImplemented   # a 0-dim example: dims 0 / -1 name the scalar itself
            if d is None:
                if none == "flatten":
                    flatten = True
                elif none is None:
                    return NotImplemented
                continue
            if isinstance(d, (tuple, list)):
                s = [_shift(e, n) for e in d]
                if None in s:
                    return NotImplemented
                ba.arguments[p] = type(d)(s)
            else:
                s = _shift(d, n)
                if s is None:
                    return NotImplemented
                ba.arguments[p] = s
        if flatten:
            B = x.shape[0]
            ba.arguments[first] = x.reshape(B, -1)
            ba.arguments[params[0]] = 1
            out = call(qname, *ba.args, **ba.kwargs)
            if isinstance(out, tuple) and hasattr(out, "_fields") and _base(qname) in ("max", "min", "median",
                                                                                         "nanmedian"):
                out = out[0]
            if ba.arguments.get("keepdim"):
                out = _wrap(out, level)
                return out if not isinstance(out, _BatchedBase) else make(out._value.reshape(B, *[1] * (n - extra)),
                                                                          level)
            return _wrap(out, level)
        ba.arguments[first] = x
        return _wrap(call(qname, *ba.args, **ba.kwargs), level)
    return rule


REDUCE = {"sum", "nansum", "mean", "nanmean", "prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin",
          "var", "std", "var_mean", "std_mean", "logsumexp", "norm", "all", "any", "count_nonzero", "median",
          "nanmedian"}
WITH_DIM = {"cumsum", "cumprod", "logcumsumexp", "cummax", "cummin", "softmax", "log_softmax", "sort", "argsort",
            "topk", "kthvalue", "mode", "flip", "select", "narrow", "split", "chunk", "unbind", "tensor_split",
            "transpose", "swapaxes", "swapdims", "movedim", "moveaxis", "diff", "index_select", "diagonal",
            "squeeze", "flatten", "unflatten", "roll", "diag_embed", "tril", "triu", "repeat_interleave",
            "cross", "rot90", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"}
_DIM_PARAMS = {"transpose": ("dim0", "dim1"), "swapaxes": ("dim0", "dim1"), "swapdims": ("dim0", "dim1"),
               "movedim": ("source", "destination"), "moveaxis": ("source", "destination"), "flip": ("dims",),
               "roll": ("dims",), "diagonal": ("dim1", "dim2"), "flatten": ("start_dim", "end_dim"),
               "diag_embed": ("dim1", "dim2"), "rot90": ("dims",)}
_NONE_MEANS = {"squeeze": "squeeze", "roll": None, "repeat_interleave": None, "cross": None, "split": None,
               "chunk": None, "flip": None, "softmax": None, "log_softmax": None, "flatten": "keep"}


# -- movement ---------------------------------------------------------------------------------------
def _squeeze(qname, level, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is not None or len(args) > 2 or not _b(x, level):
        return dim_op(("dim",), none=None)(qname, level, args, kwargs) if dim is not None else NotImplemented
    if qname.endswith("_"):
        return NotImplemented
    p = x._value
    return make(p.reshape(p.shape[0], *[s for s in p.shape[1:] if s != 1]), level)


def _sizes(args):
    rest = args[1:]
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)) or len(rest) == 1 and not isinstance(rest[0], int):
        return tuple(rest[0])
    return tuple(rest)


def _reshape(qname, level, args, kwargs):
    x = args[0]
    if kwargs or not _b(x, level) or len(args) < 2:
        return NotImplemented
    shape = _sizes(args)
    if not all(isinstance(s, int) for s in shape):
        return NotImplemented
    p = x._value
    return make(call("Tensor.reshape", p, (p.shape[0],) + shape), level)


def _view(qname, level, args, kwargs):
    if len(args) == 2 and not isinstance(args[1], (int, tuple, list)) and not hasattr(args[1], "__len__"):
        return NotImplemented    # view(dtype)
    return _reshape(qname, level, args, kwargs)


def _like_shape(fn):
    def rule(qname, level, args, kwargs):
        x, other = args[0], args[1]
        if kwargs or len(args) != 2:
            return NotImplemented
        return call(fn, x, tuple(other.shape)) if _b(x, level) else NotImplemented
    return rule


def _permute(qname, level, args, kwargs):
    x = args[0]
    if not _b(x, level) or kwargs:
        return NotImplemented
    dims = _sizes(args)
    n = x.dim()
    s = [_shift(d, n) for d in dims]
    if None in s or len(s) != n:
        return NotImplemented
    return make(call("Tensor.permute", x._value, 0, *[d if d > 0 else d + n + 1 for d in s]), level)


def _unsqueeze(qname, level, args, kwargs):
    if qname.endswith("_"):
        return NotImplemented
    return dim_op(("dim",), extra=1, none=None)(qname, level, args, kwargs)


def _t(qname, level, args, kwargs):
    x = args[0]
    if not _b(x, level) or x.dim() > 2 or qname.endswith("_"):
        return NotImplemented
    return x if x.dim() < 2 else make(x._value.transpose(1, 2), level)


def _T(qname, level, args, kwargs):
    x = args[0]
    if not _b(x, level):
        return NotImplemented
    n = x.dim()
    return make(x._value.permute(0, *range(n, 0, -1)), level)


def _mT(qname, level, args, kwargs):
    x = args[0]
    if not _b(x, level) or x.dim() < 2:
        return NotImplemented
    return make(x._value.transpose(-1, -2), level)


def _expand(qname, level, args, kwargs):
    x = args[0]
    if kwargs or not _b(x, level):
        return NotImplemented
    sizes = _sizes(args)
    n, r = len(sizes), x.dim()
    if n < r or not all(isinstance(s, int) for s in sizes):
        return NotImplemented
    p = _pad(x._value, n - r)
    return make(p.expand(p.shape[0], *sizes), level)


def _repeat(qname, level, args, kwargs):
    x = args[0]
    if kwargs or not _b(x, level):
        return NotImplemented
    sizes = _sizes(args)
    n, r = len(sizes), x.dim()
    if n < r:
        return NotImplemented
    return make(_pad(x._value, n - r).repeat(1, *sizes), level)


def _seq_rule(extra):
    def rule(qname, level, args, kwargs):
        tensors = args[0]
        if type(tensors) not in (list, tuple) or not tensors or any(not isinstance(t, Tensor) for t in tensors):
            return NotImplemented
        dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
        if len(args) > 2 or set(kwargs) - {"dim"}:
            return NotImplemented
        ranks = {t.dim() for t in tensors}
        if len(ranks) != 1:
            return NotImplemented
        d = _shift(dim, ranks.pop() + extra)
        if d is None:
            return NotImplemented
        size = _size(level)
        phys = [materialise(t, level, size)._value for t in tensors]
        return make(call(_base(qname), phys, d), level)
    return rule


def _getitem(qname, level, args, kwargs):
    x, key = args
    if not _b(x, level):
        return NotImplemented
    key = key if isinstance(key, tuple) else (key,)
    adv = [i for i, k in enumerate(key) if isinstance(k, (Tensor, list)) or
           (k is not None and k is not Ellipsis and not isinstance(k, (int, slice)))]
    if any(isinstance(key[i], _BatchedBase) for i in adv):
        return NotImplemented
    if any(isinstance(k, bool) for k in key):
        return NotImplemented
    if adv and adv != list(range(adv[0], adv[-1] + 1)):
        return NotImplemented   # separated advanced indices put their dims first, before the batch dim
    return make(call("Tensor.__getitem__", x._value, (slice(None),) + key), level)


def _setitem(qname, level, args, kwargs):
    x, key, value = args
    if not _b(x, level):
        raise RuntimeError("vmap: index_put_(self, *extra_args) is not possible because there exists a Tensor "
                           "`other` in extra_args that has more elements than `self`. This happened due to `other` "
                           "being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
                           "out-of-place operators instead of index_put_.")
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (Tensor, list, bool)) for k in key):
        return NotImplemented
    target = x[key if len(key) != 1 else key[0]]
    if _b(value, level):
        value = _pad(value._value, target.dim() - value.dim())
    call("Tensor.__setitem__", x._value, (slice(None),) + key, value)
    return None


def _index_select(qname, level, args, kwargs):
    index = args[2] if len(args) > 2 else kwargs.get("index")
    if not isinstance(index, _BatchedBase):
        return dim_op(("dim",), none=None)(qname, level, args, kwargs)
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if index._level != level or isinstance(x, _BatchedBase) and x._level > level or index.dim() > 1 or x.dim() == 0:
        return NotImplemented
    d = _shift(dim, x.dim())
    if d is None:
        return NotImplemented
    # a per-example index: a gather whose index runs along dim and is broadcast over the other dims
    size = _size(level)
    px, pi = materialise(x, level, size)._value, index._value.reshape(size, -1)
    shape = [size] + [1] * x.dim()
    d = d % px.dim()
    shape[d] = pi.shape[1]
    want = list(px.shape)
    want[d] = pi.shape[1]
    return make(call("gather", px, d, pi.reshape(shape).expand(want)), level)


def _gather(qname, level, args, kwargs):
    if kwargs or len(args) != 3:
        return NotImplemented
    x, dim, index = args
    if _base(qname) == "take_along_dim":
        x, index, dim = args
        if dim is None:
            return NotImplemented
    if x.dim() != index.dim() or x.dim() == 0:
        return NotImplemented
    d = _shift(dim, x.dim())
    if d is None:
        return NotImplemented
    size = _size(level)
    x, index = materialise(x, level, size)._value, materialise(index, level, size)._value
    return make(call(_base(qname), *((x, index, d) if _base(qname) == "take_along_dim" else (x, d, index))), level)


# -- products -------------------------------------------------------------------------------------------
_RANKS = {"mm": (2, 2), "bmm": (3, 3), "mv": (2, 1), "dot": (1, 1)}


def _matmul(qname, level, args, kwargs):
    if kwargs or len(args) != 2:
        return NotImplemented
    a, b = args
    if qname == "Tensor.__rmatmul__":
        a, b = b, a
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return NotImplemented
    ra, rb = a.dim(), b.dim()
    want = _RANKS.get(_base(qname))
    if want is not None and (ra, rb) != want or ra == 0 or rb == 0 or a.dtype != b.dtype:
        return NotImplemented
    pa = a._value.unsqueeze(-2) if _b(a, level) and ra == 1 else (a.unsqueeze(-2) if ra == 1 else a)
    pb = b._value.unsqueeze(-1) if _b(b, level) and rb == 1 else (b.unsqueeze(-1) if rb == 1 else b)
    ra2, rb2 = max(ra, 2), max(rb, 2)
    r = max(ra2, rb2)
    if _b(a, level):
        pa = _pad(pa if ra == 1 else a._value, r - ra2)
    if _b(b, level):
        pb = _pad(pb if rb == 1 else b._value, r - rb2)
    out = call("matmul", pa, pb)
    if ra == 1:
        out = out.squeeze(-2)
    if rb == 1:
        out = out.squeeze(-1)
    return make(out, level)


def _outer(qname, level, args, kwargs):
    a, b = args
    if kwargs or a.dim() != 1 or b.dim() != 1:
        return NotImplemented
    return call("mul", a.unsqueeze(-1), b.unsqueeze(-2))


def _einsum(qname, level, args, kwargs):
    eq, ops = args[0], args[1:]
    if kwargs or not isinstance(eq, str) or "..." in eq:
        return NotImplemented
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    eq = eq.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        return NotImplemented
    if "->" not in eq:
        letters = "".join(terms)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    free = next((c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in eq), None)
    if free is None:
        return NotImplemented
    new_terms = [free + t if _b(o, level) else t for t, o in zip(terms, ops)]
    phys = [o._value if _b(o, level) else o for o in ops]
    return make(call("einsum", ",".join(new_terms) + "->" + free + rhs, *phys), level)


def _passthrough(qname, level, args, kwargs):
    # dtype casts, clone, contiguous, detach: per-element, shape-preserving, no other batched argument
    x = args[0]
    if not _b(x, level) or any(isinstance(a, _BatchedBase) for a in list(args[1:]) + list(kwargs.values())):
        return NotImplemented
    return make(call(qname, x._value, *args[1:], **kwargs), level)


def _type_as(qname, level, args, kwargs):
    return call("Tensor.to", args[0], args[1].dtype)


def _like(qname, level, args, kwargs):
    # zeros_like(batched) ...: the physical shape carries the batch; random ones draw per example
    x = args[0]
    if not _b(x, level) or len(args) > 1 and isinstance(args[1], _BatchedBase):
        return NotImplemented
    return make(call(qname, x._value, *args[1:], **kwargs), level)


def _materialised_first(qname, level, args, kwargs):
    # masked_fill: the result has self's shape, so a batched mask needs a batched self
    return elementwise(qname, level, (materialise(args[0], level, _size(level)),) + tuple(args[1:]), kwargs)


def _scatter(qname, level, args, kwargs):
    # scatter(input, dim, index, src), index_add(input, dim, index, source): every tensor batched, dim shifted
    if len(args) < 4 or kwargs.get("out") is not None or is_inplace(qname):
        return NotImplemented
    x, dim, index, src = args[:4]
    if _base(qname) == "index_add" and _b(index, level):
        return NotImplemented
    d = _shift(dim, x.dim())
    if d is None or x.dim() == 0:
        return NotImplemented
    size = _size(level)
    px = materialise(x, level, size)._value
    pi = index if _base(qname) == "index_add" else materialise(index, level, size)._value
    ps = materialise(src, level, size)._value if isinstance(src, Tensor) else src
    return make(call(qname, px, d, pi, ps, *args[4:], **kwargs), level)


def _take(qname, level, args, kwargs):
    x, index = args
    if kwargs or not _b(x, level) or _b(index, level):
        return NotImplemented
    p = x._value
    return make(call("Tensor.__getitem__", p.reshape(p.shape[0], -1), (slice(None), index)), level)


def _copy_of(view):
    def rule(qname, level, args, kwargs):
        out = call(view, *args, **kwargs)
        return type(out)(o.clone() for o in out) if isinstance(out, (tuple, list)) else out.clone()
    return rule


def _addmm(product):
    def rule(qname, level, args, kwargs):
        if len(args) != 3 or set(kwargs) - {"beta", "alpha"} or is_inplace(qname):
            return NotImplemented
        beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
        out = call(product, args[1], args[2])
        if _base(qname) == "addbmm":
            out = out.sum(0)
        out = out if alpha == 1 else out * alpha
        return out if beta == 0 else call("add", args[0] if beta == 1 else args[0] * beta, out)
    return rule


def _flip_one(dim):
    def rule(qname, level, args, kwargs):
        return NotImplemented if kwargs or len(args) != 1 else call("flip", args[0], [dim])
    return rule


def _trace(qname, level, args, kwargs):
    x = args[0]
    return NotImplemented if kwargs or x.dim() != 2 else x.diagonal().sum(-1)


# -- the tables -------------------------------------------------------------------------------------------
def _register(name, rule, methods=True):
    from ..ops import _registry
    rec = _registry.OPS.get(name)
    names = {name} if rec is None else set(rec.names)
    for n in names:
        RULES[n] = rule
    if methods:
        ms = rec.methods if rec is not None else (name,)
        for m in ms:
            RULES["Tensor." + m] = rule


def _install():
    from ..ops import _registry
    for rec in _registry.RECORDS:
        if rec.family in ELEMENTWISE_FAMILIES and rec.name not in NOT_ELEMENTWISE:
            _register(rec.name, elementwise)
            for m in rec.inplace_methods():
                RULES["Tensor." + m] = elementwise
    for name in ("where", "nan_to_num"):
        _register(name, elementwise)
    for dunder in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift",
                   "eq", "ne", "lt", "le", "gt", "ge"):
        RULES[f"Tensor.__{dunder}__"] = elementwise
        RULES[f"Tensor.__r{dunder}__"] = elementwise
        RULES[f"Tensor.__i{dunder}__"] = elementwise
    for dunder in ("neg", "abs", "invert", "pos"):
        RULES[f"Tensor.__{dunder}__"] = elementwise
    for name in REDUCE:
        _register(name, dim_op(("dim",)))
    for name in WITH_DIM:
        params = _DIM_PARAMS.get(name, ("dim",))
        none = _NONE_MEANS.get(name, "keep")
        _register(name, _squeeze if none == "squeeze" else dim_op(params, none=none))
    for name, rule in (("reshape", _reshape), ("view", _view), ("permute", _permute), ("unsqueeze", _unsqueeze),
                       ("t", _t), ("expand", _expand), ("repeat", _repeat), ("index_select", _index_select),
                       ("gather", _gather), ("take_along_dim", _gather), ("matmul", _matmul), ("mm", _matmul),
                       ("bmm", _matmul), ("mv", _matmul), ("dot", _matmul), ("outer", _outer), ("einsum", _einsum),
                       ("clone", _passthrough), ("contiguous", _passthrough), ("detach", _passthrough),
                       ("reshape_as", _like_shape("Tensor.reshape")), ("view_as", _like_shape("Tensor.reshape")),
                       ("expand_as", _like_shape("Tensor.expand")), ("cat", _seq_rule(0)), ("stack", _seq_rule(1))):
        _register(name, rule)
    RULES["concat"] = RULES["concatenate"] = RULES["cat"]
    for name, rule in (("masked_fill", _materialised_first), ("scatter", _scatter), ("scatter_add", _scatter),
                       ("index_add", _scatter), ("scatter_reduce", _scatter), ("take", _take),
                       ("addmm", _addmm("mm")), ("addmv", _addmm("mv")), ("addr", _addmm("outer")),
                       ("baddbmm", _addmm("bmm")), ("addbmm", _addmm("bmm")), ("fliplr", _flip_one(1)),
                       ("flipud", _flip_one(0)), ("trace", _trace)):
        _register(name, rule)
    # matrix functions work on the last two dims: the batch is one more leading dim
    for name in ("inverse", "det", "slogdet", "logdet", "cholesky", "cholesky_inverse", "matrix_exp", "pinverse",
                 "matrix_power", "qr", "svd"):
        _register(name, _passthrough)
    from ..ops import _registry
    for rec in _registry.RECORDS:
        view = rec.name[:-5] if rec.name.endswith("_copy") else None
        if view in RULES and view not in ("alias", "detach"):
            _register(rec.name, _copy_of(view), methods=False)
    # torch.special.<name>: the same elementwise operators under their special spellings
    from .. import special
    for n in dir(special):
        rec = _registry.OPS.get(n) or _registry.OPS.get(n.replace("special_", ""))
        if rec is not None and RULES.get(rec.name) is elementwise:
            RULES["special." + n] = elementwise
    for m in ("unsqueeze_", "squeeze_", "t_", "transpose_"):
        RULES.pop("Tensor." + m, None)
    RULES["Tensor.__matmul__"] = RULES["Tensor.__rmatmul__"] = _matmul
    RULES["Tensor.__getitem__"], RULES["Tensor.__setitem__"] = _getitem, _setitem
    RULES["Tensor.T"], RULES["Tensor.mT"] = _T, _mT
    for m in ("to", "type", "float", "double", "half", "long", "int", "short", "char", "byte", "bool", "cpu", "cuda"):
        RULES["Tensor." + m] = _passthrough
    RULES["Tensor.type_as"] = _type_as
    for n in ("zeros_like", "ones_like", "full_like", "empty_like"):
        RULES[n] = _like


_install()
