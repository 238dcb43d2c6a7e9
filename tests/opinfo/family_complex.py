"""Op table: complex numbers (npgrad/ops/complex_math.py, and complex samples of the other families' operators;
family "complex", run by tests/complex/test_complex_table.py).

``_c`` rows take inputs given as (shape, kind) with kind "c" (complex, the dtype under test: complex64 and
complex128) or "r" (real, the matching float): values, dtypes and gradients against PyTorch (complex64 rtol 1e-5,
complex128 1e-10) and against complex finite differences (perturbing real and imaginary parts) without it.
``_x`` rows must equal PyTorch's results exactly; ``_r`` rows must raise PyTorch's exception and message."""
import numpy as np

from _record import EXACT, OpInfo, Sample
from _record import raises_like_torch as _r

F = "complex"
COMPLEX = "complex_grad"  # the check tests/complex/test_complex_table.py runs
COMPLEX_DTYPES = (np.complex64, np.complex128)


def _c(name, fn, inputs, fd=True):
    checks = {COMPLEX, COMPLEX + "_fd"} if fd else {COMPLEX}
    # dtypes: what the complex runner uses; the real-dtype suites (onnx export, forward AD) skip these rows,
    # whose (shape, kind) inputs they cannot build
    return Sample(name, fn, tuple(inputs), dtypes=COMPLEX_DTYPES, checks=frozenset(checks))


def _x(name, fn):
    return Sample(name, fn, (), checks=frozenset({EXACT}))


def T(L, *a, **k):
    return L.tensor(*a, **k)


Z, Z2, ZM, ZK, R, RM = ((3,), "c"), ((2, 3), "c"), ((3, 4), "c"), ((4, 2), "c"), ((3,), "r"), ((2, 3), "r")
ZB, ZB2 = ((2, 3, 4), "c"), ((2, 4, 2), "c")


def _entry(name, samples, aliases=(), empty=()):
    return OpInfo(name, F, samples=samples, aliases=aliases, empty=empty)


def _empty(fn, grad=True):
    """Empty-tensor rows (tests/reliability/test_empty_tensors.py): complex inputs, which its generic real
    patterns cannot reach. (grad=False for view_as_real: PyTorch's own backward of an empty one fails, "Tensor
    must have a last dimension with stride 1".)"""
    return [("complex64 (0, 3)", fn, ((0, 3), "complex64", grad)), ("complex128 (2, 0)", fn, ((2, 0), "complex128"))]


