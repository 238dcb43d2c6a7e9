"""Op table: grid_sample and affine_grid (nn/_functional/grid.py), family "grid": tests/nn/test_grid_sample.py
runs the rows against PyTorch (float32, float64: values, input and grid gradients), finite differences,
double backward and the no-float32-upcast check; its error rows there too."""
import itertools

from oracle import In
from _record import FAMILY, OpInfo, Sample, second


def F_(lib):
    return lib.nn.functional


def _row(name, fn, inputs, grad_tol=None):
    return Sample(name, fn, inputs, checks=FAMILY, fd_tol=1e-5, grad_tol=grad_tol)


# bicubic's grid gradient sums sixteen taps of cubic-weight derivatives that cancel: in float32 PyTorch's
# order of that sum and ours differ by a few units of 1e-6 on results near 0.06
_BICUBIC_GRAD_TOL = dict(rtol=1e-5, atol=2e-5)


_IN4, _GRID4 = In((2, 2, 3, 4)), In((2, 3, 2, 2), -1.25, 1.25)
_IN5, _GRID5 = In((1, 2, 2, 3, 4)), In((1, 2, 2, 2, 3), -1.25, 1.25)

_SAMPLE = []
for mode, pad, ac in itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"),
                                       (False, True)):
    _SAMPLE.append(_row(f"grid_sample_{mode}_{pad}_{'ac' if ac else 'noac'}",
                        lambda l, x, g, m=mode, p=pad, a=ac: F_(l).grid_sample(x, g, mode=m, padding_mode=p,
                                                                                 align_corners=a), [_IN4, _GRID4],
                        _BICUBIC_GRAD_TOL if mode == "bicubic" else None))
    if mode != "bicubic":
        _SAMPLE.append(_row(f"grid_sample_3d_{mode}_{pad}_{'ac' if ac else 'noac'}",
                            lambda l, x, g, m=mode, p=pad, a=ac: F_(l).grid_sample(x, g, mode=m, padding_mode=p,
                                                                                     align_corners=a), [_IN5, _GRID5]))
_SAMPLE.append(_row("grid_sample_far_outside", lambda l, x, g: F_(l).grid_sample(x, g * 3, padding_mode="reflection",
                                                                                  align_corners=False),
                    [_IN4, _GRID4]))
_SAMPLE.append(_row("grid_sample_one_pixel_wide", lambda l, x, g: F_(l).grid_sample(x, g, padding_mode="reflection",
                                                                                     align_corners=True),
                    [In((1, 2, 3, 1)), In((1, 2, 2, 2), -1.25, 1.25)]))

_AFFINE = [
    _row("affine_grid_2d", lambda l, t: F_(l).affine_grid(t, [2, 3, 4, 5], align_corners=False), [In((2, 2, 3))]),
    _row("affine_grid_2d_ac", lambda l, t: F_(l).affine_grid(t, [2, 1, 3, 2], align_corners=True), [In((2, 2, 3))]),
    _row("affine_grid_3d", lambda l, t: F_(l).affine_grid(t, (1, 2, 2, 3, 4), align_corners=False), [In((1, 3, 4))]),
    _row("affine_grid_3d_ac", lambda l, t: F_(l).affine_grid(t, (2, 1, 3, 2, 2), align_corners=True), [In((2, 3, 4))]),
    _row("affine_grid_then_sample", lambda l, t, x: F_(l).grid_sample(x, F_(l).affine_grid(t, [2, 2, 3, 3],
                                                                                            align_corners=False),
                                                                     align_corners=False),
         [In((2, 2, 3), -0.8, 0.8), _IN4]),
]


def _gs(**kw):
    def call(l):
        x, g = kw.pop("x", l.zeros(1, 1, 2, 2)), kw.pop("g", l.zeros(1, 2, 2, 2))
        return F_(l).grid_sample(x, g, **kw)
    return call


