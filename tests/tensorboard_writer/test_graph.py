"""add_graph: the GraphDef read back by TensorBoard holds one node per autograd node, scoped by module."""
import numpy as np
import pytest

from _read import accumulator

import npgrad
from npgrad import nn
from npgrad.utils.tensorboard import SummaryWriter


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        h = self.fc1(x).relu()  # the relu runs in Net's own forward, between two submodules
        return self.fc2(self.block(h) + h)


def _graph(tmp_path, model, inputs, **kw):
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, inputs, **kw)
    acc = accumulator(tmp_path)
    assert acc.Tags()["run_metadata"] == ["step1"]
    return {n.name: n for n in acc.Graph().node}


def test_graph_nodes_named_by_grad_fn_and_module(tmp_path):
    x = npgrad.randn(2, 4)
    nodes = _graph(tmp_path, Net(), x)
    ops = sorted(n.name for n in nodes.values() if n.op not in ("Parameter", "IO Node"))
    assert ops == ["Net/AddBackward0", "Net/Linear[fc1]/AddmmBackward0", "Net/Linear[fc2]/AddmmBackward0",
                   "Net/ReluBackward0", "Net/Sequential[block]/Linear[0]/AddmmBackward0",
                   "Net/Sequential[block]/Tanh[1]/TanhBackward0"]
    params = sorted(n for n, d in nodes.items() if d.op == "Parameter")
    assert params == sorted(f"Net/{s}/{p}" for s in ("Linear[fc1]", "Sequential[block]/Linear[0]", "Linear[fc2]")
                            for p in ("weight", "bias"))
    assert len(nodes) == 6 + 6 + 2
    assert nodes["input/input.0"].op == "IO Node"
    assert list(nodes["output/output.0"].input) == ["Net/Linear[fc2]/AddmmBackward0"]
    assert set(nodes["Net/Linear[fc1]/AddmmBackward0"].input) == {"input/input.0", "Net/Linear[fc1]/weight",
                                                                 "Net/Linear[fc1]/bias"}
    assert set(nodes["Net/AddBackward0"].input) == {"Net/Sequential[block]/Tanh[1]/TanhBackward0",
                                                     "Net/ReluBackward0"}
    shape = nodes["Net/Linear[fc2]/AddmmBackward0"].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [2, 3]
    # every input names a node of the graph
    assert all(i in nodes for n in nodes.values() for i in n.input)


def test_graph_repeated_ops_get_unique_names_and_input_is_left_alone(tmp_path, capsys):
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3), nn.ReLU())
    x = npgrad.randn(1, 3)
    nodes = _graph(tmp_path, model, [x], verbose=True)
    assert "Sequential/ReLU[1]/ReluBackward0" in nodes and "Sequential/ReLU[3]/ReluBackward0" in nodes
    assert not x.requires_grad and x.grad_fn is None
    assert "Sequential/Linear[0]/AddmmBackward0 = AddmmBackward0(" in capsys.readouterr().out


def test_graph_of_two_inputs_and_tuple_output(tmp_path):
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, a, b):
            return self.lin(a) * b, a.sum()

    nodes = _graph(tmp_path, Two(), (npgrad.randn(3, 2), npgrad.randn(3, 2)))
    assert {"input/input.0", "input/input.1", "output/output.0", "output/output.1"} <= set(nodes)
    assert set(nodes["Two/MulBackward0"].input) == {"Two/Linear[lin]/AddmmBackward0", "input/input.1"}
    assert list(nodes["output/output.1"].input) == ["Two/SumBackward0"]