OPS = [
    _entry("real", [
        _c("real", lambda L, z: L.real(z) * 2, [Z2]),
        _c("real_property", lambda L, z: z.real.exp(), [Z2]),
        _c("real_write_through", lambda L, z: _written(L, z, "real"), [Z2]),
        _x("real_of_real_is_itself", lambda L: (lambda t: L.real(t) is t)(T(L, [1.0]))),
        _x("real_setter", lambda L: _set(L, "real")),
    ]),
    _entry("imag", empty=_empty(lambda L, z: L.imag(z)), samples=[
        _c("imag", lambda L, z: L.imag(z) * 3, [Z2]),
        _c("imag_write_through", lambda L, z: _written(L, z, "imag"), [Z2]),
        _x("imag_setter", lambda L: _set(L, "imag")),
        _x("imag_of_conj_is_neg", lambda L: [(t := T(L, [1 + 2j]).conj()).imag.is_neg(), t.imag, t.real.is_neg()]),
        _r("imag_of_real", lambda L: T(L, [1.0]).imag),
    ]),
    _entry("view_as_real", empty=_empty(lambda L, z: L.view_as_real(z), False), samples=[
        _c("view_as_real", lambda L, z: L.view_as_real(z) ** 2, [Z2]),
        _x("view_as_real_shares_memory", lambda L: _va_write(L)),
        _r("view_as_real_of_real", lambda L: L.view_as_real(T(L, [1.0]))),
        _r("view_as_real_of_conj", lambda L: L.view_as_real(T(L, [1j]).conj())),
    ]),
    _entry("view_as_complex", [
        _c("view_as_complex", lambda L, x: L.view_as_complex(x.reshape(3, 2)) * (1 + 2j), [((6,), "r")]),
        _c("view_as_complex_roundtrip", lambda L, z: L.view_as_complex(L.view_as_real(z) * 2), [Z2]),
        _x("view_as_complex_values", lambda L: L.view_as_complex(L.arange(8.0).reshape(2, 2, 2))),
        _r("view_as_complex_int", lambda L: L.view_as_complex(L.ones(2, dtype=L.int64))),
        _r("view_as_complex_size", lambda L: L.view_as_complex(L.ones(3))),
        _r("view_as_complex_last_stride", lambda L: L.view_as_complex(L.ones(2, 4)[:, ::2])),
        _r("view_as_complex_odd_stride", lambda L: L.view_as_complex(L.ones(3, 3)[:, :2])),
        _r("view_as_complex_0d", lambda L: L.view_as_complex(T(L, 1.0))),
    ]),
    _entry("view_as_real_copy", empty=_empty(lambda L, z: L.view_as_real_copy(z), False), samples=[
        _c("view_as_real_copy", lambda L, z: L.view_as_real_copy(z) * 2, [Z2]),
        _x("view_as_real_copy_is_a_copy", lambda L: (lambda t: [L.view_as_real_copy(t).mul_(2), t])(T(L, [1 + 2j]))),
    ]),
    _entry("view_as_complex_copy", [
        # (PyTorch has no derivative for it: "does not support automatic differentiation for outputs with complex
        # dtype"; npgrad's is view_as_complex's)
        _x("view_as_complex_copy", lambda L: L.view_as_complex_copy(L.arange(12.0).reshape(2, 3, 2))),
        _x("view_as_complex_copy_is_a_copy", lambda L: (lambda t: [L.view_as_complex_copy(t).mul_(2), t])(
            T(L, [[1.0, 2.0]]))),
    ]),
    _entry("conj", [
        _c("conj", lambda L, z: L.conj(z) * z.exp(), [Z2]),
        _c("conj_method_mul", lambda L, z, w: z.conj() * w, [Z, Z]),
        _x("conj_bit", lambda L: [(c := T(L, [1 + 1j]).conj()).is_conj(), c.conj().is_conj(), c, c.resolve_conj().is_conj(),
                                  T(L, [1.0]).conj().is_conj(), L.is_conj(c), L.resolve_conj(c)]),
        _x("conj_of_real_is_itself", lambda L: (lambda t: t.conj() is t)(T(L, [1.0]))),
    ]),
    _entry("conj_physical", [
        _c("conj_physical", lambda L, z: L.conj_physical(z) * z, [Z2]),
        _x("conj_physical_values", lambda L: [(c := L.conj_physical(T(L, [1 + 1j]))), c.is_conj(),
                                              L.conj_physical(T(L, [1.0, 2.0]))]),
        _x("conj_physical_inplace", lambda L: (lambda t: [t.conj_physical_(), t])(T(L, [1 + 2j, 3j]))),
    ]),
    _entry("is_conj", [_x("is_conj", lambda L: [L.is_conj(T(L, [1j])), L.is_conj(T(L, [1j]).conj())])]),
    _entry("resolve_conj", [_c("resolve_conj", lambda L, z: z.conj().resolve_conj() * z, [Z])]),
    _entry("is_neg", [_x("is_neg", lambda L: [L.is_neg(T(L, [1j])), T(L, [1.0]).is_neg()])]),
    _entry("resolve_neg", [
        _x("resolve_neg", lambda L: [(n := T(L, [1 + 2j]).conj().imag.resolve_neg()), n.is_neg()]),
        _c("resolve_neg_grad", lambda L, z: z.conj().imag.resolve_neg() * 2, [Z]),
    ]),
    _entry("adjoint", [
        _c("adjoint", lambda L, z: L.adjoint(z) @ z, [ZM]),
        _c("adjoint_batched_method", lambda L, z: z.adjoint() * 1.5, [ZB]),
        _x("adjoint_real", lambda L: L.adjoint(L.arange(6.0).reshape(2, 3))),
        _r("adjoint_1d", lambda L: T(L, [1j, 2]).adjoint()),
        _r("matmul_real_complex", lambda L: L.ones(2, 2) @ L.ones(2, 2, dtype=L.complex64)),
        _c("mH", lambda L, z: z.mH @ z, [ZB]),
        _c("H", lambda L, z: z.H * 2, [ZM]),
        _c("mT_no_conj", lambda L, z: z.mT * 2, [ZM]),
    ]),
    _entry("angle", [
        _c("angle", lambda L, z: L.angle(z), [Z2]),
        _c("angle_real", lambda L, x: L.angle(x), [RM]),
        _x("angle_real_values", lambda L: L.angle(T(L, [-1.0, 0.0, 2.0, float("nan")]))),
        _x("angle_int", lambda L: L.angle(T(L, [1, -2]))),
        _x("angle_at_zero_grad", lambda L: L.autograd.grad(L.angle(t := T(L, [0j, 1j], requires_grad=True)).sum(), t)),
    ]),
    _entry("complex", [
        _c("complex", lambda L, a, b: L.complex(a, b) ** 2, [RM, RM]),
        _c("complex_broadcast", lambda L, a, b: L.complex(a, b).exp(), [RM, R]),
        _r("complex_int", lambda L: L.complex(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64))),
        _r("complex_mixed", lambda L: L.complex(L.ones(2), L.ones(2, dtype=L.float64))),
    ]),
    _entry("polar", [
        _c("polar", lambda L, r, t: L.polar(r.abs(), t) * (2 - 1j), [RM, RM]),
        _x("polar_values", lambda L: L.polar(T(L, [1.0, 2.0]), T(L, [0.0, 3.14159265 / 2]))),
        _r("polar_int", lambda L: L.polar(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64))),
    ]),
    _entry("is_complex", [
        _x("isreal_complex", lambda L: [L.isreal(T(L, [1 + 0j, 2j, -0.0j])), T(L, [1.0]).isreal()]),
        _x("is_complex", lambda L: [L.is_complex(T(L, [1j])), L.is_complex(T(L, [1.0])), T(L, 1j).is_complex()]),
        _r("is_complex_scalar", lambda L: L.is_complex(1j)),
    ]),
]


def _written(L, z, part):
    w = z * 1  # a non-leaf copy, whose part is then changed in place through the view
    getattr(w, part).mul_(3)
    return w * z


def _set(L, part):
    t = T(L, [1 + 2j, 3 - 4j])
    setattr(t, part, T(L, [5.0, 6.0]))
    return t


def _va_write(L):
    t = T(L, [1 + 2j, 3 - 4j])
    L.view_as_real(t)[0, 1] = 9.0
    return t


# Complex samples of operators whose entries live in the other families (one entry per operator there): the
# arithmetic, unary math, reductions, products and movement PyTorch computes on complex numbers.
def _u(name, inputs=(Z2,), fd=True):
    return _c(f"{name}_complex", lambda L, *z: getattr(L, name)(*z), inputs, fd)


