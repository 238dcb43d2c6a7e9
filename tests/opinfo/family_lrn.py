"""Op table: local_response_norm (nn/_functional/lrn.py), family "lrn": tests/nn/test_lrn.py runs the rows
against PyTorch (float32, float64), finite differences, double backward and the no-float32-upcast check."""
from oracle import In
from _record import FAMILY, OpInfo, Sample, second


def F_(lib):
    return lib.nn.functional


def _row(name, fn, shapes):
    return Sample(name, fn, [In(s) for s in shapes], checks=FAMILY, fd_tol=1e-5)


_ROWS = [
    _row("lrn_3d_size3", lambda l, x: F_(l).local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.5), [(2, 5, 4)]),
    _row("lrn_4d_size2", lambda l, x: F_(l).local_response_norm(x, 2, alpha=0.3, beta=0.6), [(2, 4, 3, 2)]),
    _row("lrn_4d_defaults", lambda l, x: F_(l).local_response_norm(x, 5), [(1, 6, 2, 3)]),
    _row("lrn_5d_size4", lambda l, x: F_(l).local_response_norm(x, 4, alpha=1.0, beta=1.0, k=2.0), [(1, 5, 2, 2, 2)]),
    _row("lrn_size_beyond_channels", lambda l, x: F_(l).local_response_norm(x, 7, alpha=0.8, k=0.5), [(2, 3, 2)]),
]

_RAISES = [("lrn_2d", lambda l: F_(l).local_response_norm(l.zeros(2, 3), 3), ValueError,
            "Expected 3D or higher dimensionality                          input (got 2 dimensions)")]

OPS = [OpInfo("F.local_response_norm", "lrn", _ROWS[0].fn,
              samples=_ROWS + [second("local_response_norm", lambda l, x: F_(l).local_response_norm(
                  x, 3, alpha=0.5, k=1.2), [In((2, 4, 3))])], raises=_RAISES)]
