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
    if decay < 0.0 or decay > 1.0:
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
    # 1 / (n + 1) with n a 0-d integer tensor is a division in the default float dtype
    if isinstance(num_averaged, Tensor):
        ftype = _dt.get_default_dtype().np.type
        return ftype(1) / ftype(int(num_averaged._data) + 1)
    return 1 / (num_averaged + 1)


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

    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """An ``avg_fn`` returning the running mean ``avg + (current - avg) / (n + 1)``."""

    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
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
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _tensor(0, dtype=_dt.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

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


def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics as plain averages over one pass of ``loader``
    (batches, or tuples/lists whose first item is the input)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the batches
    with no_grad():
        for inputs in loader:
            if isinstance(inputs, (list, tuple)):
                inputs = inputs[0]
            if device is not None:
                inputs = inputs.to(device)
            model(inputs)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr from its current value to ``swa_lr`` over ``anneal_epochs`` steps (cosine or
    linear), then hold it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # the lr this schedule started from, recovered from the current one (so it chains with others)
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