_UNARY = ["exp", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
          "acos", "atan", "asinh", "acosh", "atanh", "sigmoid", "square", "expm1", "reciprocal", "neg", "exp2", "abs",
          "sgn"]
OTHER_SAMPLES = [_u(n) for n in _UNARY] + [
    _c("add_complex", lambda L, a, b: a + b, [Z2, Z2]),
    _c("add_real_complex", lambda L, a, b: a + b, [RM, Z2]),
    _c("sub_alpha_complex", lambda L, a, b: L.sub(a, b, alpha=2), [Z2, ((3,), "c")]),
    _c("mul_complex", lambda L, a, b: a * b, [Z2, Z2]),
    _c("mul_real_complex", lambda L, a, b: a * b, [RM, ((3,), "c")]),
    _c("mul_python_complex", lambda L, a: a * (2 - 3j), [RM]),
    _c("div_complex", lambda L, a, b: a / b, [Z2, Z2]),
    _c("rdiv_complex", lambda L, a: 1j / a, [Z2]),
    _c("pow_complex", lambda L, a, b: a ** b, [Z2, Z2]),
    _c("pow_scalar_complex", lambda L, a: a ** 3, [Z2]),
    _c("pow_float_scalar_complex", lambda L, a: a ** 0.5, [Z2]),
    _c("rpow_complex", lambda L, a: 2 ** a, [Z2]),
    _c("sum_complex", lambda L, a: a.sum(), [ZB]),
    _c("sum_dim_complex", lambda L, a: a.sum(1), [ZB]),
    _c("mean_complex", lambda L, a: a.mean(0), [ZB]),
    _c("prod_complex", lambda L, a: a.prod(), [Z2]),
    _c("prod_dim_complex", lambda L, a: a.prod(1), [Z2]),
    _c("cumsum_complex", lambda L, a: a.cumsum(1), [Z2]),
    _c("cumprod_complex", lambda L, a: a.cumprod(1), [Z2]),
    _c("var_complex", lambda L, a: a.var(1), [ZB]),
    _c("std_complex", lambda L, a: a.std(), [ZB]),
    _c("matmul_complex", lambda L, a, b: a @ b, [ZM, ZK]),
    _c("mm_complex", lambda L, a, b: L.mm(a, b), [ZM, ZK]),
    _c("bmm_complex", lambda L, a, b: L.bmm(a, b), [ZB, ZB2]),
    _c("einsum_complex", lambda L, a, b: L.einsum("bij,bjk->bik", a, b), [ZB, ZB2]),
    _c("dot_complex", lambda L, a, b: L.dot(a, b), [Z, Z]),
    _c("vdot_complex", lambda L, a, b: L.vdot(a, b), [Z, Z]),
    _c("inner_complex", lambda L, a, b: L.inner(a, b), [Z2, ((4, 3), "c")]),
    _c("outer_complex", lambda L, a, b: L.outer(a, b), [Z, ((2,), "c")]),
    _c("reshape_complex", lambda L, a: a.reshape(3, 2) * 2, [Z2]),
    _c("transpose_complex", lambda L, a: a.t() * 2, [Z2]),
    _c("index_complex", lambda L, a: a[1, 1:] * a[0, :2], [Z2]),
    _c("index_tensor_complex", lambda L, a: a[:, L.tensor([2, 0, 2])], [Z2]),
    _c("cat_stack_complex", lambda L, a, b: L.stack([L.cat([a, b]), L.cat([b, a])]), [Z, Z]),
    _c("flip_permute_expand_complex", lambda L, a: a.flip(0).permute(1, 0).unsqueeze(0).expand(2, 3, 2) * 1, [Z2]),
    _c("where_complex", lambda L, a, b: L.where(L.tensor([True, False, True]), a, b), [Z, Z]),
    _c("gather_complex", lambda L, a: L.gather(a, 1, L.tensor([[0, 2], [1, 1]])), [Z2]),
    _c("abs_square_loss", lambda L, a: (a.abs() ** 2).sum(), [Z2]),
    _c("norm_complex", lambda L, a: a.norm(), [Z2]),
    _c("norm_p_dim_complex", lambda L, a: L.norm(a, 3, dim=1), [Z2]),
    _c("vector_norm_complex", lambda L, a: L.linalg.vector_norm(a, 1.5, dim=0), [Z2]),
    _c("cast_real_to_complex", lambda L, x: x.to(L.complex64 if x.dtype == L.float32 else L.complex128) * (1 + 1j),
       [RM]),
    _c("addcmul_complex", lambda L, a, b, c: L.addcmul(a, b, c, value=2), [Z, Z, Z]),
    _c("lerp_complex", lambda L, a, b: L.lerp(a, b, 0.3), [Z, Z]),
]


# PyTorch's refusals of complex input by operators of the other families (compared by class and message).
def _z(L):
    return T(L, [1 + 2j, 3 - 1j])


