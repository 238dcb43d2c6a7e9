"""``differentiable=True`` steps: the update written with npgrad's (in-place) tensor ops under autograd, so
the new parameters and state carry a graph back to the old ones, the gradients and tensor hyper-parameters
(learning to learn through an optimizer step).

Each function keeps the operation order of PyTorch's single-tensor step with ``differentiable=True`` (so
values and gradients agree to rounding; clones where PyTorch clones, so that saved tensors are not
overwritten); the default path of each optimizer, NumPy in place, stays the fast one. The running averages
all optimizers share are the helpers below.
"""
from ..autograd.grad_mode import enable_grad
from ..ops.movement import cat
from ..tensor import Tensor
from .optimizer import increment_step, new_step


def _zeros(p, fill=0.0):
    return p.detach().clone().fill_(fill)


def _start(state, p, scalars=None, **tensors):
    """A parameter's first-step state, in PyTorch's key order (state_dict keeps it): the step count, the 0-d
    ``scalars``, then ``tensors`` shaped like ``p`` filled with their values."""
    state["step"] = new_step()
    for key, value in (scalars or {}).items():
        state[key] = new_step(value)
    for key, fill in tensors.items():
        state[key] = _zeros(p, fill)


def _grad(p, maximize):
    return -p.grad if maximize else p.grad


def _l2(grad, p, weight_decay):
    """``grad + weight_decay * p``; a tensor weight_decay that requires grad enters the graph."""
    if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
        return grad.addcmul_(p.clone(), weight_decay)
    return grad.add(p, alpha=float(weight_decay))


def _plain_l2(grad, p, weight_decay):
    # the optimizers whose PyTorch step takes weight_decay as a Scalar (no graph through it)
    return grad if weight_decay == 0 else grad.add(p, alpha=weight_decay)


def _decay(p, grad, lr, weight_decay, decoupled, l2=_plain_l2):
    """The Adam family's weight decay: shrink the parameter (decoupled, AdamW) or add L2 to the gradient."""
    if weight_decay == 0:
        return grad
    if decoupled:
        p.mul_(1 - lr * weight_decay)
        return grad
    return l2(grad, p, weight_decay)


def _mean_(avg, x, beta):
    """The running mean ``beta * avg + (1 - beta) * x`` in place, as a lerp."""
    return avg.lerp_(x, 1 - beta)


def _scaled_add_(acc, keep, x, weight):
    """``acc = keep * acc + weight * x`` in place."""
    return acc.mul_(keep).add_(x, alpha=weight)


def _scaled_add_square_(acc, keep, x, weight):
    """``acc = keep * acc + weight * x * x`` in place."""
    return acc.mul_(keep).addcmul_(x, x, value=weight)


def _root(t, eps):
    """``sqrt(t + eps)`` as a new tensor."""
    return t.add(eps).sqrt_()


def _params(group):
    return [p for p in group["params"] if p.grad is not None]


def sgd(opt, group):
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    lr_in_graph = isinstance(lr, Tensor) and lr.requires_grad
    with enable_grad():
        for p in _params(group):
            grad = _grad(p, group["maximize"])
            if group["weight_decay"] != 0:
                grad = _l2(grad, p, group["weight_decay"])
            if momentum != 0:
                state = opt.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    _scaled_add_(buf, momentum, grad, 1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            if lr_in_graph:
                p.addcmul_(grad, lr, value=-1)
            else:
                p.add_(grad, alpha=-float(lr))


def _power(beta, step):
    # a tensor beta takes the power of a clone, so that the step count saved for backward stays as it was
    return beta ** (step.clone() if isinstance(beta, Tensor) else step)


def adam(opt, group):
    lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    beta2_in_graph = isinstance(beta2, Tensor) and beta2.requires_grad
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, exp_avg=0.0, exp_avg_sq=0.0)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            increment_step(state)
            step = state["step"]
            grad = _decay(p, grad, lr, weight_decay, group.get("decoupled_weight_decay"), _l2)
            exp_avg, second = state["exp_avg"], state["exp_avg_sq"]
            _mean_(exp_avg, grad, beta1)
            if beta2_in_graph:
                _mean_(second, grad.square(), beta2)
            else:
                _scaled_add_square_(second, beta2, grad, float(1 - beta2))
            unbias1, unbias2 = 1 - _power(beta1, step), 1 - _power(beta2, step)
            neg_step = (lr / unbias1).neg()
            scale = unbias2.sqrt() * neg_step
            if group["amsgrad"]:
                largest = state["max_exp_avg_sq"]
                largest.copy_(largest.clone().maximum(second))
                second = largest
            p.addcdiv_(exp_avg.clone(), (second.sqrt() / scale).add_(eps / neg_step))


def _rms(square_avg, grad_avg):
    """RMSprop's denominator before eps: sqrt of the second moment, or of the variance when centred."""
    if grad_avg is None:
        return square_avg.sqrt()
    variance = square_avg.addcmul(grad_avg, grad_avg, value=-1)
    return variance.sqrt_()


