"""Learning-rate schedulers with torch.optim.lr_scheduler's API and its exact sequence of values.

Most schedulers are "chainable": each ``step()`` multiplies the lr currently in the optimizer's parameter
groups by a ratio that depends only on the epoch (``_ratio``), so several schedulers can act on one optimizer.
Where a closed form exists (``_closed``: epoch -> multiple of the initial lr) ``step(epoch)`` (deprecated in
PyTorch) jumps to it. The floating-point operations are the ones PyTorch's documented formulas perform, in
the same order, so the lr sequences agree to the last bit.

A scheduler's state_dict is its attributes (less the optimizer), so the attribute names are PyTorch's.
"""
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
           "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR"]

_EPOCH_DEPRECATION = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available.")

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
    "PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")

_GET_LR_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


# ---- parameter-group helpers ---------------------------------------------------------------------------------

def _copy(value):
    return value.clone() if isinstance(value, Tensor) else value


def _group_values(optimizer, key):
    """The current value of ``key`` in every parameter group (tensors copied, as PyTorch does)."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group, key, value):
    current = group[key]
    if isinstance(current, Tensor):  # a tensor lr is updated in place, keeping its identity
        current._data[...] = float(value)
    else:
        group[key] = value


def _spread(optimizer, value, mismatch):
    """``value`` for every parameter group: a list/tuple must have one entry per group (else the exception
    ``mismatch(groups, given)``), anything else is repeated."""
    n = len(optimizer.param_groups)
    if not isinstance(value, (list, tuple)):
        return [_copy(value) for _ in range(n)]
    if len(value) != n:
        raise mismatch(n, len(value))
    return [_copy(v) for v in value]


def _per_group(name, optimizer, value):
    return _spread(optimizer, value, lambda n, given: ValueError(
        f"{name} must have the same length as optimizer.param_groups. {name} has {given} values, param_groups has "
        f"{n}."))


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _functions_state(fns):
    """What a state_dict keeps of user functions: nothing of a plain function, the attributes of a callable."""
    return [None if fn is None or isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in fns]


def _restore_functions(fns, saved):
    for fn, attrs in zip(fns, saved):
        if attrs is not None:
            fn.__dict__.update(attrs)


# ---- the base class ------------------------------------------------------------------------------------------

class LRScheduler:
    """Base class: holds the optimizer, ``base_lrs`` (the groups' ``initial_lr``) and ``last_epoch``.

    A subclass gives ``get_lr()`` (the next lrs, computed after ``last_epoch`` was advanced), or ``_ratio()``
    (the factor the current lrs are multiplied by; None keeps them); ``_closed()`` or ``_closed_lrs()`` serve
    ``step(epoch)``.
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        missing = [i for i, group in enumerate(groups) if "initial_lr" not in group]
        if missing:
            raise KeyError(f"param 'initial_lr' is not specified in param_groups[{missing[0]}] when resuming "
                           "scheduler with last_epoch >= 0.")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        """The step every scheduler takes on construction: it sets epoch 0's lr."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute except the optimizer (PyTorch's layout, so checkpoints carry the same keys)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lrs set by the last ``step()``, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        self._warn_if_called_outside_step()
        ratio = self._ratio()
        now = self._current()
        return now if ratio is None else [lr * ratio for lr in now]

    def _ratio(self):
        raise NotImplementedError

    def _closed_lrs(self):
        # Only schedulers that define _closed (or override this) have a closed form.
        return [base * self._closed() for base in self.base_lrs]

    def _has_closed_form(self):
        cls = type(self)
        return getattr(cls, "_closed", None) is not None or cls._closed_lrs is not LRScheduler._closed_lrs

    _closed = None

    def step(self, epoch=None):
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            compute = self.get_lr
        else:
            self.last_epoch = epoch
            compute = self._closed_lrs if self._has_closed_form() else self.get_lr
        self._set_lrs(self._inside_step(compute))

    def _inside_step(self, compute):
        """``compute()`` with get_lr's "called from outside step()" warning off."""
        self._get_lr_called_within_step = True
        try:
            return compute()
        finally:
            self._get_lr_called_within_step = False

    def _set_lrs(self, lrs):
        for group, lr in zip(self.optimizer.param_groups, lrs):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def _warn_if_called_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=3)

    def _current(self):
        return _group_values(self.optimizer, "lr")

    def _keep(self, **hyperparameters):
        # Hyperparameters are plain attributes: state_dict saves them under their names.
        self.__dict__.update(hyperparameters)


_LRScheduler = LRScheduler


# ---- chainable schedules: a ratio per epoch, and a closed form where there is one ----------------------------