ERROR_ROWS = [_r(name, fn) for name, fn in [
    ("lt_complex", lambda L: _z(L) < _z(L)), ("gt_scalar_complex", lambda L: _z(L) > 1),
    ("le_real_complex", lambda L: L.ones(2) <= _z(L)), ("ge_complex", lambda L: L.ge(_z(L), _z(L))),
    ("max_complex", lambda L: _z(L).max()), ("max_dim_complex", lambda L: _z(L).max(0)),
    ("min_complex", lambda L: _z(L).min()), ("min_dim_complex", lambda L: L.min(_z(L), 0)),
    ("amax_complex", lambda L: _z(L).amax()), ("amin_complex", lambda L: _z(L).amin()),
    ("aminmax_complex", lambda L: _z(L).aminmax()),
    ("maximum_complex", lambda L: L.maximum(_z(L), _z(L))), ("minimum_complex", lambda L: L.minimum(_z(L), _z(L))),
    ("sort_complex", lambda L: _z(L).sort()), ("argsort_complex", lambda L: _z(L).argsort()),
    ("msort_complex", lambda L: _z(L).msort()), ("topk_complex", lambda L: _z(L).topk(1)),
    ("kthvalue_complex", lambda L: _z(L).kthvalue(1)),
    ("argmax_complex", lambda L: _z(L).argmax()), ("argmin_complex", lambda L: _z(L).argmin(0)),
    ("clamp_complex", lambda L: _z(L).clamp(0, 1)), ("clamp_min_complex", lambda L: _z(L).clamp(min=0)),
    ("relu_complex", lambda L: L.relu(_z(L))), ("sign_complex", lambda L: _z(L).sign()),
    ("floor_complex", lambda L: _z(L).floor()), ("ceil_complex", lambda L: _z(L).ceil()),
    ("trunc_complex", lambda L: _z(L).trunc()),
    ("remainder_complex", lambda L: _z(L) % 2), ("floor_divide_complex", lambda L: _z(L) // 2),
    ("fmod_complex", lambda L: L.fmod(_z(L), 2)),
    ("backward_of_complex", lambda L: L.ones(1, dtype=L.cfloat, requires_grad=True).sum().backward()),
]]
ERROR_ROWS += [_r(name, fn) for name, fn in [
    ("round_complex", lambda L: _z(L).round()), ("erf_complex", lambda L: _z(L).erf()),
    ("erfc_complex", lambda L: L.erfc(_z(L))), ("lgamma_complex", lambda L: _z(L).lgamma()),
    ("digamma_complex", lambda L: _z(L).digamma()), ("erfinv_complex", lambda L: _z(L).erfinv()),
    ("atan2_complex", lambda L: L.atan2(_z(L), _z(L))), ("cummax_complex", lambda L: _z(L).cummax(0)),
    ("cummin_complex", lambda L: L.cummin(_z(L), 0)), ("median_complex", lambda L: _z(L).median()),
    ("nanmedian_complex", lambda L: _z(L).nanmedian()), ("mode_complex", lambda L: _z(L).mode()),
    ("unique_complex", lambda L: _z(L).unique()), ("isin_complex", lambda L: L.isin(_z(L), _z(L))),
]]
ERROR_ROWS += [_r("xlogy_complex", lambda L: L.xlogy(_z(L), _z(L)))]
OTHER_SAMPLES += [_c("dist_complex", lambda L, a, b: L.dist(a, b), [Z2, Z2]),
                  _c("dist_p1_complex", lambda L, a, b: L.dist(a, b, 1), [Z2, Z2])]
ERROR_ROWS += [_r(name, fn) for name, fn in [
    ("copysign_complex", lambda L: L.copysign(_z(L), _z(L))), ("heaviside_complex", lambda L: L.heaviside(_z(L), _z(L))),
    ("signbit_complex", lambda L: _z(L).signbit()), ("isposinf_complex", lambda L: _z(L).isposinf()),
    ("isneginf_complex", lambda L: L.isneginf(_z(L))),
]]
OTHER_SAMPLES += [_c("logsumexp_complex", lambda L, a: L.logsumexp(a, 1), [Z2]),
                  _c("logsumexp_all_complex", lambda L, a: a.logsumexp((0, 1), keepdim=True), [Z2])]

# torch.linalg on complex matrices (and linalg.eig/eigvals, complex for real input too). Losses on singular and
# eigen vectors are built to be independent of the vectors' free phases, as PyTorch requires.
ZS, ZS3, ZT, ZW, RS = ((3, 3), "c"), ((2, 3, 3), "c"), ((4, 3), "c"), ((3, 5), "c"), ((3, 3), "r")


def _hpd(L, x):
    return x @ x.mH + L.eye(x.shape[-1])


def _eig_rebuilt(L, w, v):
    return (v * w.unsqueeze(-2)) @ L.linalg.inv(v)


def _in_order(L, w, v=None):
    """Eigenvalues (and their vectors) sorted: LAPACK builds may order a general matrix's eigenvalues differently
    (PyTorch's and NumPy's single-precision geev do, for a few percent of random matrices)."""
    idx = (w.real + 0.1 * w.imag).argsort(-1)
    w = w.gather(-1, idx)
    if v is None:
        return w
    return w, v.gather(-1, idx.unsqueeze(-2).expand(v.shape))


def _eig_outputs(L, w, v):
    ws, vs = _in_order(L, w, v)
    return ws, vs.abs(), _eig_rebuilt(L, w, v)


OTHER_SAMPLES += [
    _c("linalg_inv_complex", lambda L, a: L.linalg.inv(a), [ZS3]),
    _c("inverse_complex", lambda L, a: L.inverse(a), [ZS]),
    _c("linalg_det_complex", lambda L, a: L.linalg.det(a), [ZS3]),
    _c("det_complex", lambda L, a: a.det(), [ZS]),
    _c("linalg_slogdet_complex", lambda L, a: tuple(L.linalg.slogdet(a)), [ZS3]),
    _c("slogdet_sign_complex", lambda L, a: L.slogdet(a)[0], [ZS]),
    _c("linalg_solve_complex", lambda L, a, b: L.linalg.solve(a, b), [ZS3, ((2, 3, 2), "c")]),
    _c("linalg_solve_vector_complex", lambda L, a, b: L.linalg.solve(a, b), [ZS, Z]),
    _c("linalg_lstsq_complex", lambda L, a, b: L.linalg.lstsq(a, b).solution, [ZT, ((4, 2), "c")]),
    _c("linalg_qr_complex", lambda L, a: tuple(L.linalg.qr(a)), [ZT]),
    _c("linalg_qr_square_batched_complex", lambda L, a: tuple(L.linalg.qr(a)), [ZS3]),
    _c("linalg_qr_wide_complex", lambda L, a: tuple(L.linalg.qr(a)), [ZW]),
    _c("linalg_qr_complete_complex", lambda L, a: tuple(L.linalg.qr(a, mode="complete")), [((2, 4), "c")]),
    _c("linalg_cholesky_complex", lambda L, a: L.linalg.cholesky(_hpd(L, a)), [ZS3]),
    _c("linalg_cholesky_upper_complex", lambda L, a: L.linalg.cholesky(_hpd(L, a), upper=True), [ZS]),
    _c("linalg_svd_complex", lambda L, a: (lambda u, s, vh: (u @ vh, s, u.abs(), vh.abs()))(
        *L.linalg.svd(a, full_matrices=False)), [ZS]),
    _c("linalg_svd_tall_complex", lambda L, a: (lambda u, s, vh: (u @ vh, s, u @ u.mH))(
        *L.linalg.svd(a, full_matrices=False)), [ZT]),
    _c("linalg_svd_wide_full_complex", lambda L, a: (lambda u, s, vh: (u @ vh[..., :3, :], s))(
        *L.linalg.svd(a)), [ZW]),
    _c("linalg_svdvals_complex", lambda L, a: L.linalg.svdvals(a), [ZB]),
    _c("linalg_eigh_complex", lambda L, a: (lambda w, v: (w, v.abs(), (v * w.unsqueeze(-2)) @ v.mH))(
        *L.linalg.eigh(a + a.mH)), [ZS3]),
    _c("linalg_eigh_upper_complex", lambda L, a: (lambda w, v: (w, v.abs()))(*L.linalg.eigh(a + a.mH, UPLO="U")), [ZS]),
    _c("linalg_eigvalsh_complex", lambda L, a: L.linalg.eigvalsh(a + a.mH), [ZS]),
    _c("linalg_matrix_norm_complex", lambda L, a: [L.linalg.matrix_norm(a, o) for o in ("fro", "nuc", 2, -2, 1, -1,
                                                                                        float("inf"))], [ZW]),
    _c("linalg_pinv_complex", lambda L, a: L.linalg.pinv(a), [ZW]),
    _c("pinverse_complex", lambda L, a: L.pinverse(a), [ZT]),
    _c("linalg_matrix_exp_complex", lambda L, a: L.linalg.matrix_exp(a), [ZS3]),
    _c("linalg_eig_complex", lambda L, a: _eig_outputs(L, *L.linalg.eig(a)), [ZS3]),
    _c("linalg_eig_real_input", lambda L, a: _eig_outputs(L, *L.linalg.eig(a)), [((4, 4), "r")]),
    _c("linalg_eigvals_complex", lambda L, a: _in_order(L, L.linalg.eigvals(a)), [ZS3]),
    _c("linalg_eigvals_real_input", lambda L, a: _in_order(L, L.linalg.eigvals(a)), [RS]),
]


def _phase_loss(L, which):
    a = L.tensor([[1 + 2j, 0.5 - 1j, 2j], [0.3, 1 - 1j, 2 + 0.5j], [1j, -1, 0.7 + 0.2j]], requires_grad=True)
    vecs = {"svd": lambda: L.linalg.svd(a)[0], "eig": lambda: L.linalg.eig(a)[1],
            "eigh": lambda: L.linalg.eigh(a + a.mH)[1]}[which]()
    return vecs.sum().abs().backward()


ERROR_ROWS += [_r(f"{w}_phase_dependent_loss", lambda L, w=w: _phase_loss(L, w)) for w in ("svd", "eig", "eigh")]
ERROR_ROWS += [_r("linalg_eig_int", lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64))),
               _r("linalg_eigvals_bool", lambda L: L.linalg.eigvals(L.ones(2, 2, dtype=L.bool))),
               _r("linalg_eig_half", lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.float16))),
               _r("linalg_eig_1d", lambda L: L.linalg.eig(L.ones(3))),
               _r("linalg_eig_not_square", lambda L: L.linalg.eigvals(L.ones(2, 3, dtype=L.cfloat)))]

