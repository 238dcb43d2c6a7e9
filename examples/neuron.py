"""A single neuron, o = tanh(x1*w1 + x2*w2 + b), and the gradient of o with respect to every input.

The numbers are the classic hand-worked example: b is chosen so that the pre-activation n is
0.8814 = atanh(1/sqrt(2)), which makes o = 0.7071 and do/dn = 1 - o**2 = 0.5.

    python examples/neuron.py                     # print o and the gradients
    python examples/neuron.py --graph neuron.dot  # also write the graph (.svg/.png need Graphviz)
"""
import argparse
import shutil

import npgrad as torch
from npgrad.viz import draw_graph


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", help="write the autograd graph here (.dot, or .svg/.png with Graphviz)")
    args = parser.parse_args(argv)

    # 0-d float32 tensors (the default dtype) that require grad are the leaves of the graph.
    x1 = torch.tensor(2.0, requires_grad=True)
    x2 = torch.tensor(0.0, requires_grad=True)
    w1 = torch.tensor(-3.0, requires_grad=True)
    w2 = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(6.8813735870195432, requires_grad=True)

    n = x1 * w1 + x2 * w2 + b  # the neuron's weighted sum ...
    o = n.tanh()               # ... squashed by its activation
    o.backward()               # fills .grad of every leaf with do/d(leaf)

    print(f"o = {o.item():.4f}")
    values = {"o": o.item()}
    for name, t in [("x1", x1), ("w1", w1), ("x2", x2), ("w2", w2), ("b", b)]:
        print(f"do/d{name} = {t.grad.item():+.4f}")
        values[name] = t.grad.item()

    if args.graph:
        labels = {x1: "x1", x2: "x2", w1: "w1", w2: "w2", b: "b", n: "n", o: "o"}
        wants_render = not args.graph.endswith((".dot", ".gv"))
        if wants_render and shutil.which("dot") is None:
            # Still useful without Graphviz: keep the DOT text next to where the picture would go.
            args.graph += ".dot"
            print("Graphviz `dot` is not installed (apt-get install graphviz); writing DOT text instead")
        draw_graph(o, labels=labels, path=args.graph)
        print(f"graph written to {args.graph}")
        values["graph"] = args.graph
    return values


if __name__ == "__main__":
    main()
