"""Batching rules that fold the vmapped dim into a dim the operator already maps over.

* batch/instance norm: into the channels (per-example statistics in training) or into N (eval, where the
  statistics are constants); group norm into N (its statistics are per sample already). Running statistics
  that a training call updates in place must be batched too, or the call raises PyTorch's error.
* scaled_dot_product_attention: the batch is one more leading dim (its leading dims broadcast);
  multi_head_attention_forward (nn.MultiheadAttention): into N when the projections are shared.
* the ``*_with_indices`` pools: into N (indices are per plane, so unchanged).
* the recurrent kernels (torch.lstm/gru/rnn_tanh/rnn_relu, what nn.LSTM/GRU/RNN call): into the RNN's batch
  when the weights are shared; per-example weights, or a packed sequence, take the per-example loop.
"""
from ._batched import _BatchedBase, make, materialise
from ._batch_rules import _b, _pad
from ._batch_rules_nn import F_, _bind, _pool
from ._dispatch import RULES, call, _size

__all__ = ["RNN_KERNELS"]

RNN_KERNELS = ("lstm", "gru", "rnn_tanh", "rnn_relu")

_STATS_MSG = ("Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated in "
              "place, were not batched.\nIf you are using a module and do not need eval mode, please set "
              "`track_running_stats` to be False.If you are using a prebuilt module and do not need eval mode, please "
              "see the functorch website for resources on how to patch your module to work with vmap")


def _into_channels(x, level, size):
    """Physical ``x`` [B, N, C, ...] as [N, B*C, ...] (one channel per example and channel)."""
    return materialise(x, level, size)._value.movedim(0, 1).flatten(1, 2)


def _channel_param(p, level, size):
    """A per-channel vector [C] (or batched [B, C]) for the folded channels [B*C]."""
    if p is None:
        return None
    if _b(p, level):
        return p._value.flatten(0, 1)
    return p.repeat(size)