# Operators that used to drop the imaginary part silently (found by running every registry operator on complex
# input against PyTorch), and the complex leftovers PyTorch computes.
_ZH = ((3, 3), "c")


def _chol_factor(L, m, upper=False):
    return L.linalg.cholesky(m @ m.mH + L.eye(m.shape[-1]), upper=upper)


OTHER_SAMPLES += [
    _c("float_power_complex", lambda L, a, b: L.float_power(a, b), [Z2, Z2]),
    _c("float_power_scalar_complex", lambda L, a: L.float_power(a, 2), [Z2]),
    _c("float_power_real_complex_scalar", lambda L, a: L.float_power(a, 1 + 1j), [RM]),
    _c("pow_negative_int_complex", lambda L, a: a ** -2, [Z2]),
    _c("addcdiv_complex", lambda L, a, b, c: L.addcdiv(a, b, c, value=0.5), [Z, Z, Z]),
    _c("ldexp_complex", lambda L, a, b: L.ldexp(a, b), [Z2, Z2]),
    _c("trapezoid_complex", lambda L, a: L.trapezoid(a), [Z2]),
    _c("trapezoid_x_complex", lambda L, a, x: L.trapezoid(a, x), [Z2, Z2]),
    _c("trapz_complex", lambda L, a: L.trapz(a, dim=0), [Z2]),
    _c("cumulative_trapezoid_complex", lambda L, a: L.cumulative_trapezoid(a), [Z2]),
    _c("gradient_complex", lambda L, a: L.gradient(a), [ZM]),
    _c("cov_complex", lambda L, a: L.cov(a), [ZM]),
    _c("corrcoef_complex", lambda L, a: L.corrcoef(a), [ZM], fd=False),  # (clipping: not smooth everywhere)
    _c("logdet_complex", lambda L, a: L.logdet(a), [_ZH]),
    _c("svd_deprecated_complex", lambda L, a: (lambda u, s, v: (u @ v.mH, s))(*L.svd(a)), [_ZH]),
    _c("cholesky_solve_complex", lambda L, b, m: L.cholesky_solve(b, _chol_factor(L, m)), [((3, 2), "c"), _ZH]),
    _c("cholesky_solve_upper_complex", lambda L, b, m: L.cholesky_solve(b, _chol_factor(L, m, True), upper=True),
       [((3, 2), "c"), _ZH]),
    _c("cholesky_inverse_complex", lambda L, m: L.cholesky_inverse(_chol_factor(L, m)), [_ZH]),
    _c("logaddexp_complex", lambda L, a, b: L.logaddexp(a, b), [Z2, Z2]),
    _c("logaddexp_same_complex", lambda L, a: L.logaddexp(a, a * 1), [Z2]),
    _c("sinc_complex", lambda L, a: L.sinc(a), [Z2]),
    _c("special_sinc_complex", lambda L, a: L.special.sinc(a), [Z2]),
    _c("vdot_real", lambda L, a, b: L.vdot(a, b), [R, R]),
]