def _outside(value, low, high, open_low=False):
    return value > high or (value <= low if open_low else value < low)


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self._keep(step_size=step_size, gamma=gamma)
        super().__init__(optimizer, last_epoch)

    def _ratio(self):
        e = self.last_epoch
        return self.gamma if e != 0 and e % self.step_size == 0 else None

    def _closed(self):
        return self.gamma ** (self.last_epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each milestone epoch (by ``gamma**k`` if it is listed k times)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self._keep(milestones=Counter(milestones), gamma=gamma)
        super().__init__(optimizer, last_epoch)

    def _ratio(self):
        times = self.milestones.get(self.last_epoch, 0)
        return self.gamma ** times if times else None

    def _closed(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return self.gamma ** passed


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` for the first ``total_iters`` epochs, then restore it."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if _outside(factor, 0, 1.0):
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self._keep(factor=factor, total_iters=total_iters)
        super().__init__(optimizer, last_epoch)

    def _ratio(self):
        if self.last_epoch == 0:
            return self.factor
        return 1.0 / self.factor if self.last_epoch == self.total_iters else None

    def _closed(self):
        return self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)


class LinearLR(LRScheduler):
    """Scale the lr by a factor going linearly from ``start_factor`` to ``end_factor`` over ``total_iters``."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if _outside(start_factor, 0, 1.0, open_low=True):
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if _outside(end_factor, 0, 1.0):
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self._keep(start_factor=start_factor, end_factor=end_factor, total_iters=total_iters)
        super().__init__(optimizer, last_epoch)

    def _ratio(self):
        e, n, first = self.last_epoch, self.total_iters, self.start_factor
        if e == 0:
            return first
        if self._is_initial or e > n:
            return None
        # Factor(e) / factor(e - 1), so that the schedule composes with other schedulers.
        span = self.end_factor - first
        return 1.0 + span / (n * first + (e - 1) * span)

    def _closed(self):
        n = self.total_iters
        return self.start_factor + (self.end_factor - self.start_factor) * min(n, self.last_epoch) / n


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self._keep(gamma=gamma)
        super().__init__(optimizer, last_epoch)

    def _ratio(self):
        return None if self._is_initial else self.gamma

    def _closed(self):
        return self.gamma ** self.last_epoch


class PolynomialLR(LRScheduler):
    """Decay the lr as ``(1 - epoch / total_iters) ** power`` of its initial value, then hold it."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self._keep(total_iters=total_iters, power=power)
        super().__init__(optimizer, last_epoch)

    def _ratio(self):
        e, n = self.last_epoch, self.total_iters
        if self._is_initial or e > n:
            return None
        return ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power

    def _closed(self):
        return (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs (continuing periodically)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self._keep(T_max=T_max, eta_min=eta_min)
        super().__init__(optimizer, last_epoch)

    def _at(self, base, epoch):
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2

    def get_lr(self):
        self._warn_if_called_outside_step()
        e, period, floor = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and e > 0:  # resumed with last_epoch > 0: start from the closed form
            return self._closed_lrs()
        now = self._current()
        if (e - 1 - period) % (2 * period) == 0:  # at the bottom of a period the recursive ratio is 0/0
            return [lr + (base - floor) * (1 - math.cos(math.pi / period)) / 2 for lr, base in zip(now, self.base_lrs)]
        ratio = (1 + math.cos(math.pi * e / period)) / (1 + math.cos(math.pi * (e - 1) / period))
        return [ratio * (lr - floor) + floor for lr in now]

    def _closed_lrs(self):
        return [self._at(base, self.last_epoch) for base in self.base_lrs]


class _LambdaBase(LRScheduler):
    """Shared by LambdaLR and MultiplicativeLR: one function of the epoch per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _spread(optimizer, lr_lambda, lambda n, given: ValueError(
            f"Expected {n} lr_lambdas, but got {given}"))
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        # Plain functions cannot be saved; callable objects contribute their attributes.
        state = super().state_dict()
        state["lr_lambdas"] = _functions_state(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        super().load_state_dict(state)
        _restore_functions(self.lr_lambdas, saved)


class LambdaLR(_LambdaBase):
    """``lr = initial_lr * lr_lambda(epoch)``."""

    def get_lr(self):
        self._warn_if_called_outside_step()
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]


class MultiplicativeLR(_LambdaBase):
    """``lr = lr * lr_lambda(epoch)`` at every step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        for fn in (lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]):
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        now = self._current()
        if self._is_initial:
            return now
        return [lr * fn(self.last_epoch) for lr, fn in zip(now, self.lr_lambdas)]


# ---- schedulers made of schedulers ---------------------------------------------------------------------------

def _check_members(owner, optimizer, schedulers):
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             f"kwargs to be specified when calling `step`, but got one at index {i} in the given "
                             "schedulers sequence.")
        if optimizer is not s.optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """A scheduler over member schedulers (``_schedulers``), saved inside its own state_dict."""

    def state_dict(self):
        state = super().state_dict()
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        members = state.pop("_schedulers")
        super().load_state_dict(state)
        for s, saved in zip(self._schedulers, members):
            s.load_state_dict(saved)


class SequentialLR(_Composite):
    """Run ``schedulers[i]`` between ``milestones[i-1]`` and ``milestones[i]``."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_members(type(self).__name__, optimizer, schedulers)
        if len(schedulers) - 1 != len(milestones):
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each member stepped once when it was built; undo that and restart the first one from initial_lr.
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first, _ = self._phase(0)
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Take back the initial step of every (nested) member scheduler."""
        pending = [self if sched is None else sched]
        while pending:
            s = pending.pop()
            if hasattr(s, "_schedulers"):
                pending.extend(s._schedulers)
            elif hasattr(s, "last_epoch"):
                s.last_epoch -= 1

    def _phase(self, epoch):
        """The member scheduler in charge at ``epoch``, and whether its phase begins there (after the first)."""
        k = bisect_right(self._milestones, epoch)
        return self._schedulers[k], k > 0 and epoch == self._milestones[k - 1]

    def step(self):
        self.last_epoch += 1
        member, begins = self._phase(self.last_epoch)
        if begins:
            member._update_lr(0)  # a new phase starts from its scheduler's epoch 0 (closed form)
        else:
            member.step()
        self._last_lr = member.get_last_lr()


class ChainedScheduler(_Composite):
    """Step several schedulers of one optimizer together, their effects multiplying."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        if optimizer is None:
            optimizer = schedulers[0].optimizer
        _check_members(type(self).__name__, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


# ---- ReduceLROnPlateau ---------------------------------------------------------------------------------------

# (mode, threshold_mode) -> does metric a improve on best, given threshold t.
_IMPROVES = {
    ("min", "rel"): lambda a, best, t: a < best * (1.0 - t),
    ("min", "abs"): lambda a, best, t: a < best - t,
    ("max", "rel"): lambda a, best, t: a > best * (t + 1.0),
    ("max", "abs"): lambda a, best, t: a > best + t,
}


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` when a metric has not improved for ``patience`` epochs."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.min_lrs = _spread(optimizer, min_lr, lambda n, given: ValueError(
            f"expected {n} min_lrs, got {given}"))
        # A single min_lr also covers groups added later; a list is tied to the groups it was given for.
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self._keep(patience=patience, cooldown=cooldown, eps=eps, last_epoch=0,
                   _last_lr=_group_values(optimizer, "lr"))
        self._set_mode(mode, threshold, threshold_mode)
        self._start_over()

    def _set_mode(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self._keep(mode=mode, threshold=threshold, threshold_mode=threshold_mode,
                   mode_worse=-math.inf if mode == "max" else math.inf)

    def _start_over(self):
        self._keep(best=self.mode_worse, cooldown_counter=0, num_bad_epochs=0)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None):
        value = float(metrics)
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if _IMPROVES[self.mode, self.threshold_mode](value, self.best, self.threshold):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:  # bad epochs during cooldown do not count
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(self.last_epoch)
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                                   f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                                   "param group being added to the optimizer. Please modify the `min_lrs` field to "
                                   "match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr for _ in groups]
        for group, floor in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:  # changes smaller than eps are ignored
                _set_group_value(group, "lr", new)

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._set_mode(self.mode, self.threshold, self.threshold_mode)


