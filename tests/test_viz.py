"""npgrad.viz.draw_graph: DOT text for an autograd graph, and rendering through Graphviz when present."""
import re
import shutil

import pytest

import npgrad as torch
from npgrad.viz import draw_graph, render_dot


def neuron():
    x1, x2 = torch.tensor(2.0, requires_grad=True), torch.tensor(0.0, requires_grad=True)
    w1, w2 = torch.tensor(-3.0, requires_grad=True), torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(6.8813735870195432, requires_grad=True)
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    return o, n, {x1: "x1", x2: "x2", w1: "w1", w2: "w2", b: "b", o: "o"}


def node_labels(dot):
    """{DOT id: label} of every node statement."""
    return {m.group(1): m.group(2).replace("\\n", "\n")
            for m in re.finditer(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M)}


def edges(dot):
    return re.findall(r"^\s*(\w+) -> (\w+)", dot, re.M)


def test_single_neuron_graph_has_every_op_and_label():
    o, _, labels = neuron()
    dot = draw_graph(o, labels=labels)
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    nodes = node_labels(dot)
    firsts = sorted(label.split("\n")[0] for label in nodes.values())
    # 2 Mul, 2 Add, 1 Tanh, 5 leaves and the output: one box each.
    assert firsts == sorted(["Mul", "Mul", "Add", "Add", "Tanh", "x1", "x2", "w1", "w2", "b", "o"])
    # Data flows leaf -> op -> output: 10 edges (2 into each Mul and Add, 1 into Tanh, 1 to the output).
    e = edges(dot)
    assert len(e) == 10
    by_label = {label.split("\n")[0]: nid for nid, label in nodes.items()}
    assert (by_label["Tanh"], by_label["o"]) in e
    assert (by_label["b"], by_label["Tanh"]) not in e
    assert sum(1 for src, _ in e if src == by_label["b"]) == 1


def test_scalar_leaves_show_value_and_grad():
    o, _, labels = neuron()
    o.backward()
    nodes = node_labels(draw_graph(o, labels=labels))
    x1 = next(label for label in nodes.values() if label.startswith("x1\n"))
    assert "data 2" in x1 and "grad -1.5" in x1


def test_intermediate_labels_go_on_the_op_that_made_them():
    o, n, labels = neuron()
    labels[n] = "n"
    nodes = node_labels(draw_graph(o, labels=labels))
    assert sum(1 for label in nodes.values() if label == "Add\nn") == 1


def test_params_dict_shapes_and_edge_shapes():
    W = torch.randn(3, 4, requires_grad=True)
    bias = torch.zeros(4, requires_grad=True)
    x = torch.randn(5, 3)  # does not require grad: not part of the graph
    loss = (x @ W + bias).tanh().mean()
    dot = draw_graph(loss, params={"fc.weight": W, "fc.bias": bias})
    labels = list(node_labels(dot).values())
    assert "fc.weight\n(3, 4)" in labels and "fc.bias\n(4,)" in labels
    assert 'label="(5, 4)"' in dot  # an edge carries the shape of the matmul's result
    assert len(labels) == 7  # 2 leaves, MatMul, Add, Tanh, Mean, output
    plain = draw_graph(loss, params={"fc.weight": W, "fc.bias": bias}, show_shapes=False)
    assert "(3, 4)" not in plain and "(5, 4)" not in plain and "fc.weight" in plain


def test_params_from_a_module_like_object():
    class Tiny:
        def __init__(self):
            self.w = torch.randn(2, 2, requires_grad=True)

        def named_parameters(self):
            yield "layer.w", self.w

    m = Tiny()
    out = (m.w * 2).sum()
    assert "layer.w" in draw_graph(out, params=m)


def test_unnamed_leaves_and_a_reused_leaf():
    a = torch.randn(3, requires_grad=True)
    out = (a * a + a).sum()
    nodes = node_labels(draw_graph(out))
    assert sum(1 for label in nodes.values() if label.startswith("leaf")) == 1  # one box, used three times
    assert sum(1 for label in nodes.values() if label.startswith("output")) == 1


class TwoOutputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2 + gb * 3


def test_multi_output_op_marks_its_output_index():
    x = torch.randn(4, requires_grad=True)
    a, b = TwoOutputs.apply(x)
    out = (a * b).sum()
    dot = draw_graph(out, labels={a: "a", b: "b"})
    assert 'taillabel="0"' in dot and 'taillabel="1"' in dot
    two = [label for label in node_labels(dot).values() if label.startswith("TwoOutputs")]
    assert two == ["TwoOutputs\na (output 0)\nb (output 1)"]


def test_a_leaf_output_and_labels_escaping():
    t = torch.ones(2, requires_grad=True)
    dot = draw_graph(t, labels={t: 'say "hi"\\'})
    assert 'say \\"hi\\"\\\\' in dot
    assert len(node_labels(dot)) == 1


def test_deep_graph_is_walked_without_recursion():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(3000):  # deeper than Python's default recursion limit
        y = y * 1.0
    dot = draw_graph(y)
    assert dot.count('label="Mul"') == 3000


def test_bad_arguments():
    t = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="expects a Tensor"):
        draw_graph([1, 2])
    with pytest.raises(TypeError, match="params must be a dict"):
        draw_graph(t, params=[t])
    with pytest.raises(TypeError, match="labels keys must be Tensors"):
        draw_graph(t, labels={"t": t})
    with pytest.raises(ValueError, match="needs path="):
        draw_graph(t, format="svg")


def test_writes_dot_text_without_graphviz(tmp_path):
    o, _, labels = neuron()
    dot = draw_graph(o, labels=labels, path=tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == dot
    with pytest.raises(ValueError, match="cannot tell the format"):
        draw_graph(o, path=tmp_path / "noext")


def test_missing_graphviz_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `dot` anywhere
    o, _, labels = neuron()
    with pytest.raises(RuntimeError, match=r"Graphviz program `dot`.*apt-get install graphviz"):
        draw_graph(o, labels=labels, path=tmp_path / "g.svg")
    assert not (tmp_path / "g.svg").exists()
    with pytest.raises(RuntimeError, match="not found on PATH"):
        render_dot("digraph { a }")


if shutil.which("dot"):  # rendering can only be checked where Graphviz is installed
    def test_renders_svg_and_png(tmp_path):
        o, _, labels = neuron()
        draw_graph(o, labels=labels, path=tmp_path / "g.svg")
        svg = (tmp_path / "g.svg").read_text()
        assert "<svg" in svg and "Tanh" in svg and "x1" in svg
        png = render_dot(draw_graph(o), "png")
        assert png[:8] == b"\x89PNG\r\n\x1a\n"

    def test_graphviz_errors_are_reported(tmp_path):
        with pytest.raises(RuntimeError, match="failed"):
            render_dot("this is not dot", "svg")
