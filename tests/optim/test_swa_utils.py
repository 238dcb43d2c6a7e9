"""torch.optim.swa_utils: AveragedModel (SWA, EMA, buffers), SWALR and update_bn agree with PyTorch."""
import math
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.optim import swa_utils
from oracle import HAS_TORCH, torch


def _model(lib, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    if dtype == np.float64:
        m = m.double()
    for p in m.parameters():
        p.data.copy_(lib.tensor(rng.normal(size=tuple(p.shape)).astype(dtype)))
    return m


def _perturb(lib, model, t, dtype):
    # deterministic changes of every parameter and BatchNorm statistic, as if training moved them
    for k, p in enumerate(model.parameters()):
        p.data.copy_(p.data + lib.tensor(np.full(tuple(p.shape), 0.1 * (t + 1) * (-1) ** k, dtype)))
    bn = model[1]
    bn.running_mean.copy_(bn.running_mean + lib.tensor(np.full(4, 0.3 * t, dtype)))
    bn.num_batches_tracked.add_(t + 1)


def _averages(lib, dtype, steps=5, **kw):
    model = _model(lib, dtype)
    kw = {k: (v(lib) if callable(v) and k != "device" else v) for k, v in kw.items()}
    avg = lib.optim.swa_utils.AveragedModel(model, **kw)
    for t in range(steps):
        _perturb(lib, model, t, dtype)
        avg.update_parameters(model)
    return {k: v.detach().numpy().copy() for k, v in avg.state_dict().items()}


def test_swa_average_is_the_mean_without_torch():
    model = _model(npgrad, np.float64)
    avg = swa_utils.AveragedModel(model)
    seen = []
    for t in range(4):
        _perturb(npgrad, model, t, np.float64)
        avg.update_parameters(model)
        seen.append([p._data.copy() for p in model.parameters()])
    for k, p in enumerate(avg.module.parameters()):
        np.testing.assert_allclose(p._data, np.mean([s[k] for s in seen], 0), rtol=1e-13)
    assert int(avg.n_averaged) == 4 and avg.n_averaged.dtype == npgrad.int64
    # buffers are copied, not averaged, without use_buffers
    np.testing.assert_array_equal(avg.module[1].running_mean._data, model[1].running_mean._data)
    x = npgrad.tensor(np.ones((2, 3)))
    avg.eval()
    model.eval()
    assert avg(x).shape == (2, 2)


def test_ema_closed_form_without_torch():
    p = npgrad.nn.Linear(1, 1, bias=False)
    p.weight.data.fill_(1.0)
    ema = swa_utils.AveragedModel(p, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    for w in (3.0, 5.0):
        p.weight.data.fill_(w)
        ema.update_parameters(p)
    # first update copies 3, then 0.5 * 3 + 0.5 * 5
    assert float(ema.module.weight) == 4.0
    with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in \[0,1\] range."):
        swa_utils.get_ema_avg_fn(1.5)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        swa_utils.AveragedModel(p, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn())


def test_swalr_closed_form_without_torch():
    p = npgrad.tensor([1.0], requires_grad=True)
    opt = npgrad.optim.SGD([p], lr=1.0)
    sched = swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=4, anneal_strategy="linear")
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(lrs, [1.0, 0.775, 0.55, 0.325, 0.1, 0.1, 0.1], rtol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)


def test_update_bn_gives_the_plain_average_without_torch():
    model = _model(npgrad, np.float64)
    rng = np.random.default_rng(2)
    batches = [npgrad.tensor(rng.normal(size=(8, 3))) for _ in range(3)]
    model.eval()
    swa_utils.update_bn([(b, None) for b in batches], model)
    assert not model.training and model[1].momentum == 0.1
    h = np.concatenate([(model[0](b)).detach().numpy() for b in batches])
    np.testing.assert_allclose(model[1].running_mean._data, h.mean(0), rtol=1e-12)
    assert int(model[1].num_batches_tracked) == 3


if HAS_TORCH:
    AVG_OPTIONS = {
        "swa": {}, "swa_buffers": dict(use_buffers=True),
        "ema_fn": dict(avg_fn=lambda lib: lib.optim.swa_utils.get_ema_avg_fn(0.9)),
        "ema_multi": dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(0.8)),
        "ema_multi_buffers": dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(0.8),
                                  use_buffers=True),
        "swa_fn": dict(avg_fn=lambda lib: lib.optim.swa_utils.get_swa_avg_fn()),
        "swa_multi": dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_swa_multi_avg_fn()),
        "ema_fn_buffers": dict(avg_fn=lambda lib: lib.optim.swa_utils.get_ema_avg_fn(0.7), use_buffers=True),
    }

    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("option", list(AVG_OPTIONS))
    def test_averaged_model_matches_torch(option, dtype):
        ours = _averages(npgrad, dtype, **AVG_OPTIONS[option])
        theirs = _averages(torch, dtype, **AVG_OPTIONS[option])
        assert list(ours) == list(theirs)
        tol = dict(rtol=1e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
        for k in ours:
            assert ours[k].dtype == theirs[k].dtype, k
            np.testing.assert_allclose(ours[k], theirs[k], **tol, err_msg=k)

    def test_swa_multi_avg_fn_refuses_integer_buffers_as_torch():
        # PyTorch's SWA multi_avg_fn ends in addcdiv, which refuses BatchNorm's int64 num_batches_tracked
        kw = dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_swa_multi_avg_fn(), use_buffers=True)
        with pytest.raises(RuntimeError) as theirs:
            _averages(torch, np.float32, **kw)
        with pytest.raises(RuntimeError) as ours:
            _averages(npgrad, np.float32, **kw)
        assert str(ours.value) == str(theirs.value)

    @pytest.mark.parametrize("strategy", ["cos", "linear"])
    @pytest.mark.parametrize("anneal_epochs", [0, 1, 5])
    def test_swalr_matches_torch(strategy, anneal_epochs):
        def lrs(lib):
            ps = [lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)]
            opt = lib.optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.3}], lr=0.5)
            warm = lib.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
            swa = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.2], anneal_epochs=anneal_epochs,
                                            anneal_strategy=strategy)
            out = []
            for t in range(9):
                opt.step()
                (warm if t < 3 else swa).step()
                out.append(swa.get_last_lr() if t >= 3 else [g["lr"] for g in opt.param_groups])
            sd = swa.state_dict()
            return out, sorted(sd), sd["anneal_epochs"]
        ours, theirs = lrs(npgrad), lrs(torch)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-15)
        assert ours[1:] == theirs[1:]

    def test_swalr_state_dict_round_trip_and_errors_match_torch():
        p = npgrad.tensor([1.0], requires_grad=True)
        opt = npgrad.optim.SGD([p], lr=1.0)
        s1 = swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=3)
        opt.step()
        s1.step()
        s2 = swa_utils.SWALR(npgrad.optim.SGD([npgrad.tensor([1.0], requires_grad=True)], lr=1.0), swa_lr=0.5,
                             anneal_strategy="linear")
        s2.load_state_dict(s1.state_dict())
        assert s2.anneal_func is s2._cosine_anneal and s2.anneal_epochs == 3
        topt = torch.optim.SGD([torch.tensor([1.0], requires_grad=True)], lr=1.0)
        for kw in [dict(anneal_strategy="exp"), dict(anneal_epochs=1.5), dict(swa_lr=[0.1, 0.2])]:
            args = {"swa_lr": 0.1, **kw}
            with pytest.raises(ValueError) as theirs:
                torch.optim.swa_utils.SWALR(topt, **args)
            with pytest.raises(ValueError) as ours:
                swa_utils.SWALR(opt, **args)
            assert str(ours.value) == str(theirs.value)

    def test_update_bn_matches_torch():
        def run(lib):
            model = _model(lib, np.float32)
            rng = np.random.default_rng(5)
            data = [lib.tensor(rng.normal(size=(6, 3)).astype(np.float32)) for _ in range(4)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.optim.swa_utils.update_bn(data, model)
            bn = model[1]
            return bn.running_mean.numpy(), bn.running_var.numpy(), int(bn.num_batches_tracked), model.training
        ours, theirs = run(npgrad), run(torch)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
        assert ours[2:] == theirs[2:]

    def test_names_match_torch():
        assert sorted(swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
        assert math.isclose(swa_utils.SWALR._cosine_anneal(0.25), torch.optim.swa_utils.SWALR._cosine_anneal(0.25))

    def test_swalr_edge_cases_match_torch():
        # get_lr called outside step() warns; an unhashable strategy is refused as a value; a NaN decay passes
        def run(lib):
            opt = lib.optim.SGD([lib.tensor([1.0], requires_grad=True)], lr=1.0)
            sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lrs = sched.get_lr()
            with pytest.raises(ValueError) as refused:
                lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy=["cos"])
            lib.optim.swa_utils.get_ema_avg_fn(float("nan"))
            return lrs, [(w.category, str(w.message)) for w in caught], str(refused.value)
        ours, theirs = run(npgrad), run(torch)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-15)
        assert ours[1:] == theirs[1:]