def _nan_parts(L):
    nan, inf = float("nan"), float("inf")
    return L.nan_to_num(L.tensor([complex(nan, 1), complex(1, nan), complex(inf, -inf), complex(nan, nan)]))


def _no_imag(L, conv):
    return conv(L.tensor(2 + 0j)), conv(L.tensor([3.5 + 0j]))


OTHER_EXACT = {
    "nan_to_num_complex_parts": _nan_parts,
    "nan_to_num_complex_values": lambda L: L.nan_to_num(L.tensor([complex("nan+1j"), complex("inf+infj")]), 1.0,
                                                        2.0, -3.0),
    "float_of_complex_without_imag": lambda L: _no_imag(L, float),
    "int_of_complex_without_imag": lambda L: _no_imag(L, int),
    "vdot_node_name": lambda L: L.vdot(*(L.tensor([1 + 2j, 3j], requires_grad=True),) * 2).grad_fn.name(),
    "logaddexp_branch": lambda L: L.logaddexp(L.tensor([1 + 3j, -2 + 2.5j]), L.tensor([0.5 - 3j, 1 + 2.9j])),
    "sinc_complex_at_zero": lambda L: L.sinc(L.tensor([0j, 1 + 1j, -0.5j])),
}

ERROR_ROWS += [_r(name, fn) for name, fn in [
    ("float_of_complex", lambda L: float(_z(L)[0])), ("int_of_complex", lambda L: int(_z(L)[1])),
    ("logit_complex", lambda L: L.logit(_z(L))), ("special_logit_complex", lambda L: L.special.logit(_z(L))),
    ("softmax_complex", lambda L: L.softmax(_z(L), 0)), ("log_softmax_complex", lambda L: _z(L).log_softmax(-1)),
    ("softmax_complex_not_last", lambda L: L.softmax(L.ones(2, 2, dtype=L.cfloat), 0)),
    ("log_softmax_complex_not_last", lambda L: L.log_softmax(L.ones(2, 2, dtype=L.cdouble), 0)),
    ("special_softmax_complex", lambda L: L.special.softmax(_z(L), 0)),
    ("mse_loss_complex", lambda L: L.nn.functional.mse_loss(_z(L), _z(L))),
    ("smooth_l1_loss_complex", lambda L: L.nn.functional.smooth_l1_loss(_z(L), _z(L))),
    ("huber_loss_complex", lambda L: L.nn.functional.huber_loss(_z(L), _z(L))),
    ("abs__complex", lambda L: _z(L).abs_()),
    ("clamp_min_complex_scalar", lambda L: _z(L).clamp_min(0)),
    ("clamp_max_complex_tensor", lambda L: L.clamp_max(_z(L), _z(L))),
    ("clamp_min_complex_tensor", lambda L: L.clamp_min(_z(L), _z(L))),
    ("nansum_complex", lambda L: _z(L).nansum()), ("nanmean_complex", lambda L: L.nanmean(_z(L), 0)),
    ("deg2rad_complex", lambda L: _z(L).deg2rad()), ("rad2deg_complex", lambda L: L.rad2deg(_z(L))),
    ("searchsorted_complex", lambda L: L.searchsorted(_z(L), _z(L))),
    ("unique_consecutive_complex", lambda L: _z(L).unique_consecutive()),
    ("logaddexp2_complex", lambda L: L.logaddexp2(_z(L), _z(L))),
    ("float_power_inplace_complex", lambda L: _z(L).float_power_(2)),
    ("nan_to_num_complex_requires_grad", lambda L: L.nan_to_num(L.tensor([1j], requires_grad=True))),
]]
ERROR_ROWS += [_r(f"special_{n}_complex", lambda L, n=n: getattr(L.special, n)(_z(L))) for n in (
    "i0", "i0e", "i1", "i1e", "erfcx", "ndtri", "ndtr", "log_ndtr", "entr", "bessel_j0", "bessel_j1", "bessel_y0",
    "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai")]
