"""npgrad.utils.summary(model, input_size): the layers in call order with their output shapes and parameter
counts, the totals (trainable and not) and the memory estimate, checked against the model itself."""
import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from npgrad.utils import summary


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 6 * 6, 10))

    def forward(self, x):
        return self.head(self.bn(self.conv(x)).relu())


def test_rows_shapes_and_counts_follow_the_forward_pass():
    model = Net()
    model.head[1].bias.requires_grad_(False)
    s = summary(model, (2, 1, 8, 8))
    assert [(r.name, r.type, r.depth) for r in s.layers] == [
        ("", "Net", 0), ("conv", "Conv2d", 1), ("bn", "BatchNorm2d", 1), ("head", "Sequential", 1),
        ("head.0", "Flatten", 2), ("head.1", "Linear", 2)]
    x = npgrad.rand(2, 1, 8, 8)
    c = model.conv(x)
    assert [r.output_shape for r in s.layers] == [[2, 10], list(c.shape), list(c.shape), [2, 10],
                                                  [2, 4 * 6 * 6], [2, 10]]
    assert [r.num_params for r in s.layers] == [0, 4 * 9 + 4, 8, 0, 0, 144 * 10 + 10]
    assert s.total_params == sum(p.numel() for p in model.parameters()) == 40 + 8 + 1450
    assert s.non_trainable_params == 10 and s.trainable_params == s.total_params - 10
    assert s.param_bytes == 4 * s.total_params + sum(b.numel() * b.element_size() for b in model.buffers())
    assert s.input_bytes == 2 * 64 * 4
    leaf_outputs = [c, c, c.reshape(2, -1), model(x)]  # conv, bn, flatten, linear
    assert s.output_bytes == sum(t.numel() * 4 for t in leaf_outputs)
    assert s.estimated_total_bytes == s.input_bytes + 2 * s.output_bytes + s.param_bytes
    assert model.training  # the model's mode is left as it was


def test_the_table_shows_what_the_object_holds():
    s = summary(Net(), (2, 1, 8, 8), depth=1)
    text = str(s)
    assert "└─Conv2d (conv)" in text and "[2, 4, 6, 6]" in text and "Flatten" not in text  # depth 1 only
    assert f"Total params: {s.total_params:,}" in text and "Non-trainable params: 0" in text
    assert f"Params size (MB): {s.param_bytes / 1e6:.2f}" in text
    assert "1,450" in text  # the head's own and its children's parameters, since they are not listed
    assert summary(Net(), (2, 1, 8, 8)).total_params == s.total_params  # depth changes rows, not totals


def test_a_shared_layer_is_listed_per_call_and_counted_once():
    lin = nn.Linear(3, 3)
    model = nn.Sequential(lin, nn.ReLU(), lin)
    s = summary(model, input_data=npgrad.ones(5, 3))
    assert [r.type for r in s.layers] == ["Sequential", "Linear", "ReLU", "Linear"]
    assert s.total_params == 12


def test_several_inputs_with_their_dtypes():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 4)

        def forward(self, ids, scale):
            return self.emb(ids) * scale

    s = summary(Two(), [(3, 5), (3, 5, 1)], dtypes=[npgrad.int64, npgrad.float32])
    assert s.layers[1].output_shape == [3, 5, 4] and s.total_params == 28
    assert s.input_bytes == 15 * 8 + 15 * 4


@pytest.mark.parametrize("kwargs, error, match", [
    ({}, ValueError, "give input_size"),
    ({"input_size": (2, -1)}, ValueError, "non-negative ints"),
    ({"input_size": [(2, 3), (2, 3)], "dtypes": [npgrad.float32]}, ValueError, "2 input sizes but 1 dtypes"),
])
def test_bad_input_is_said(kwargs, error, match):
    with pytest.raises(error, match=match):
        summary(nn.Linear(3, 2), **kwargs)
    with pytest.raises(TypeError, match="must be an nn.Module"):
        summary(lambda x: x, (1, 3))


def test_hooks_are_removed_after_the_run():
    model = Net()
    summary(model, (1, 1, 8, 8))
    out = model(npgrad.ones(1, 1, 8, 8))
    assert all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())
    assert np.isfinite(out.detach().numpy()).all()
