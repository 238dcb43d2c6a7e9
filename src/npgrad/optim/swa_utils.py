"""Stochastic weight averaging and exponential moving averages of a model's weights (torch.optim.swa_utils).

``AveragedModel`` keeps a copy of a model whose parameters (and, with ``use_buffers``, buffers) are averaged
over calls to ``update_parameters``; ``SWALR`` anneals each group's lr to a constant ``swa_lr``; ``update_bn``
recomputes BatchNorm statistics for averaged weights with one pass over the data.
"""
import itertools
import math
import warnings
from copy import deepcopy

import numpy as np

from .. import dtypes as _dt
from .._convert import tensor as _tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..ops.inplace import bump_version
from ..tensor import Tensor
from . import _ops
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay):
    # written as two comparisons so that a NaN decay passes, as it does in PyTorch
    low, high = decay < 0.0, decay > 1.0
    if low or high:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _assign(target, values):
    """Write ``values`` into the tensor ``target`` in place, casting (a float average into an integer buffer
    truncates toward zero, as PyTorch's copy_ does)."""
    arr = target._data
    arr[...] = values.astype(arr.dtype) if isinstance(values, np.ndarray) else values
    bump_version(target)


def _lerp_all(averaged, current, weight):
    for avg, cur in zip(averaged, current):
        arr = avg._data
        _ops.lerp_(arr, cur._data, weight, np.empty_like(arr))
        bump_version(avg)


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place ``multi_avg_fn``: ``ema = decay * ema + (1 - decay) * current`` for a list of tensors."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            _lerp_all(ema_param_list, current_param_list, 1 - decay)
        else:
            ftype = _dt.get_default_dtype().np  # integer tensors times a float give the default float dtype
            for ema, cur in zip(ema_param_list, current_param_list):
                _assign(ema, ema._data.astype(ftype) * decay + cur._data.astype(ftype) * (1 - decay))
    return ema_update


