"""``differentiable=True`` steps: the update written with npgrad's (in-place) tensor ops under autograd, so
the new parameters and state carry a graph back to the old ones, the gradients and tensor hyper-parameters
(learning to learn through an optimizer step).

Each function follows the operation order of PyTorch's single-tensor step with ``differentiable=True``
(clones where PyTorch clones so that saved tensors are not overwritten); the default path of each
optimizer, NumPy in place, stays the fast one.
"""
from ..autograd.grad_mode import enable_grad
from ..ops.movement import cat
from ..tensor import Tensor
from .optimizer import increment_step, new_step


def _zeros(p, fill=0.0):
    return p.detach().clone().fill_(fill)


def _grad(p, maximize):
    return -p.grad if maximize else p.grad


def _l2(grad, p, weight_decay):
    """``grad + weight_decay * p``; a tensor weight_decay that requires grad enters the graph."""
    if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
        return grad.addcmul_(p.clone(), weight_decay)
    return grad.add(p, alpha=float(weight_decay))


def _params(group):
    return [p for p in group["params"] if p.grad is not None]


def sgd(opt, group):
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
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
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            if isinstance(lr, Tensor) and lr.requires_grad:
                p.addcmul_(grad, lr, value=-1)
            else:
                p.add_(grad, alpha=-float(lr))


def adam(opt, group):
    lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["exp_avg"] = _zeros(p)
                state["exp_avg_sq"] = _zeros(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            increment_step(state)
            step = state["step"]
            if weight_decay != 0:
                if group.get("decoupled_weight_decay"):
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = _l2(grad, p, weight_decay)
            exp_avg.lerp_(grad, 1 - beta1)
            if isinstance(beta2, Tensor) and beta2.requires_grad:
                exp_avg_sq.lerp_(grad.square(), 1 - beta2)
            else:
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=float(1 - beta2))
            bias_correction1 = 1 - beta1 ** (step.clone() if isinstance(beta1, Tensor) else step)
            bias_correction2 = 1 - beta2 ** (step.clone() if isinstance(beta2, Tensor) else step)
            step_size_neg = (lr / bias_correction1).neg()
            bias_correction2_sqrt = bias_correction2.sqrt()
            second = exp_avg_sq
            if group["amsgrad"]:
                largest = state["max_exp_avg_sq"]
                largest.copy_(largest.clone().maximum(exp_avg_sq))
                second = largest
            denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
            p.addcdiv_(exp_avg.clone(), denom)


def rmsprop(opt, group):
    lr = float(group["lr"])  # PyTorch passes lr as a Scalar alpha/value here: no graph through it
    alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["square_avg"] = _zeros(p)
                if momentum > 0:
                    state["momentum_buffer"] = _zeros(p)
                if group["centered"]:
                    state["grad_avg"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            increment_step(state)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)


def adagrad(opt, group):
    lr, lr_decay, eps = float(group["lr"]), group["lr_decay"], group["eps"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if "sum" not in state:
                state["step"] = new_step()
                state["sum"] = _zeros(p, float(group["initial_accumulator_value"]))
            step = increment_step(state)
            grad = _grad(p, group["maximize"])
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            clr = lr / (1 + (step - 1) * lr_decay)
            state["sum"].addcmul_(grad, grad, value=1)
            std = state["sum"].sqrt() + eps
            p.addcdiv_(grad, std, value=-clr)


def adadelta(opt, group):
    lr, rho, eps = float(group["lr"]), group["rho"], group["eps"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["square_avg"] = _zeros(p)
                state["acc_delta"] = _zeros(p)
            increment_step(state)
            grad = _grad(p, group["maximize"])
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().clone()
            delta.div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)


def adamax(opt, group):
    lr, eps = float(group["lr"]), group["eps"]
    beta1, beta2 = group["betas"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["exp_avg"] = _zeros(p)
                state["exp_inf"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            both = cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(both.amax(0))
            p.addcdiv_(exp_avg, exp_inf, value=-(lr / (1 - beta1 ** step)))


def nadam(opt, group):
    lr, eps = float(group["lr"]), group["eps"]
    weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
    beta1, beta2 = group["betas"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["mu_product"] = new_step(1.0)
                state["exp_avg"] = _zeros(p)
                state["exp_avg_sq"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
            mu_product = state["mu_product"]
            mu_product.mul_(mu)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add(eps)
            mu_product_next = mu_product * mu_next
            grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
            exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
            p.addcdiv_(grad, denom)
            p.addcdiv_(exp_avg, denom)


def radam(opt, group):
    lr, eps, weight_decay = float(group["lr"]), group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["exp_avg"] = _zeros(p)
                state["exp_avg_sq"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction2 = 1 - beta2 ** step
            corrected = exp_avg / (1 - beta1 ** step)
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add(eps)
                p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
            else:
                p.add_(corrected * lr, alpha=-1.0)


def asgd(opt, group):
    lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["eta"] = new_step(float(lr))
                state["mu"] = new_step(1.0)
                state["ax"] = _zeros(p)
            grad = _grad(p, group["maximize"])
            step = increment_step(state)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            eta, mu = float(state["eta"]), float(state["mu"])
            p.mul_(1 - lambd * eta)
            p.add_(grad, alpha=-eta)
            if mu != 1:
                state["ax"].add_(p.sub(state["ax"]).mul_(mu))
            else:
                state["ax"].copy_(p)
            state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
            state["mu"]._data[...] = 1 / max(1, step - t0)


def rprop(opt, group):
    etaminus, etaplus = group["etas"]
    step_size_min, step_size_max = group["step_sizes"]
    with enable_grad():
        for p in _params(group):
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["prev"] = _zeros(p)
                state["step_size"] = _zeros(p, float(group["lr"]))
            grad = _grad(p, group["maximize"])
            increment_step(state)
            prev, step_size = state["prev"], state["step_size"]
            sign = grad.mul(prev.clone()).sign()
            sign[sign.gt(0)] = etaplus
            sign[sign.lt(0)] = etaminus
            sign[sign.eq(0)] = 1
            step_size.mul_(sign).clamp_(step_size_min, step_size_max)
            grad = grad.clone()
            grad[sign.eq(etaminus)] = 0
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
