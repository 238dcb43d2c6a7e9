"""Drawing the autograd graph behind a tensor, as Graphviz DOT text (and SVG/PNG when Graphviz is installed).

    o = (x1 * w1 + x2 * w2 + b).tanh()
    dot = draw_graph(o, labels={x1: "x1", w1: "w1", x2: "x2", w2: "w2", b: "b", o: "o"})
    draw_graph(o, labels=..., path="neuron.svg")   # rendered by Graphviz's `dot` program

The picture reads left to right, the way data flows in the forward pass: leaf tensors (blue) feed the
operation nodes (grey, one per backward node, named as ``grad_fn.name()`` without its "Backward0"
suffix), which end in the output (green). Edges carry the shape of the tensor flowing along them.
"""
import os
import shutil
import subprocess

from .tensor import Tensor

__all__ = ["draw_graph", "render_dot"]

_TEXT_FORMATS = ("dot", "gv")


def draw_graph(tensor, params=None, labels=None, show_shapes=True, format=None, path=None):
    """The autograd graph that produced ``tensor``, as DOT source text.

    Args:
        tensor: the output whose graph is drawn (walked from ``tensor.grad_fn``).
        params: names for leaf tensors: a dict ``{name: tensor}`` or a module (its ``named_parameters()``).
        labels: names for any tensors, ``{tensor: name}``: leaves, the output, or intermediate results
            (shown on the operation that produced them).
        show_shapes: write shapes on leaves, edges and the output.
        format: the file format when writing to ``path`` (``'svg'``, ``'png'``, ``'pdf'``, ``'dot'``...);
            by default taken from ``path``'s extension.
        path: a file to write: DOT text for ``.dot``/``.gv``, otherwise rendered with Graphviz's ``dot``
            program (which must be installed).

    Returns the DOT text either way. Leaves that do not require grad are not part of the graph and so
    are not drawn.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"draw_graph() expects a Tensor, got {type(tensor).__name__}")
    names = _names(params, labels)
    source = _build_dot(tensor, names, show_shapes)
    if path is not None:
        path = os.fspath(path)
        fmt = format or os.path.splitext(path)[1].lstrip(".").lower()
        if not fmt:
            raise ValueError(f"draw_graph(): cannot tell the format of {path!r}: give it an extension "
                             "(.svg, .png, .pdf, .dot) or pass format=")
        if fmt in _TEXT_FORMATS:
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
        else:
            render_dot(source, fmt, path)
    elif format is not None:
        raise ValueError(f"draw_graph(format={format!r}) needs path= to write to; use "
                         "render_dot(draw_graph(...), format) to get the rendered bytes")
    return source


def render_dot(source, format="svg", path=None):
    """Render DOT text with Graphviz's ``dot`` program; returns the bytes (and writes them to ``path``)."""
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "Rendering a graph needs the Graphviz program `dot`, which was not found on PATH. Install "
            "Graphviz (Debian/Ubuntu: `apt-get install graphviz`; Fedora: `dnf install graphviz`; macOS: "
            "`brew install graphviz`; conda: `conda install -c conda-forge graphviz`), or write the DOT text "
            "instead (draw_graph(..., path='graph.dot')) and render it elsewhere.")
    try:
        done = subprocess.run([exe, f"-T{format}"], input=source.encode("utf-8"), capture_output=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        raise RuntimeError("Graphviz `dot` did not finish within 60 seconds") from None
    if done.returncode != 0:
        msg = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz `dot -T{format}` failed (exit code {done.returncode}): {msg}")
    if path is not None:
        with open(path, "wb") as f:
            f.write(done.stdout)
    return done.stdout


def _names(params, labels):
    """``{id(tensor): (tensor, name)}`` from both naming arguments (the tensor is kept so its id stays valid)."""
    out = {}
    if params is not None:
        if hasattr(params, "named_parameters"):
            items = params.named_parameters()
        elif hasattr(params, "items"):
            items = params.items()
        else:
            raise TypeError("draw_graph(): params must be a dict {name: tensor} or a module with "
                            f"named_parameters(), got {type(params).__name__}")
        for name, t in items:
            out[id(t)] = (t, str(name))
    if labels is not None:
        if not hasattr(labels, "items"):
            raise TypeError(f"draw_graph(): labels must be a dict {{tensor: name}}, got {type(labels).__name__}")
        for t, name in labels.items():
            if not isinstance(t, Tensor):
                raise TypeError(f"draw_graph(): labels keys must be Tensors, got {type(t).__name__} "
                                f"(for the name {name!r}); to name by string use params={{name: tensor}}")
            out[id(t)] = (t, str(name))
    return out


def _op_name(node):
    name = node.name()
    for suffix in ("Backward0", "Backward1", "Backward"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _shape(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _tensor_text(t, name, show_shapes, default):
    parts = [name if name is not None else default]
    if show_shapes and t._data.ndim:  # a 0-d tensor shows its value instead (below)
        parts.append(_shape(t._data.shape))
    if t._data.size == 1 and t._data.dtype.kind == "f":  # a scalar's value says more than its shape
        value = f"data {float(t._data.reshape(()).item()):.4g}"
        g = t._grad
        if g is not None and g._data.size == 1:
            value += f" | grad {float(g._data.reshape(()).item()):.4g}"
        parts.append(value)
    return "\n".join(parts)


def _build_dot(tensor, names, show_shapes):
    """Walk the graph from ``tensor.grad_fn`` with an explicit stack (deep graphs cannot overflow)."""
    # Intermediate results that were named: (node, output index) -> name.
    named_outputs = {}
    for t, name in names.values():
        if t._grad_fn is not None and t is not tensor:  # the output has a box of its own
            named_outputs.setdefault((t._grad_fn, t._out_idx), []).append(name)

    lines = ["digraph autograd {",
             "  rankdir=LR;",
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=9];']
    ids = {}  # node -> DOT id

    def node_id(node):
        nid = ids.get(node)
        if nid is None:
            nid = ids[node] = f"n{len(ids)}"
        return nid

    root = tensor._grad_fn  # None for a leaf: then the output's box is the whole graph
    out_name = names.get(id(tensor), (None, None))[1]
    out_text = _tensor_text(tensor, out_name, show_shapes, "output")

    if root is not None:
        seen = {root}
        stack = [root]
        while stack:
            node = stack.pop()
            nid = node_id(node)
            if node.name().endswith("AccumulateGrad"):
                variable = getattr(node, "variable", None)
                if variable is None:
                    lines.append(f'  {nid} [label="(freed leaf)", shape=box, style="rounded,filled", '
                                 'fillcolor="#dddddd"];')
                else:
                    name = names.get(id(variable), (None, None))[1]
                    lines.append(f"  {nid} [label={_quote(_tensor_text(variable, name, show_shapes, 'leaf'))}, "
                                 'shape=box, style="rounded,filled", fillcolor="#cfe2f3"];')
                continue
            label = _op_name(node)
            n_out = getattr(node, "_n_out", 1)
            for i in range(n_out):
                for name in named_outputs.get((node, i), ()):
                    label += f"\n{name}" if n_out == 1 else f"\n{name} (output {i})"
            lines.append(f'  {nid} [label={_quote(label)}, shape=box, style=filled, fillcolor="#eeeeee"];')
            meta = getattr(node, "_in_meta", None) or ()
            for k, (nxt, idx) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                attrs = []
                if show_shapes and k < len(meta) and meta[k] is not None and len(meta[k][0]):
                    attrs.append(f"label={_quote(_shape(meta[k][0]))}")
                if getattr(nxt, "_n_out", 1) > 1:
                    attrs.append(f'taillabel="{idx}"')
                edge = f"  {node_id(nxt)} -> {nid}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";"
                lines.append(edge)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)

    lines.append(f"  out [label={_quote(out_text)}, shape=box, style=\"rounded,filled\", fillcolor=\"#d9ead3\"];")
    if root is not None:
        attrs = f" [label={_quote(_shape(tensor._data.shape))}]" if show_shapes and tensor._data.ndim else ""
        lines.append(f"  {node_id(root)} -> out{attrs};")
    lines.append("}")
    return "\n".join(lines) + "\n"
