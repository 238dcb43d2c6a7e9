"""Module full backward hooks: identity nodes around a module's inputs and outputs that see their gradients.

The output node runs first during backward: it records ``grad_output`` (after the backward pre-hooks,
which may replace it). The input node runs once every input gradient is known and calls
``hook(module, grad_input, grad_output)``; a returned tuple replaces ``grad_input``.
"""
import warnings

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import state as _grad_state
from ...tensor import Tensor


class _Identity(Function):
    @staticmethod
    def forward(ctx, *xs):
        return xs if len(xs) > 1 else xs[0]

    @staticmethod
    def backward(ctx, *grads):
        return grads if len(grads) > 1 else grads[0]


def _fill_missing(grads):
    # A gradient that never arrived reaches node pre-hooks as an empty object array: report it as None.
    out = []
    for g in grads:
        out.append(None if g is None or (isinstance(g, Tensor) and g._data.dtype == object) else g)
    return out


class BackwardHook:
    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.n_args = 0
        self.input_positions = []
        self.grad_outputs = None

    def setup_input_hook(self, args):
        self.n_args = len(args)
        if not _grad_state.enabled:
            return args
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.input_positions = pos
        self.input_meta = [(args[i]._data.shape, args[i]._data.dtype) for i in pos]
        if not pos or not self.hooks:
            return args
        outs = _Identity.apply(*[args[i] for i in pos])
        outs = outs if isinstance(outs, tuple) else (outs,)
        outs[0].grad_fn.register_prehook(self._input_hook)
        args = list(args)
        for i, o in zip(pos, outs):
            args[i] = o
        return tuple(args)

    def _input_hook(self, grads):
        grads = _fill_missing(grads)
        grad_input = [None] * self.n_args
        for i, g in zip(self.input_positions, grads):
            grad_input[i] = g
        for hook in list(self.hooks.values()):
            res = hook(self.module, tuple(grad_input), self.grad_outputs)
            if res is not None:
                res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                if len(res) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(res)}, "
                                       f"but expected {len(grad_input)}")
                grad_input = list(res)
        new = [grad_input[i] for i in self.input_positions]
        return tuple(g if g is not None else Tensor._wrap(np.zeros(*meta)) for g, meta in zip(new, self.input_meta))

    def setup_output_hook(self, result):
        if not _grad_state.enabled:
            return result
        single = isinstance(result, Tensor)
        items = [result] if single else list(result) if isinstance(result, (tuple, list)) else None
        if items is None:
            return result
        pos = [i for i, r in enumerate(items) if isinstance(r, Tensor) and r.requires_grad]
        if not pos:
            return result
        outs = _Identity.apply(*[items[i] for i in pos])
        outs = outs if isinstance(outs, tuple) else (outs,)
        outs[0].grad_fn.register_prehook(self._output_hook)
        for i, o in zip(pos, outs):
            items[i] = o
        return items[0] if single else type(result)(items)

    def _output_hook(self, grads):
        grads = tuple(_fill_missing(grads))
        for hook in list(self.pre_hooks.values()):
            res = hook(self.module, grads)
            if res is not None:
                grads = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        self.grad_outputs = grads
        if self.hooks and not self.input_positions:
            # No input needs a gradient: the hook fires now, with grad_input all None (as PyTorch does).
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            for hook in list(self.hooks.values()):
                hook(self.module, (None,) * max(self.n_args, 1), grads)
        return grads
