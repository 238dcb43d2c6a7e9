"""``npgrad.utils.summary(model, input_size)``: the table torchinfo and Keras print for a model: its layers in
the order a forward pass calls them, each one's output shape and parameter count, the totals (trainable and
not), and an estimate of the memory one training step needs."""
from typing import NamedTuple

__all__ = ["summary", "ModelSummary", "LayerInfo"]


class LayerInfo(NamedTuple):
    name: str            # the module's path in the model ("0", "encoder.layers.1.linear1"; "" for the model)
    type: str            # its class name
    depth: int           # 0 for the model, 1 for its children, ...
    output_shape: list   # the first tensor of its output; [] when it returned none
    num_params: int      # its parameters (its own when its children are listed too, else with theirs)
    output_bytes: int    # every tensor it returned


def _tensors(obj):
    from ..tensor import Tensor
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _tensors(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _tensors(v)


def _nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


class ModelSummary:
    """What ``summary`` found; ``str()`` is the table, ``layers`` its rows (LayerInfo), and the totals are
    attributes: ``total_params``, ``trainable_params``, ``non_trainable_params``, ``input_bytes``,
    ``output_bytes`` (every layer's outputs, which a backward pass keeps), ``param_bytes`` and
    ``estimated_total_bytes`` (input + twice the outputs, for their gradients, + parameters)."""

    def __init__(self, model, layers, input_bytes, depth):
        params = {id(p): p for p in model.parameters()}.values()  # shared parameters counted once
        self.layers = layers
        self.depth = depth
        self.total_params = sum(p.numel() for p in params)
        self.trainable_params = sum(p.numel() for p in params if p.requires_grad)
        self.non_trainable_params = self.total_params - self.trainable_params
        self.param_bytes = _nbytes(params) + _nbytes({id(b): b for b in model.buffers()}.values())
        self.input_bytes = input_bytes
        leaves = [r for r in layers if not any(o.depth > r.depth and o.name.startswith(r.name + ".") or
                                               (r.name == "" and o.depth > 0) for o in layers)]
        self.output_bytes = sum(r.output_bytes for r in leaves)
        self.estimated_total_bytes = self.input_bytes + 2 * self.output_bytes + self.param_bytes

    def __str__(self):
        shown = [r for r in self.layers if r.depth <= self.depth]
        first = [("  " * max(r.depth - 1, 0) + ("└─" if r.depth else "") + f"{r.type}" +
                  (f" ({r.name})" if r.name else "")) for r in shown]
        shapes = [str(list(r.output_shape)) if r.output_shape or r.output_bytes else "--" for r in shown]
        counts = [f"{r.num_params:,}" if r.num_params else "--" for r in shown]
        header = ("Layer (type (name))", "Output Shape", "Param #")
        w = [max(len(header[0]), *map(len, first)), max(len(header[1]), *map(len, shapes)),
             max(len(header[2]), *map(len, counts))]
        line = "=" * (w[0] + w[1] + w[2] + 6)
        rows = [f"{a:<{w[0]}}   {b:<{w[1]}}   {c:>{w[2]}}" for a, b, c in zip(first, shapes, counts)]

        def mb(n):
            return f"{n / 1e6:.2f}"
        return "\n".join([
            line, f"{header[0]:<{w[0]}}   {header[1]:<{w[1]}}   {header[2]:>{w[2]}}", line, *rows, line,
            f"Total params: {self.total_params:,}", f"Trainable params: {self.trainable_params:,}",
            f"Non-trainable params: {self.non_trainable_params:,}", line,
            f"Input size (MB): {mb(self.input_bytes)}",
            f"Forward/backward pass size (MB): {mb(2 * self.output_bytes)}",
            f"Params size (MB): {mb(self.param_bytes)}",
            f"Estimated total size (MB): {mb(self.estimated_total_bytes)}", line])

    __repr__ = __str__


def _inputs(input_size, input_data, dtypes):
    from .. import dtypes as _dt
    from ..factories import rand, zeros
    if input_data is not None:
        return list(input_data) if isinstance(input_data, (list, tuple)) else [input_data]
    if input_size is None:
        raise ValueError("summary: give input_size (the shape of one input, batch dimension first, or a list of "
                         "shapes) or input_data (the inputs themselves)")
    sizes = [input_size] if all(isinstance(d, int) for d in input_size) else list(input_size)
    dtypes = list(dtypes) if dtypes is not None else [_dt.float32] * len(sizes)
    if len(dtypes) != len(sizes):
        raise ValueError(f"summary: {len(sizes)} input sizes but {len(dtypes)} dtypes")
    out = []
    for size, dtype in zip(sizes, dtypes):
        if not all(isinstance(d, int) and d >= 0 for d in size):
            raise ValueError(f"summary: an input size is a sequence of non-negative ints, got {size!r}")
        out.append(rand(*size, dtype=dtype) if dtype.is_floating_point else zeros(*size, dtype=dtype))
    return out


def summary(model, input_size=None, *, input_data=None, dtypes=None, depth=3):
    """Run ``model`` once (without recording gradients) on inputs of ``input_size`` (batch dimension first;
    a list of shapes for several inputs, with ``dtypes`` for inputs that are not float32) or on ``input_data``,
    and return a ModelSummary, whose ``str()`` is the table. ``depth``: how many levels of submodules the
    table lists (all are counted in the totals)."""
    import itertools

    from ..autograd import no_grad
    from ..nn import Module
    if not isinstance(model, Module):
        raise TypeError(f"summary: model must be an nn.Module, got {type(model).__name__}")
    inputs = _inputs(input_size, input_data, dtypes)
    names = {id(m): n for n, m in model.named_modules(remove_duplicate=False)}
    layers, handles = [], []

    def hook_for(module, name):
        depth_ = 0 if name == "" else name.count(".") + 1

        def hook(mod, args, output):
            tensors = list(_tensors(output))
            listed = depth_ < depth and any(True for _ in mod.children())
            n = sum(p.numel() for p in mod.parameters(recurse=not listed))
            layers.append((order.pop(id(mod), len(layers)),
                           LayerInfo(name, type(mod).__name__, depth_, list(tensors[0].shape) if tensors else [],
                                     n, _nbytes(tensors))))
        return hook

    order = {}

    def pre_hook(mod, args):  # rows in the order the modules are entered, as the forward pass nests them
        order[id(mod)] = next(counter)

    counter = itertools.count()
    for module in model.modules():
        name = names[id(module)]
        handles.append(module.register_forward_pre_hook(pre_hook))
        handles.append(module.register_forward_hook(hook_for(module, name)))
    try:
        with no_grad():
            model(*inputs)
    finally:
        for h in handles:
            h.remove()
    rows = [info for _, info in sorted(layers, key=lambda item: item[0])]
    return ModelSummary(model, rows, sum(_nbytes(_tensors(x)) for x in inputs), depth)