def _reciprocal_count(num_averaged):
    # AveragedModel passes n as a 0-d integer tensor: 1 / (n + 1) is then a division in the default float dtype
    data = getattr(num_averaged, "_data", None)
    if data is None:
        return 1 / (num_averaged + 1)
    ftype = _dt.get_default_dtype().np.type
    return ftype(1) / ftype(int(data) + 1)


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def get_swa_multi_avg_fn():
    """An in-place ``multi_avg_fn``: the running mean ``avg += (current - avg) / (n + 1)``."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            _lerp_all(averaged_param_list, current_param_list, float(_reciprocal_count(num_averaged)))
        elif isinstance(num_averaged, Tensor):  # PyTorch's integer path ends in addcdiv, which refuses integers
            raise RuntimeError(_INTEGER_ADDCDIV)
        else:
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An ``avg_fn`` returning ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)
    fresh = 1 - decay

    def ema_update(ema_param, current_param, num_averaged):
        return ema_param * decay + current_param * fresh
    return ema_update


def get_swa_avg_fn():
    """An ``avg_fn`` returning the running mean ``avg + (current - avg) / (n + 1)``."""

    def swa_update(averaged_param, current_param, num_averaged):
        step = (current_param - averaged_param) / (num_averaged + 1)
        return step + averaged_param
    return swa_update


def _swa_default(averaged, current, n_averaged):
    """PyTorch's CPU default: ``avg + (current - avg) / (n + 1)``, n an int64 tensor, so an integer
    difference is divided in the default float dtype and truncated back."""
    count = int(n_averaged._data) + 1
    for avg, cur in zip(averaged, current):
        diff = cur._data - avg._data
        if diff.dtype.kind not in "fc":
            diff = diff.astype(_dt.get_default_dtype().np)
        _assign(avg, avg._data + diff / diff.dtype.type(count))


class AveragedModel(Module):
    """A copy of ``model`` holding the average of the weights passed to ``update_parameters``.

    The average is the equal-weight running mean (SWA) unless ``avg_fn`` (per tensor, returning the new
    average) or ``multi_avg_fn`` (per list of tensors, in place) says otherwise; ``n_averaged`` counts updates.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if sum(fn is not None for fn in (avg_fn, multi_avg_fn)) == 2:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        copy = deepcopy(model)
        self.module = copy if device is None else copy.to(device)
        self.register_buffer("n_averaged", _tensor(0, dtype=_dt.int64, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *inputs, **options):
        return self.module(*inputs, **options)

    def update_parameters(self, model):
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        pairs = list(zip(mine, theirs))
        averaged = [a.detach() for a, _ in pairs]
        current = [m.detach() for _, m in pairs]
        n = int(self.n_averaged._data)
        if n == 0:
            for avg, cur in zip(averaged, current):
                _assign(avg, cur._data)
        else:
            by_dtype = {}  # PyTorch hands multi_avg_fn one list per (device, dtype)
            for avg, cur in zip(averaged, current):
                lists = by_dtype.setdefault(avg._data.dtype.str, ([], []))
                lists[0].append(avg)
                lists[1].append(cur)
            if self.multi_avg_fn is not None:
                for avgs, curs in by_dtype.values():
                    self.multi_avg_fn(avgs, curs, self.n_averaged)
            elif self.avg_fn is None:
                for avgs, curs in by_dtype.values():
                    _swa_default(avgs, curs, self.n_averaged)
            else:
                for avg, cur in zip(averaged, current):
                    out = self.avg_fn(avg, cur, self.n_averaged)
                    _assign(avg, out._data if isinstance(out, Tensor) else np.asarray(out))
        if not self.use_buffers:
            for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                _assign(b_avg, b_model._data)
        self.n_averaged._data += 1
        bump_version(self.n_averaged)


def _first_item(batch):
    return batch[0] if isinstance(batch, (list, tuple)) else batch


def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics as plain averages over one pass of ``loader``
    (batches, or tuples/lists whose first item is the input)."""
    norms = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    saved = []
    for norm in norms:
        norm.reset_running_stats()
        saved.append(norm.momentum)
    if not norms:
        return
    was_training = model.training
    model.train()
    for norm in norms:
        norm.momentum = None  # a cumulative average over the batches
    with no_grad():
        for batch in map(_first_item, loader):
            model(batch if device is None else batch.to(device))
    for norm, momentum in zip(norms, saved):
        norm.momentum = momentum
    model.train(was_training)


_ANNEALS = {"cos": "_cosine_anneal", "linear": "_linear_anneal"}  # anneal_strategy -> SWALR's method


def _reanneal(lr, swa_lr, before, after):
    """Move ``lr`` from annealing fraction ``before`` to ``after``. The lr the annealing started from is
    recovered from the current one rather than stored, so SWALR chains after other schedules."""
    start = swa_lr if before == 1 else (lr - swa_lr * before) / (1 - before)
    return swa_lr * after + start * (1 - after)


class SWALR(LRScheduler):
    """Anneal each group's lr from its current value to ``swa_lr`` over ``anneal_epochs`` steps (cosine or
    linear), then hold it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in tuple(_ANNEALS):  # a tuple: an unhashable strategy is a ValueError too
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        valid_epochs = isinstance(anneal_epochs, int) and anneal_epochs >= 0
        if not valid_epochs:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self._keep(anneal_epochs=anneal_epochs)
        LRScheduler.__init__(self, optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        # 0.5 - 0.5 cos(pi t) rounds exactly as (1 - cos(pi t)) / 2: halving is exact
        return 0.5 - 0.5 * math.cos(math.pi * t)

    def _set_anneal_func(self, anneal_strategy):
        self._keep(_anneal_strategy=anneal_strategy)
        self.anneal_func = getattr(self, _ANNEALS[anneal_strategy])

    def _fraction(self, step):
        """How far along the annealing ``step`` is, in [0, 1], after the anneal function."""
        return self.anneal_func(min(1, max(0, step / max(1, self.anneal_epochs))))

    def get_lr(self):
        self._warn_if_called_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0 and step < 1:
            step = 1
        before, after = self._fraction(step - 1), self._fraction(step)
        return [_reanneal(group["lr"], group["swa_lr"], before, after) for group in self.optimizer.param_groups]

    def state_dict(self):
        state = super().state_dict()
        del state["anneal_func"]
        return state

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._set_anneal_func(state_dict.get("_anneal_strategy", self._anneal_strategy))
