"""L-BFGS: quasi-Newton steps from the last ``history_size`` (step, gradient change) pairs, optionally with a
strong-Wolfe line search. One parameter group; ``step`` needs a closure that re-evaluates the loss."""
import numpy as np

from .. import _fp_quiet
from ..autograd.grad_mode import enable_grad
from ..ops.inplace import bump_version
from ..tensor import Tensor
from ._line_search import strong_wolfe
from .optimizer import Optimizer, check_lr

__all__ = ["LBFGS"]

# State entries PyTorch keeps as tensors (vectors, and scalars computed from them) are stored as npgrad
# tensors between steps, so state_dict() has PyTorch's layout; inside a step they are NumPy values.
_TENSOR_KEYS = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "al")


def _to_numpy(v):
    if isinstance(v, Tensor):
        return v._data[()] if v._data.ndim == 0 else v._data
    if isinstance(v, list):
        return [_to_numpy(x) for x in v]
    return v


def _to_tensor(v):
    if isinstance(v, np.ndarray):
        return Tensor._wrap(v)
    if isinstance(v, np.generic):
        return Tensor._wrap(np.asarray(v))
    if isinstance(v, list):
        return [_to_tensor(x) for x in v]
    return v


class LBFGS(Optimizer):
    """``torch.optim.LBFGS`` (``line_search_fn`` None or ``"strong_wolfe"``)."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__["_params"] = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = [np.zeros(p._data.size, p._data.dtype) if p._grad is None else p._grad._data.reshape(-1)
                 for p in self._params]
        return np.concatenate(parts)

    def _add_to_params(self, step_size, direction):
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (direction[offset:offset + n] * step_size).reshape(p._data.shape)
            bump_version(p)
            offset += n

    def _set_params(self, saved):
        for p, data in zip(self._params, saved):
            np.copyto(p._data, data)
            bump_version(p)

    def step(self, closure):
        """Run up to ``max_iter`` iterations; returns the loss ``closure`` gave at the starting point."""
        # The search's own NumPy arithmetic runs with NumPy's floating-point flags ignored, as PyTorch (an
        # overflowing dot product is inf, silently); the user's closure runs with the caller's state.
        return _fp_quiet.call_with(_fp_quiet.QUIET, self._search, closure, _fp_quiet.STATE.get())

    def _search(self, closure, caller):
        group = self.param_groups[0]
        lr = group["lr"]
        if isinstance(lr, Tensor):  # PyTorch keeps a tensor lr as a 0-d tensor: so is the step size t then
            lr = lr._data.reshape(())[()]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        def evaluate():
            with enable_grad():
                return _fp_quiet.call_with(caller, closure)

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss = (
            _to_numpy(state.get(k)) for k in ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
                                              "prev_loss"))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only where the curvature condition holds
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                d = self._two_loop(state, flat_grad, old_dirs, old_stps, ro, H_diag, history_size)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            # the very first step is scaled down by the gradient's size
            t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p._data.copy() for p in self._params]

                def along(step_size):
                    self._add_to_params(step_size, d)
                    value = float(evaluate())
                    grad = self._flat_grad()
                    self._set_params(start)
                    return value, grad

                loss, flat_grad, t, evals = strong_wolfe(along, t, d, loss, flat_grad, gtd,
                                                         max_ls=max_eval - current_evals)
                self._add_to_params(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_to_params(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or np.abs(d * t).max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change):
                break

        for key, value in zip(("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"),
                              (d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss)):
            state[key] = _to_tensor(value) if key in _TENSOR_KEYS else value
        return orig_loss

    @staticmethod
    def _two_loop(state, flat_grad, old_dirs, old_stps, ro, H_diag, history_size):
        """The L-BFGS direction ``-H g``: H is the inverse-Hessian estimate from the stored pairs, starting
        from ``H_diag`` times the identity."""
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"] = _to_numpy(state["al"])
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q += old_dirs[i] * -al[i]
        r = q * H_diag
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r += old_stps[i] * (al[i] - be_i)
        state["al"] = _to_tensor(al)
        return r