def _from_channels(out, size):
    return out.unflatten(1, (size, out.shape[1] // size)).movedim(1, 0)


def _norm(qname, level, args, kwargs):
    a = _bind(qname, args, kwargs)
    x, rm, rv, w, b = a["input"], a["running_mean"], a["running_var"], a["weight"], a["bias"]
    rest = list(a.values())[5:]   # training (use_input_stats), momentum, eps
    if not _b(x, level) or x.dim() < 2 or any(isinstance(v, _BatchedBase) and v._level > level for v in a.values()):
        return NotImplemented   # only parameters batched, or batched at an outer level as well: the loop
    size = _size(level)
    if rest[0] and rm is not None and not (_b(rm, level) and _b(rv, level)):
        raise RuntimeError(_STATS_MSG)   # the in-place update of shared statistics would mix the examples
    if not rest[0] and not any(_b(p, level) for p in (rm, rv, w, b)):
        # eval: constants per channel, so the examples are more rows of N
        out = call(qname, x._value.flatten(0, 1), rm, rv, w, b, *rest)
        return make(out.unflatten(0, (size, x.shape[0])), level)
    # every example's channels are channels of their own (per-example statistics in training)
    stats = [_channel_param(p, level, size) for p in (rm, rv)]
    if rest[0] and rm is not None:
        stats = [s.clone() for s in stats]   # updated in place by the call, then written back per example
    out = call(qname, _into_channels(x, level, size), *stats, _channel_param(w, level, size),
               _channel_param(b, level, size), *rest)
    if rest[0] and rm is not None:
        for s, p in zip(stats, (rm, rv)):
            p._value.copy_(s.view(size, -1))
    return make(_from_channels(out, size), level)


def _group_norm(qname, level, args, kwargs):
    a = _bind(qname, args, kwargs)
    x, w, b = a["input"], a["weight"], a["bias"]
    if not _b(x, level) or x.dim() < 2 or any(isinstance(v, _BatchedBase) and v._level > level for v in a.values()):
        return NotImplemented
    own = _b(w, level) or _b(b, level)   # per-example affine parameters: applied after, elementwise
    out = call(qname, x._value.flatten(0, 1), a["num_groups"], None if own else w, None if own else b, a["eps"])
    out = make(out.unflatten(0, (_size(level), x.shape[0])), level)
    if own:
        shape = (x.shape[1],) + (1,) * (x.dim() - 2)
        out = out if w is None else out * w.reshape(shape)
        out = out if b is None else out + b.reshape(shape)
    return out


def _sdpa(qname, level, args, kwargs):
    a = _bind(qname, args, kwargs)
    q, k, v, mask = a["query"], a["key"], a["value"], a["attn_mask"]
    if a["dropout_p"] > 0.0 or any(isinstance(t, _BatchedBase) and t._level > level for t in (q, k, v, mask)):
        return NotImplemented
    tensors = [t for t in (q, k, v, mask) if t is not None]
    r = max(t.dim() for t in tensors)
    if a["enable_gqa"] and len({q.dim(), k.dim(), v.dim()}) != 1:
        return NotImplemented

    def phys(t):
        return _pad(t._value, r - t.dim()) if _b(t, level) else t
    if not _b(q, level):   # the output's batch comes from the query's leading dims
        q = materialise(q, level, _size(level))
    a["query"], a["key"], a["value"] = phys(q), phys(k), phys(v)
    if mask is not None:
        a["attn_mask"] = phys(mask)
    return make(call(qname, **a), level)


_MHA_INPUTS = ("query", "key", "value", "key_padding_mask", "attn_mask")


def _mha(qname, level, args, kwargs):
    a = _bind(qname, args, kwargs)
    if any(isinstance(v, _BatchedBase) and (k not in _MHA_INPUTS or v._level != level) for k, v in a.items()):
        return NotImplemented   # per-example projection weights, or batched at an outer level too: the loop
    if a["dropout_p"] > 0.0 and a["training"]:
        return NotImplemented   # random: the loop draws per example
    q = a["query"]
    size = _size(level)
    unbatched = q.dim() == 2   # (L, E) per example: the examples become the attention's batch N
    n = 1 if unbatched else q.shape[1]
    for k in ("query", "key", "value"):   # (L, N, E) -> (L, B*N, E)
        p = materialise(a[k], level, size)._value
        a[k] = p.movedim(0, 1) if unbatched else p.movedim(0, 1).flatten(1, 2)
    m = a["key_padding_mask"]   # (N, S) -> (B*N, S)
    if m is not None:
        p = materialise(m, level, size)._value
        a["key_padding_mask"] = p if unbatched else p.flatten(0, 1)
    m = a["attn_mask"]   # (L, S) is shared; (N*H, L, S) per example -> (B*N*H, L, S)
    if m is not None and (_b(m, level) or m.dim() == 3):
        p = materialise(m, level, size)._value
        a["attn_mask"] = p.unsqueeze(1).expand(size, n * a["num_heads"], *p.shape[1:]).flatten(0, 1) \
            if p.dim() == 3 else p.flatten(0, 1)
    out, weights = call(qname, **a)
    out = out.movedim(1, 0) if unbatched else out.unflatten(1, (size, n)).movedim(1, 0)
    if weights is not None:
        weights = weights.unflatten(0, (size, n)) if not unbatched else weights
    return make(out, level), (None if weights is None else make(weights, level))


def _rnn(qname, level, args, kwargs):
    if kwargs or len(args) != 9 or not isinstance(args[3], bool):
        return NotImplemented   # the packed overload (data, batch_sizes, ...): the loop
    x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
    if any(isinstance(p, _BatchedBase) for p in params) or x.dim() != 3:
        return NotImplemented   # per-example weights: the loop
    hs = hx if isinstance(hx, (tuple, list)) else (hx,)
    if any(isinstance(t, _BatchedBase) and t._level > level for t in (x,) + tuple(hs)):
        return NotImplemented
    size = _size(level)
    px = materialise(x, level, size)._value   # [B, T, N, I] (or [B, N, T, I] batch_first)
    n = x.shape[0] if batch_first else x.shape[1]
    fx = px.flatten(0, 1) if batch_first else px.movedim(0, 1).flatten(1, 2)

    def fold_h(h):   # [B, L*D, N, H] -> [L*D, B*N, H]
        return materialise(h, level, size)._value.movedim(0, 1).flatten(1, 2)
    fh = tuple(fold_h(h) for h in hs)
    out = call(qname, fx, fh if isinstance(hx, (tuple, list)) else fh[0], params, has_biases, num_layers, dropout,
               train, bidirectional, batch_first)
    y = out[0].unflatten(0, (size, n)) if batch_first else out[0].unflatten(1, (size, n)).movedim(1, 0)
    return (make(y, level),) + tuple(make(h.unflatten(1, (size, n)).movedim(1, 0), level) for h in out[1:])


def _install():
    RULES[F_ + "batch_norm"] = RULES[F_ + "instance_norm"] = _norm
    RULES[F_ + "group_norm"] = _group_norm
    RULES[F_ + "scaled_dot_product_attention"] = _sdpa
    RULES[F_ + "multi_head_attention_forward"] = _mha
    for d in (1, 2, 3):
        RULES[F_ + f"max_pool{d}d_with_indices"] = RULES[F_ + f"adaptive_max_pool{d}d_with_indices"] = _pool(d)
    for n in RNN_KERNELS:
        RULES[n] = _rnn


_install()