# ---- cyclic schedules ----------------------------------------------------------------------------------------

def _momentum_setup(scheduler, optimizer, base_momentum, max_momentum, last_epoch):
    """For CyclicLR/OneCycleLR: cycle SGD's momentum or Adam's beta1 opposite to the lr."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    highs = _per_group("max_momentum", optimizer, max_momentum)
    lows = _per_group("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        for group, low, high in zip(optimizer.param_groups, lows, highs):
            _set_momentum(scheduler, group, high)
            group.update(max_momentum=high, base_momentum=low)
    return lows, highs


def _set_momentum(scheduler, group, value):
    if scheduler.use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


# CyclicLR's built-in amplitude policies: mode -> (scale as a function of (gamma, x), what x counts).
_CYCLIC_MODES = {
    "triangular": (lambda gamma, x: 1.0, "cycle"),
    "triangular2": (lambda gamma, x: 1 / (2.0 ** (x - 1)), "cycle"),
    "exp_range": (lambda gamma, x: gamma ** x, "iterations"),
}


class CyclicLR(LRScheduler):
    """Cycle the lr between ``base_lr`` and ``max_lr`` (triangular, triangular2, exp_range or a custom scale)."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        rise = float(step_size_up)
        fall = rise if step_size_down is None else float(step_size_down)
        self.total_size = rise + fall
        self.step_ratio = rise / self.total_size
        if scale_fn is None and mode not in _CYCLIC_MODES:
            raise ValueError("mode is invalid and scale_fn is None")
        self._keep(mode=mode, gamma=gamma, _scale_fn_custom=scale_fn, scale_mode=scale_mode)
        self._default_scale_mode()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _momentum_setup(self, optimizer, base_momentum, max_momentum,
                                                                      last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _default_scale_mode(self):
        if self._scale_fn_custom is None:
            self.scale_mode = _CYCLIC_MODES[self.mode][1]

    def scale_fn(self, x):
        custom = self._scale_fn_custom
        return custom(x) if custom is not None else _CYCLIC_MODES[self.mode][0](self.gamma, x)

    def get_lr(self):
        self._warn_if_called_outside_step()
        # Where in its cycle this epoch falls: the cycle's number and the fraction of it done (0 <= done < 1).
        position = 1.0 + self.last_epoch / self.total_size
        cycle = math.floor(position)
        done = position - cycle
        up = self.step_ratio
        height = done / up if done <= up else (done - 1) / (up - 1)  # the triangle wave, 0 -> 1 -> 0
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(self, group, high - (high - low) * height * scale)
        return [low + (high - low) * height * scale for low, high in zip(self.base_lrs, self.max_lrs)]

    def state_dict(self):
        state = super().state_dict()
        state["_scale_fn_custom"] = _functions_state([self._scale_fn_custom])[0]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        _restore_functions([self._scale_fn_custom], [saved])
        self._default_scale_mode()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, the period growing by ``T_mult`` after each restart."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self._keep(T_0=T_0, T_i=T_0, T_mult=T_mult, eta_min=eta_min, T_cur=last_epoch)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        angle = math.pi * self.T_cur / self.T_i
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(angle)) / 2 for base in self.base_lrs]

    def _advance(self):
        """One epoch on: the position in the period, restarting (with a longer period) at its end."""
        self.T_cur += 1
        if self.T_cur >= self.T_i:
            self.T_cur %= self.T_i
            self.T_i *= self.T_mult
        return self.last_epoch + 1

    def _jump(self, epoch):
        """The period and the position in it at ``epoch`` (which may be fractional)."""
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        first, grow = self.T_0, self.T_mult
        if epoch < first:
            self.T_i, self.T_cur = first, epoch
        elif grow == 1:
            self.T_cur = epoch % first
        else:
            # Periods T_0 * grow**k end at T_0 * (grow**(k+1) - 1) / (grow - 1): find the one holding epoch.
            k = int(math.log(epoch / first * (grow - 1) + 1, grow))
            self.T_cur = epoch - first * (grow ** k - 1) / (grow - 1)
            self.T_i = first * grow ** k

    def step(self, epoch=None):
        if epoch is None:
            if self.last_epoch < 0:
                epoch = 0
                self._jump(epoch)
            else:
                epoch = self._advance()
        else:
            self._jump(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self._inside_step(self.get_lr))