ERROR_ROWS += [_r(f"special_{n}_complex", lambda L, n=n: getattr(L.special, n)(_z(L), _z(L))) for n in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
    "shifted_chebyshev_polynomial_t", "zeta", "xlog1py", "gammainc", "gammaincc")]
ERROR_ROWS += [_r("i0_complex", lambda L: L.i0(_z(L))), _r("polygamma_complex", lambda L: L.polygamma(1, _z(L))),
               _r("digamma_via_polygamma_complex", lambda L: L.polygamma(0, _z(L)))]

# linear used to drop the graph for complex input (a check meant for integer products), and linalg.vecdot did not
# conjugate its first argument.
OTHER_SAMPLES += [
    _c("linear_complex", lambda L, x, w, b: L.nn.functional.linear(x, w, b), [ZB, ((5, 4), "c"), ((5,), "c")]),
    _c("linear_no_bias_complex", lambda L, x, w: L.nn.functional.linear(x, w), [Z2, ((4, 3), "c")]),
    _c("linear_row_bias_complex", lambda L, x, w, b: L.nn.functional.linear(x, w, b), [Z2, ((4, 3), "c"),
                                                                                      ((2, 4), "c")]),
    _c("vecdot_complex", lambda L, a, b: L.linalg.vecdot(a, b), [ZB, ZB]),
    _c("vecdot_dim_broadcast_complex", lambda L, a, b: L.linalg.vecdot(a, b, dim=0), [Z2, ((2, 1), "c")]),
    _c("vecdot_same_complex", lambda L, a: L.linalg.vecdot(a, a), [Z2]),
]
OTHER_EXACT.update({
    "vecdot_conjugates_x": lambda L: L.linalg.vecdot(T(L, [1 + 2j, 3j]), T(L, [1j, 1 + 1j])),
    "vecdot_conj_view": lambda L: L.linalg.vecdot(T(L, [1 + 2j, 3j]).conj(), T(L, [1j, 1 + 1j])),
    "bilinear_complex_values": lambda L: L.nn.functional.bilinear(
        T(L, [[1 + 1j, 2j]]), T(L, [[0.5j, 1 - 1j, 2]]), L.arange(12.0).reshape(2, 2, 3) * (1 - 0.5j), T(L, [1j, 2])),
    "linear_complex_keeps_graph": lambda L: L.nn.functional.linear(
        T(L, [[1 + 1j, 2j]], requires_grad=True), T(L, [[1j, -1 + 0j]], requires_grad=True)).requires_grad,
})
ERROR_ROWS += [_r("vecdot_mixed_dtypes", lambda L: L.linalg.vecdot(L.ones(2), L.ones(2, dtype=L.cfloat))),
               _r("vecdot_int", lambda L: L.linalg.vecdot(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64))),
               _r("linear_complex_real_weight", lambda L: L.nn.functional.linear(L.ones(2, 2, dtype=L.cfloat),
                                                                                L.ones(2, 2))),
               _r("linear_complex_real_weight_bias", lambda L: L.nn.functional.linear(
                   L.ones(2, 2, dtype=L.cfloat), L.ones(2, 2), L.ones(2, dtype=L.cfloat))),
               _r("linear_complex_real_bias", lambda L: L.nn.functional.linear(
                   L.ones(2, 2, dtype=L.cfloat), L.ones(2, 2, dtype=L.cfloat), L.ones(2))),
               _r("linear_double_float_weight_bias", lambda L: L.nn.functional.linear(
                   L.ones(2, 2, dtype=L.float64), L.ones(2, 2), L.ones(2))),
               _r("bilinear_complex_requires_grad", lambda L: L.nn.functional.bilinear(
                   L.ones(1, 2, dtype=L.cfloat, requires_grad=True), L.ones(1, 2, dtype=L.cfloat),
                   L.ones(3, 2, 2, dtype=L.cfloat)))]

# Complex numbers in factories and fills: linspace/logspace infer the default complex dtype from a complex end
# point; a complex scalar written into a real tensor keeps its real part only when its imaginary part is zero.
def _set_item(t, index, value):
    t[index] = value
    return t


