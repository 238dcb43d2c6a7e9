"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) and
functional_call, built on npgrad's reverse-mode autograd. Nesting works through create_graph (see
_levels); forward-mode products use the double-VJP trick (see _jacobian); vmap runs batching rules (see _vmap)."""
from ._grad import grad, grad_and_value, vjp
from ._jacobian import jvp, jacrev, jacfwd, hessian, linearize
from ._vmap import vmap
from ._functional_call import functional_call, stack_module_state
from ._batch_norm import replace_all_batch_norm_modules_
from ._rearrange import rearrange
from ._looped import per_example_call as _per_example_call, per_example_factory as _per_example_factory

# inside vmap these run once per example (see _looped); grad, grad_and_value and vjp are batched
jvp, jacrev, jacfwd, hessian = (_per_example_call(jvp), _per_example_factory(jacrev), _per_example_factory(jacfwd),
                                _per_example_factory(hessian))

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call",
           "stack_module_state", "linearize", "replace_all_batch_norm_modules_",
           "rearrange"]