# OneCycleLR's annealing curves from start to end as pct goes 0 -> 1.
_ANNEAL = {
    "cos": lambda start, end, pct: end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1),
    "linear": lambda start, end, pct: (end - start) * pct + start,
}


def _positive_int(name, value):
    if not isinstance(value, int) or value <= 0:
        raise ValueError(f"Expected positive integer {name}, but got {value}")
    return value


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to ``max_lr`` then anneal far below the start (two or three phases)."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            steps = _positive_int("total_steps", total_steps)
        elif epochs is None or steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        else:
            steps = _positive_int("epochs", epochs) * _positive_int("steps_per_epoch", steps_per_epoch)
        self.total_steps = steps
        if not isinstance(pct_start, float) or _outside(pct_start, 0, 1):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in _ANNEAL:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")

        # Each phase: the step it ends at, and the group keys its lr and momentum go from and to.
        peak = float(pct_start * steps) - 1
        if three_phase:
            plan = [(peak, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                    (float(2 * pct_start * steps) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                    (steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            plan = [(peak, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                    (steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        fields = ("end_step", "start_lr", "end_lr", "start_momentum", "end_momentum")
        self._schedule_phases = [dict(zip(fields, p)) for p in plan]
        self._anneal_func_type = anneal_strategy

        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, _per_group("max_lr", optimizer, max_lr)):
                start = top / div_factor
                group.update(initial_lr=start, max_lr=top, min_lr=start / final_div_factor)
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_setup(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _where(self, step):
        """The phase holding ``step`` and the fraction of it done."""
        begin = 0.0
        for phase in self._schedule_phases[:-1]:
            if step <= phase["end_step"]:
                return phase, (step - begin) / (phase["end_step"] - begin)
            begin = phase["end_step"]
        last = self._schedule_phases[-1]
        return last, (step - begin) / (last["end_step"] - begin)

    def get_lr(self):
        self._warn_if_called_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        phase, pct = self._where(step)
        anneal = _ANNEAL[self._anneal_func_type]
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                _set_momentum(self, group, anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
        return lrs
