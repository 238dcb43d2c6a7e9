"""The ``resnet18`` benchmark workload: torchvision's resnet18 from each framework's own vision package,
trained a step; both frameworks must compute the same step-0 loss or the timing compares nothing."""
import math
import os
import sys

from tv_oracle import HAS_TV

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import models  # noqa: E402


def test_resnet18_workload_is_npgrad_vision_model_and_trains():
    import npgrad
    from npgrad.vision.models import ResNet
    model, step = models.resnet18(npgrad, batch=4)
    assert isinstance(model, ResNet) and model.fc.out_features == 10
    before = [p.detach().clone() for p in model.parameters()]
    loss0 = models.check_value(step())
    assert math.isfinite(loss0)
    assert any(not npgrad.equal(a, p) for a, p in zip(before, model.parameters()))  # SGD moved the weights
    if HAS_TV:
        import torch
        tmodel, tstep = models.resnet18(torch, batch=4)
        assert [n for n, _ in tmodel.named_parameters()] == [n for n, _ in model.named_parameters()]
        lt = models.check_value(tstep())
        assert abs(loss0 - lt) <= 1e-4 * abs(lt) + 1e-5, (loss0, lt)