def rmsprop(opt, group):
    lr = float(group["lr"])  # PyTorch passes lr as a Scalar alpha/value here: no graph through it
    alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
    layout = {"square_avg": 0.0}
    if momentum > 0:
        layout["momentum_buffer"] = 0.0
    if group["centered"]:
        layout["grad_avg"] = 0.0
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, **layout)
            grad = _grad(p, group["maximize"])
            increment_step(state)
            grad = _plain_l2(grad, p, group["weight_decay"])
            square_avg = _scaled_add_square_(state["square_avg"], alpha, grad, 1 - alpha)
            grad_avg = _mean_(state["grad_avg"], grad, alpha) if group["centered"] else None
            avg = _rms(square_avg, grad_avg).add(eps)
            if momentum > 0:
                velocity = state["momentum_buffer"]
                velocity.mul_(momentum).addcdiv_(grad, avg)
                p.add_(velocity, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)


def adagrad(opt, group):
    lr, lr_decay, eps = float(group["lr"]), group["lr_decay"], group["eps"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if "sum" not in state:
                _start(state, p, sum=float(group["initial_accumulator_value"]))
            step = increment_step(state)
            grad = _plain_l2(_grad(p, group["maximize"]), p, group["weight_decay"])
            decayed_lr = lr / (1 + (step - 1) * lr_decay)
            total = state["sum"]
            total.addcmul_(grad, grad, value=1)
            p.addcdiv_(grad, total.sqrt() + eps, value=-decayed_lr)


def adadelta(opt, group):
    lr, rho, eps = float(group["lr"]), group["rho"], group["eps"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, square_avg=0.0, acc_delta=0.0)
            increment_step(state)
            grad = _plain_l2(_grad(p, group["maximize"]), p, group["weight_decay"])
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            _scaled_add_square_(square_avg, rho, grad, 1 - rho)
            std = _root(square_avg, eps)
            delta = _root(acc_delta, eps).clone()
            delta.div_(std).mul_(grad)
            _scaled_add_square_(acc_delta, rho, delta, 1 - rho)
            p.add_(delta, alpha=-lr)


def adamax(opt, group):
    lr, eps = float(group["lr"]), group["eps"]
    beta1, beta2 = group["betas"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, exp_avg=0.0, exp_inf=0.0)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            grad = _plain_l2(grad, p, group["weight_decay"])
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            _mean_(exp_avg, grad, beta1)
            both = cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(both.amax(0))
            p.addcdiv_(exp_avg, exp_inf, value=-(lr / (1 - beta1 ** step)))


def _nadam_mu(beta1, momentum_decay, step):
    return beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))


def nadam(opt, group):
    lr, eps = float(group["lr"]), group["eps"]
    weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
    beta1, beta2 = group["betas"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, {"mu_product": 1.0}, exp_avg=0.0, exp_avg_sq=0.0)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            grad = _decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
            mu, mu_next = _nadam_mu(beta1, momentum_decay, step), _nadam_mu(beta1, momentum_decay, step + 1)
            mu_product = state["mu_product"].mul_(mu)
            exp_avg = _mean_(state["exp_avg"], grad, beta1)
            second = _scaled_add_square_(state["exp_avg_sq"], beta2, grad, 1 - beta2)
            denom = second.div(1 - beta2 ** step).sqrt().add(eps)
            # the current gradient's and the look-ahead momentum's shares of the step
            now = -lr * (1.0 - mu) / (1.0 - mu_product)
            ahead = -lr * mu_next / (1.0 - mu_product * mu_next)
            p.addcdiv_(grad * now, denom)
            p.addcdiv_(exp_avg * ahead, denom)


def radam(opt, group):
    lr, eps, weight_decay = float(group["lr"]), group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    rho_inf = 2 / (1 - beta2) - 1
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, exp_avg=0.0, exp_avg_sq=0.0)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            grad = _decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
            exp_avg = _mean_(state["exp_avg"], grad, beta1)
            second = _scaled_add_square_(state["exp_avg_sq"], beta2, grad, 1 - beta2)
            unbias2 = 1 - beta2 ** step
            corrected = exp_avg / (1 - beta1 ** step)
            rho_t = rho_inf - 2 * step * (beta2 ** step) / unbias2
            if rho_t <= 5.0:  # the variance is not yet tractable: an un-adapted momentum step
                p.add_(corrected * lr, alpha=-1.0)
                continue
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (unbias2 ** 0.5) / second.sqrt().add(eps)
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)


def asgd(opt, group):
    lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, {"eta": float(lr), "mu": 1.0}, ax=0.0)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            grad = _plain_l2(grad, p, group["weight_decay"])
            eta, mu = float(state["eta"]), float(state["mu"])
            p.mul_(1 - lambd * eta)
            p.add_(grad, alpha=-eta)
            ax = state["ax"]
            if mu == 1:
                ax.copy_(p)
            else:
                ax.add_(p.sub(ax).mul_(mu))
            state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
            state["mu"]._data[...] = 1 / max(1, step - t0)


def rprop(opt, group):
    shrink, grow = group["etas"]
    smallest, largest = group["step_sizes"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if not state:
                _start(state, p, prev=0.0, step_size=float(group["lr"]))
            grad = _grad(p, group["maximize"])
            increment_step(state)
            prev, step_size = state["prev"], state["step_size"]
            # +1 where the gradient kept its sign since the last step, -1 where it flipped, 0 where either is 0;
            # then each becomes its step-size factor, in this order (the factors are positive)
            factor = grad.mul(prev.clone()).sign()
            for where, value in ((factor.gt, grow), (factor.lt, shrink), (factor.eq, 1)):
                factor[where(0)] = value
            step_size.mul_(factor).clamp_(smallest, largest)
            grad = grad.clone()
            grad[factor.eq(shrink)] = 0  # no step, and no memory of the sign, after a flip
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