_RAISES_SAMPLE = [
    ("grid_sample_mode", _gs(mode="area"), ValueError,
     "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"),
    ("grid_sample_padding", _gs(padding_mode="wrap", align_corners=False), ValueError,
     "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'wrap'"),
    ("grid_sample_batch", lambda l: F_(l).grid_sample(l.zeros(1, 1, 2, 2), l.zeros(2, 2, 2, 2), align_corners=False),
     RuntimeError, "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                   "[1, 1, 2, 2] and grid with sizes [2, 2, 2, 2]"),
    ("grid_sample_last_dim", lambda l: F_(l).grid_sample(l.zeros(1, 1, 2, 2), l.zeros(1, 2, 2, 3), align_corners=False),
     RuntimeError, "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
                   "[1, 2, 2, 3]"),
    ("grid_sample_empty_spatial", lambda l: F_(l).grid_sample(l.zeros(1, 1, 0, 2), l.zeros(1, 2, 2, 2),
                                                              align_corners=False),
     RuntimeError, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                   "[1, 1, 0, 2] with dimension 2 being empty"),
    ("grid_sample_dtype", lambda l: F_(l).grid_sample(l.zeros(1, 1, 2, 2, dtype=l.float64), l.zeros(1, 2, 2, 2),
                                                      align_corners=False),
     RuntimeError, "expected scalar type Double but found Float"),
    ("grid_sample_bicubic_3d", lambda l: F_(l).grid_sample(l.zeros(1, 1, 2, 2, 2), l.zeros(1, 1, 1, 1, 3),
                                                           mode="bicubic", align_corners=False),
     RuntimeError, "grid_sampler(): bicubic interpolation only supports 4D input"),
    ("grid_sample_long", lambda l: F_(l).grid_sample(l.zeros(1, 1, 2, 2, dtype=l.long), l.zeros(1, 2, 2, 2,
                                                                                                dtype=l.long),
                                                     align_corners=False),
     NotImplementedError, "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'"),
]
_RAISES_AFFINE = [
    ("affine_grid_long", lambda l: F_(l).affine_grid(l.zeros(1, 2, 3, dtype=l.long), [1, 1, 2, 2], align_corners=False),
     ValueError, "Expected theta to have floating point type, but got torch.int64"),
    ("affine_grid_shape_2d", lambda l: F_(l).affine_grid(l.zeros(1, 3, 4), [1, 1, 2, 2], align_corners=False),
     ValueError, "Expected a batch of 2D affine matrices of shape Nx2x3 for size [1, 1, 2, 2]. "
                 "Got torch.Size([1, 3, 4])."),
    ("affine_grid_shape_3d", lambda l: F_(l).affine_grid(l.zeros(1, 2, 3), [1, 1, 2, 2, 2], align_corners=False),
     ValueError, "Expected a batch of 3D affine matrices of shape Nx3x4 for size [1, 1, 2, 2, 2]. "
                 "Got torch.Size([1, 2, 3])."),
    ("affine_grid_rank", lambda l: F_(l).affine_grid(l.zeros(1, 2, 3), [1, 1, 2], align_corners=False),
     NotImplementedError, "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
                          "Got size [1, 1, 2]."),
    ("affine_grid_empty", lambda l: F_(l).affine_grid(l.zeros(1, 2, 3), [1, 1, 0, 2], align_corners=False),
     ValueError, "Expected non-zero, positive output size. Got [1, 1, 0, 2]"),
    ("affine_grid_batch", lambda l: F_(l).affine_grid(l.zeros(2, 2, 3), [1, 1, 2, 2], align_corners=False),
     RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [1, 3] but got: [2, 3]."),
]

OPS = [
    OpInfo("F.grid_sample", "grid", _SAMPLE[0].fn, samples=_SAMPLE + [
        second("grid_sample", lambda l, x, g: F_(l).grid_sample(x, g, align_corners=False),
               [In((1, 2, 3, 3)), In((1, 2, 2, 2), -0.9, 0.9)])], raises=_RAISES_SAMPLE),
    OpInfo("F.affine_grid", "grid", _AFFINE[0].fn, samples=_AFFINE, raises=_RAISES_AFFINE),
]