OTHER_EXACT.update({
    "linspace_complex": lambda L: [L.linspace(0, 1 + 1j, 3), L.linspace(-1j, 2 + 0.5j, 6, dtype=L.complex128),
                                   L.linspace(T(L, 1j), 2, 3), L.linspace(0, 1j, 1), L.linspace(0, 1j, 0)],
    "linspace_complex_dtype_real_ends": lambda L: L.linspace(0, 1, 5, dtype=L.cfloat),
    "logspace_complex": lambda L: [L.logspace(0, 1 + 1j, 3), L.logspace(-1 + 2j, 1j, 4, base=2, dtype=L.cdouble)],
    "logspace_complex_dtype_real_ends": lambda L: L.logspace(0, 1, 3, dtype=L.cfloat),
    "linspace_complex_requires_grad": lambda L: L.linspace(0, 1j, 3, requires_grad=True).requires_grad,
    "fill_complex_zero_imag": lambda L: [L.zeros(2).fill_(1.5 + 0j), _set_item(L.zeros(2), 0, 2 + 0j),
                                         L.zeros(2).masked_fill_(T(L, [True, False]), 3 + 0j),
                                         L.full((2,), 1 + 0j, dtype=L.float64)],
    "fill_complex_into_bool": lambda L: [L.zeros(2, dtype=L.bool).fill_(1j),
                                         L.zeros(2, dtype=L.bool).masked_fill_(T(L, [True, False]), 1j)],
})
ERROR_ROWS += [_r(name, fn) for name, fn in [
    ("linspace_complex_real_dtype", lambda L: L.linspace(0, 1j, 3, dtype=L.float64)),
    ("linspace_complex_int_dtype", lambda L: L.linspace(0, 1j, 3, dtype=L.int64)),
    ("logspace_complex_real_dtype", lambda L: L.logspace(0, 1j, 3, dtype=L.float32)),
    ("fill_complex_into_float", lambda L: L.zeros(2).fill_(1j)),
    ("fill_complex_into_half", lambda L: L.zeros(2, dtype=L.float16).fill_(1j)),
    ("fill_complex_into_double_graph", lambda L: L.zeros(2, dtype=L.float64, requires_grad=True).clone().fill_(1j)),
    ("fill_complex_into_int32", lambda L: L.zeros(2, dtype=L.int32).fill_(1j)),
    ("fill_complex_into_uint8", lambda L: L.zeros(2, dtype=L.uint8).fill_(2 - 1j)),
    ("fill_nan_into_int", lambda L: L.zeros(2, dtype=L.int32).fill_(float("nan"))),
    ("setitem_complex_into_float", lambda L: _set_item(L.zeros(2), 0, 1j)),
    ("setitem_complex_nan_imag", lambda L: _set_item(L.zeros(2), 0, complex(0, float("nan")))),
    ("setitem_complex_into_long_slice", lambda L: _set_item(L.zeros(3, dtype=L.int64), slice(None), 1j)),
    ("setitem_complex_mask", lambda L: _set_item(L.zeros(2), T(L, [True, False]), 1j)),
    ("setitem_complex_graph", lambda L: _set_item(L.zeros(2, requires_grad=True).clone(), 0, 1j)),
    ("masked_fill_complex_into_float", lambda L: L.zeros(2).masked_fill(T(L, [True, False]), 1j)),
    ("masked_fill_complex_tensor_into_float", lambda L: L.zeros(2).masked_fill_(T(L, [True, False]), T(L, 1j))),
    ("masked_fill_inf_into_long", lambda L: L.zeros(2, dtype=L.int64).masked_fill_(T(L, [True, False]),
                                                                                   float("inf"))),
    ("index_fill_complex_into_float", lambda L: L.zeros(2).index_fill(0, T(L, [0]), 1 + 0j)),
    ("full_complex_into_float", lambda L: L.full((2,), 1j, dtype=L.float32)),
]]


# Convolutions on complex numbers (PyTorch's CPU kernels take them; npgrad used to refuse them as PyTorch's
# slow_conv2d_cpu does for bool).
def _conv(name, **kw):
    return lambda L, *t: getattr(L.nn.functional, name)(*t, **kw)


OTHER_SAMPLES += [
    _c("conv1d_complex", _conv("conv1d", stride=2, padding=1, groups=2), [((2, 4, 7), "c"), ((4, 2, 3), "c"),
                                                                          ((4,), "c")]),
    _c("conv2d_complex", _conv("conv2d", padding=1, dilation=(1, 2)), [((1, 2, 5, 5), "c"), ((3, 2, 3, 2), "c")]),
    _c("conv2d_same_unbatched_complex", _conv("conv2d", padding="same"), [((2, 4, 4), "c"), ((2, 2, 3, 3), "c"),
                                                                          ((2,), "c")]),
    _c("conv3d_complex", _conv("conv3d", stride=(1, 2, 1)), [((1, 2, 3, 4, 3), "c"), ((2, 2, 2, 2, 2), "c")]),
    _c("conv_transpose1d_complex", _conv("conv_transpose1d", stride=2, output_padding=1),
       [((1, 2, 4), "c"), ((2, 3, 3), "c"), ((3,), "c")]),
    _c("conv_transpose2d_complex", _conv("conv_transpose2d", stride=2, groups=2, padding=1),
       [((1, 4, 3, 3), "c"), ((4, 1, 3, 3), "c")]),
    _c("conv_transpose3d_complex", _conv("conv_transpose3d"), [((1, 2, 2, 2, 2), "c"), ((2, 1, 2, 2, 2), "c")]),
]
ERROR_ROWS += [_r(name, fn) for name, fn in [
    ("conv2d_complex_real_weight", lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3, dtype=L.cfloat),
                                                                    L.ones(1, 1, 2, 2, dtype=L.float64))),
    ("conv1d_cdouble_cfloat_weight", lambda L: L.nn.functional.conv1d(L.ones(1, 1, 3, dtype=L.cdouble),
                                                                      L.ones(1, 1, 2, dtype=L.cfloat))),
    ("conv_transpose2d_complex_real_weight", lambda L: L.nn.functional.conv_transpose2d(
        L.ones(1, 1, 3, 3, dtype=L.cfloat), L.ones(1, 1, 2, 2))),
    ("conv2d_real_complex_weight", lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3),
                                                                    L.ones(1, 1, 2, 2, dtype=L.cfloat))),
    ("conv2d_complex_real_bias", lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3, dtype=L.cfloat),
                                                                  L.ones(1, 1, 2, 2, dtype=L.cfloat), L.ones(1))),
]]
