"""The torch.* names PyTorch's override list leaves out but ordinary programs use: finfo/iinfo, vander, fill,
empty_strided, frombuffer, typename, is_storage, layout/memory_format, the process settings (default device,
interop threads, warn-always, anomaly mode, set_default_tensor_type, deterministic debug mode, init_num_threads),
vmap, torch.version, torch.accelerator, thread_safe_generator, empty_permuted and from_file.
Each against PyTorch when installed, and against NumPy or closed forms always."""
import array
import pickle
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _elementwise_parity import check_error

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch not installed: nothing to compare with")

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_numpy_and_torch(name):
    f = npgrad.finfo(getattr(npgrad, name))
    real = np.finfo(np.dtype(name))
    assert (f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.bits) == \
        (float(real.eps), float(real.max), float(real.min), float(real.tiny), float(real.tiny), real.bits)
    assert f.resolution == 10.0 ** -real.precision and type(f.eps) is float
    if HAS_TORCH:
        t = torch.finfo(getattr(torch, name))
        assert [getattr(f, a) for a in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")] \
            == [getattr(t, a) for a in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")]
        assert repr(f) == repr(t) and str(f) == str(t)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_numpy_and_torch(name):
    i = npgrad.iinfo(getattr(npgrad, name))
    assert (i.min, i.max, i.bits, i.dtype) == (int(np.iinfo(name).min), int(np.iinfo(name).max), np.iinfo(name).bits, name)
    if HAS_TORCH:
        t = torch.iinfo(getattr(torch, name))
        assert (i.min, i.max, i.bits, i.dtype, repr(i)) == (t.min, t.max, t.bits, t.dtype, repr(t))


def test_finfo_defaults_python_types_equality():
    assert npgrad.finfo().dtype == "float32" and npgrad.finfo(float).dtype == "float64"
    assert npgrad.finfo(complex).dtype == "float64" and npgrad.iinfo(int).dtype == "int64"
    assert npgrad.iinfo(type=npgrad.int8).max == 127
    npgrad.set_default_dtype(npgrad.float64)
    try:
        assert npgrad.finfo().eps == np.finfo(np.float64).eps
    finally:
        npgrad.set_default_dtype(npgrad.float32)
    assert npgrad.finfo(npgrad.float32) == npgrad.finfo(npgrad.complex64) != npgrad.finfo(npgrad.float64)
    assert npgrad.finfo(npgrad.float32) != 3 and npgrad.iinfo(npgrad.int8) == npgrad.iinfo(npgrad.int8)
    with pytest.raises(TypeError, match="unhashable"):
        hash(npgrad.finfo())


@pytest.mark.parametrize("fn, exc, message", [
    (lambda lib: lib.finfo(lib.int32), TypeError,
     "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"),
    (lambda lib: lib.finfo(lib.bool), TypeError,
     "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"),
    (lambda lib: lib.finfo(int), TypeError,
     "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"),
    (lambda lib: lib.finfo("float32"), TypeError, "finfo(): argument 'type' (position 1) must be torch.dtype, not str"),
    (lambda lib: lib.iinfo(lib.float32), TypeError,
     "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"),
    (lambda lib: lib.iinfo(lib.bool), TypeError, "torch.bool is not supported by torch.iinfo"),
    (lambda lib: lib.iinfo(), TypeError, 'iinfo() missing 1 required positional arguments: "type"'),
])
def test_finfo_iinfo_errors(fn, exc, message):
    check_error(fn, exc, message)


def _vander_numpy(x, n, increasing):
    return np.vander(x, n, increasing=increasing).astype(x.dtype)  # np.vander computes float32 in float64


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("n, increasing", [(None, False), (2, True), (5, False), (0, False), (1, True)])
def test_vander_values(dtype, n, increasing):
    data = [1, 2, 3] if dtype != "bool" else [True, False, True]
    x = npgrad.tensor(data, dtype=getattr(npgrad, dtype))
    got = npgrad.vander(x, n, increasing)
    want = _vander_numpy(np.array(data, dtype=dtype).astype(np.int64 if dtype in INTS + ["bool"] else dtype),
                         n, increasing)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)
    if HAS_TORCH:
        t = torch.vander(torch.tensor(data, dtype=getattr(torch, dtype)), N=n, increasing=increasing)
        assert str(t.dtype).split(".")[1] == str(got.dtype).split(".")[1]
        np.testing.assert_array_equal(got.numpy(), t.numpy())


def test_vander_gradient_is_the_power_rule_even_at_zero():
    xs = np.array([0.0, 2.0, -1.5])
    x = npgrad.tensor(xs, requires_grad=True)
    g = np.array([[1.0, -2.0, 0.5, 3.0]] * 3)
    npgrad.vander(x, 4).backward(npgrad.tensor(g))
    powers = np.arange(3, -1, -1)
    want = (g * powers * np.where(powers > 0, xs[:, None] ** np.maximum(powers - 1, 0), 0)).sum(1)
    np.testing.assert_allclose(x.grad.numpy(), want)
    # (PyTorch 2.13's own vander backward raises "modified by an inplace operation": no torch comparison here)
    assert npgrad.autograd.gradcheck(lambda v: npgrad.vander(v, 3, True), (npgrad.tensor(xs, requires_grad=True),))


@pytest.mark.parametrize("fn, exc, message", [
    (lambda lib: lib.vander(lib.tensor([[1.0, 2.0]])), RuntimeError, "x must be a one-dimensional tensor."),
    (lambda lib: lib.vander(lib.tensor(2.0)), RuntimeError, "x must be a one-dimensional tensor."),
    (lambda lib: lib.vander(lib.tensor([1.0]), -1), RuntimeError, "N must be non-negative."),
])
def test_vander_errors(fn, exc, message):
    check_error(fn, exc, message)


def test_fill_is_out_of_place_and_differentiable_in_a_tensor_value():
    x = npgrad.zeros(3, requires_grad=True)
    v = npgrad.tensor(2.0, requires_grad=True)
    y = npgrad.fill(x, v)
    assert y.tolist() == [2.0, 2.0, 2.0] and x.tolist() == [0.0, 0.0, 0.0]
    (y * npgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.item() == 6.0 and x.grad.tolist() == [0.0, 0.0, 0.0]
    assert npgrad.fill(npgrad.zeros(3, dtype=npgrad.int64), 2.5).tolist() == [2, 2, 2]
    assert npgrad.fill(input=npgrad.zeros(2), value=1).tolist() == [1.0, 1.0]
    check_error(lambda lib: lib.fill(lib.zeros(3), lib.tensor([2.0, 3.0])), RuntimeError,
                "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.")


def test_empty_strided():
    e = npgrad.empty_strided((2, 3), (1, 2), dtype=npgrad.int64)
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == npgrad.int64
    r = npgrad.empty_strided([2, 3], [3, 1], requires_grad=True)
    assert r.requires_grad and r.dtype == npgrad.float32 and r.stride() == (3, 1)
    assert npgrad.empty_strided((0, 3), (3, 1)).shape == (0, 3)
    check_error(lambda lib: lib.empty_strided((2, 3), (1,)), RuntimeError,
                "dimensionality of sizes (2) must match dimensionality of strides (1)")
    check_error(lambda lib: lib.empty_strided((2, 3), (-1, 2)), RuntimeError,
                "Storage size calculation overflowed with sizes=[2, 3] and strides=[-1, 2]")


def test_frombuffer_shares_a_writable_buffer():
    b = bytearray(b"\x01\x02\x03\x04")
    t = npgrad.frombuffer(b, dtype=npgrad.int16, count=1, offset=2)
    assert t.tolist() == [np.frombuffer(b, np.int16)[1]] == [1027]
    t.fill_(0)
    assert b == bytearray(b"\x01\x02\x00\x00")
    a = array.array("f", [1, 2, 3, 4])
    assert npgrad.frombuffer(a, dtype=npgrad.float32).tolist() == [1.0, 2.0, 3.0, 4.0]
    if HAS_TORCH:
        assert torch.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=torch.int16).tolist() == \
            npgrad.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=npgrad.int16).tolist()


def test_frombuffer_copies_a_read_only_buffer_with_a_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        npgrad.set_warn_always(True)
        try:
            t = npgrad.frombuffer(b"abcd", dtype=npgrad.uint8)
        finally:
            npgrad.set_warn_always(False)
    assert t.tolist() == [97, 98, 99, 100]
    assert any("The given buffer is not writable" in str(x.message) for x in w)
    t.fill_(0)  # the copy is writable


@pytest.mark.parametrize("fn, exc, message", [
    (lambda lib: lib.frombuffer(bytearray(4), dtype=lib.int32, offset=1), ValueError,
     "buffer length (3 bytes) after offset (1 bytes) must be a multiple of element size (4)"),
    (lambda lib: lib.frombuffer(bytearray(4), dtype=lib.int16, count=3), ValueError,
     "requested buffer length (3 * 2 bytes) after offset (0 bytes) must not be greater than actual buffer length "
     "(4 bytes)"),
    (lambda lib: lib.frombuffer(bytearray(4), dtype=lib.uint8, offset=4), ValueError,
     "offset (4 bytes) must be non-negative and no greater than buffer length (4 bytes) minus 1"),
    (lambda lib: lib.frombuffer(bytearray(4), dtype=lib.uint8, count=0), ValueError,
     "both buffer length (4) and count (0) must not be 0"),
    (lambda lib: lib.frombuffer(bytearray(), dtype=lib.uint8), ValueError,
     "both buffer length (0) and count (-1) must not be 0"),
    (lambda lib: lib.frombuffer([1, 2], dtype=lib.uint8), ValueError, "object does not implement Python buffer protocol."),
])
def test_frombuffer_errors(fn, exc, message):
    check_error(fn, exc, message)


def test_typename_and_is_storage():
    assert npgrad.typename(npgrad.zeros(2)) == "torch.FloatTensor"
    assert npgrad.typename(npgrad.zeros(2, dtype=npgrad.int64)) == "torch.LongTensor"
    assert npgrad.typename(3) == "int" and npgrad.typename(None) == "NoneType"
    assert npgrad.typename(npgrad.nn.Linear(2, 2)) == "npgrad.nn.modules.linear.Linear"
    assert not npgrad.is_storage(npgrad.zeros(2)) and not npgrad.is_storage(3)
    if HAS_TORCH:
        for lib_obj in (lambda lib: lib.zeros(2, dtype=lib.complex64), lambda lib: lib.zeros(2, dtype=lib.bool),
                        lambda lib: lib.zeros(2, dtype=lib.float16), lambda lib: "abc"):
            assert npgrad.typename(lib_obj(npgrad)) == torch.typename(lib_obj(torch))
        assert torch.typename(torch.nn.Linear(2, 2)) == "torch.nn.modules.linear.Linear"


def test_layout_and_memory_format_types():
    assert isinstance(npgrad.strided, npgrad.layout) and npgrad.zeros(2).layout is npgrad.strided
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        value = getattr(npgrad, name)
        assert isinstance(value, npgrad.memory_format) and repr(value) == f"torch.{name}"
        assert pickle.loads(pickle.dumps(value)) is value
    assert repr(npgrad.strided) == "torch.strided"
    check_error(lambda lib: lib.layout(), TypeError, "cannot create 'torch.layout' instances")
    check_error(lambda lib: lib.memory_format(), TypeError, "cannot create 'torch.memory_format' instances")
    if HAS_TORCH:
        assert repr(torch.strided) == repr(npgrad.strided) and isinstance(torch.strided, torch.layout)


def test_default_device_is_the_cpu():
    assert npgrad.get_default_device() == npgrad.device("cpu")
    try:
        npgrad.set_default_device("cpu:0")
        assert npgrad.get_default_device() == npgrad.device("cpu", 0)
        npgrad.set_default_device(npgrad.device("cpu"))
        assert npgrad.get_default_device() == npgrad.device("cpu")
    finally:
        npgrad.set_default_device(None)
    assert npgrad.get_default_device() == npgrad.device("cpu")
    if HAS_TORCH:
        assert torch.get_default_device() == torch.device("cpu")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        npgrad.set_default_device("cuda")  # PyTorch raises this on the first cuda tensor; npgrad at once
    check_error(lambda lib: lib.set_default_device("foo"), RuntimeError,
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
                "vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: foo")
    assert npgrad.get_default_device() == npgrad.device("cpu")


def test_interop_threads_are_set_once():
    import os
    from npgrad import _runtime
    saved = _runtime._state.pop("interop_threads", None)
    try:
        assert npgrad.get_num_interop_threads() == (os.cpu_count() or 1)
        check_error(lambda lib: lib.set_num_interop_threads(0), RuntimeError,
                    "set_num_interop_threads expects a positive integer")
        npgrad.set_num_interop_threads(3)
        assert npgrad.get_num_interop_threads() == 3
        with pytest.raises(RuntimeError, match="cannot set number of interop threads after parallel work has started"):
            npgrad.set_num_interop_threads(2)
    finally:
        _runtime._state.pop("interop_threads", None)
        if saved is not None:
            _runtime._state["interop_threads"] = saved


def test_warn_always_and_set_default_tensor_type():
    from npgrad import _runtime
    _runtime._warned.discard("set_default_tensor_type")
    assert not npgrad.is_warn_always_enabled()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            npgrad.set_default_tensor_type("torch.DoubleTensor")
            assert npgrad.get_default_dtype() == npgrad.float64 and npgrad.zeros(1).dtype == npgrad.float64
            npgrad.set_default_tensor_type("torch.FloatTensor")  # warned once per process ...
            assert len(w) == 1 and "set_default_tensor_type() is deprecated" in str(w[0].message)
            npgrad.set_warn_always(True)  # ... unless warn-always is on
            assert npgrad.is_warn_always_enabled()
            npgrad.set_default_tensor_type("torch.HalfTensor")
            assert len(w) == 2 and npgrad.get_default_dtype() == npgrad.float16
        finally:
            npgrad.set_warn_always(False)
            npgrad.set_default_dtype(npgrad.float32)
    check_error(lambda lib: lib.set_warn_always(1), RuntimeError, "setWarnOnlyOnce expects a bool, but got int")
    check_error(lambda lib: lib.set_default_tensor_type("torch.LongTensor"), TypeError,
                "only floating-point types are supported as the default type")
    check_error(lambda lib: lib.set_default_tensor_type("torch.cuda.FloatTensor"), TypeError,
                "type torch.cuda.FloatTensor not available. Torch not compiled with CUDA enabled.")
    check_error(lambda lib: lib.set_default_tensor_type(3), TypeError,
                "invalid type object: only floating-point types are supported as the default type")
    check_error(lambda lib: lib.set_default_tensor_type(lib.float64), TypeError,
                "invalid type object: only floating-point types are supported as the default type")
    assert npgrad.get_default_dtype() == npgrad.float32


def test_anomaly_switch_is_autograds():
    assert not npgrad.is_anomaly_enabled() and npgrad.is_anomaly_check_nan_enabled()
    try:
        npgrad.set_anomaly_enabled(True, False)
        assert npgrad.autograd.is_anomaly_enabled() and not npgrad.is_anomaly_check_nan_enabled()
        npgrad.set_anomaly_enabled(True)
        x = npgrad.tensor([0.0], requires_grad=True)
        # 0/0 is the point: NumPy's divide warning is noise here
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            with pytest.raises(RuntimeError, match="returned nan values"), \
                    pytest.warns(UserWarning, match="^Error detected in DivBackward0"):
                (x / x).sum().backward()
    finally:
        npgrad.set_anomaly_enabled(False)
    assert not npgrad.is_anomaly_enabled() and npgrad.is_anomaly_check_nan_enabled()
    check_error(lambda lib: lib.set_anomaly_enabled(1), TypeError,
                "set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, not int")


def test_vmap_version_accelerator():
    assert npgrad.vmap is npgrad.func.vmap
    np.testing.assert_allclose(npgrad.vmap(lambda r: r.sum())(npgrad.ones(3, 2)).numpy(), [2.0, 2.0, 2.0])
    assert npgrad.version.__version__ == npgrad.__version__
    assert (npgrad.version.cuda, npgrad.version.hip, npgrad.version.debug) == (None, None, False)
    acc = npgrad.accelerator
    assert (acc.is_available(), acc.device_count(), acc.current_accelerator(),
            acc.current_accelerator(check_available=True)) == (False, 0, None, None)
    if HAS_TORCH and not torch.accelerator.is_available():
        assert (torch.version.cuda, torch.accelerator.device_count(), torch.accelerator.current_accelerator()) == \
            (None, 0, None)


# -- deterministic debug mode, init_num_threads, thread_safe_generator ----------------------------------------
DEBUG_MODES = [(1, 1, True, True), (2, 2, True, False), (0, 0, False, False), ("warn", 1, True, True),
               ("error", 2, True, False), ("default", 0, False, False)]


@pytest.mark.parametrize("libname", ["npgrad", "torch"])
def test_deterministic_debug_mode_is_use_deterministic_algorithms(libname):
    if libname == "torch" and not HAS_TORCH:
        pytest.skip("PyTorch not installed: nothing to compare with")
    lib = npgrad if libname == "npgrad" else torch
    assert lib.get_deterministic_debug_mode() == 0
    try:
        for mode, number, on, warn_only in DEBUG_MODES:
            lib.set_deterministic_debug_mode(mode)
            assert (lib.get_deterministic_debug_mode(), lib.are_deterministic_algorithms_enabled(),
                    lib.is_deterministic_algorithms_warn_only_enabled()) == (number, on, warn_only)
        for args, number in [((True,), 2), ((True,), 2), ((False,), 0)]:
            lib.use_deterministic_algorithms(*args)
            assert lib.get_deterministic_debug_mode() == number
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.get_deterministic_debug_mode() == 1
        lib.use_deterministic_algorithms(False, warn_only=True)  # off wins over warn_only
        assert lib.get_deterministic_debug_mode() == 0
    finally:
        lib.use_deterministic_algorithms(False)


@pytest.mark.parametrize("mode, exc, message", [
    (3, RuntimeError, "invalid value of debug_mode, expected 0, 1, or 2, but got 3"),
    ("x", RuntimeError, "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got x"),
    (1.0, TypeError, "debug_mode must be str or int, but got <class 'float'>"),
    (None, TypeError, "debug_mode must be str or int, but got <class 'NoneType'>")])
def test_deterministic_debug_mode_errors(mode, exc, message):
    check_error(lambda lib: lib.set_deterministic_debug_mode(mode), exc, message)
    assert npgrad.get_deterministic_debug_mode() == 0


def test_init_num_threads_in_a_new_thread():
    import threading
    seen = []
    thread = threading.Thread(target=lambda: seen.append((npgrad.init_num_threads(), npgrad.get_num_threads())))
    thread.start()
    thread.join()
    assert seen == [(None, npgrad.get_num_threads())]
    if HAS_TORCH:
        assert torch.init_num_threads() is None


def test_thread_safe_generator_is_none_outside_thread_workers():
    from npgrad.utils.data import DataLoader, Dataset

    class Draws(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return npgrad.tensor(npgrad.thread_safe_generator() is None)

    assert npgrad.thread_safe_generator() is None and npgrad.random.thread_safe_generator is npgrad.thread_safe_generator
    assert "thread_safe_generator" in npgrad.random.__all__
    assert DataLoader(Draws(), batch_size=2, num_workers=1).__iter__().__next__().tolist() == [True, True]
    if HAS_TORCH:
        assert torch.thread_safe_generator() is None


# -- empty_permuted, from_file ----------------------------------------------------------------------------------
@pytest.mark.parametrize("size, layout", [((2, 3, 5, 7), (0, 1, 2, 3)), ((2, 3, 5, 7), (0, 2, 3, 1)),
                                          ((2, 3), (1, 0)), ((4, 1, 3), (2, 0, 1)), ((), ())])
def test_empty_permuted_strides_follow_the_physical_layout(size, layout):
    t = npgrad.empty_permuted(size, layout)
    contiguous = np.empty([size[d] for d in layout], np.float32).strides
    assert tuple(t.shape) == size and t.dtype == npgrad.float32
    assert all(t.stride(layout[i]) == contiguous[i] // 4 for i in range(len(size)))  # the documented rule
    if HAS_TORCH:
        assert t.stride() == torch.empty_permuted(size, layout).stride()


def test_empty_permuted_keywords_and_the_channels_last_example():
    assert npgrad.empty_permuted((2, 3, 5, 7), (0, 2, 3, 1)).stride() == (105, 1, 21, 3)  # NHWC
    t = npgrad.empty_permuted([2, 3], [1, 0], dtype=npgrad.float64, requires_grad=True)
    assert t.dtype == npgrad.float64 and t.requires_grad and t.is_leaf
    assert npgrad.empty_permuted((2, 3), (1, 0), dtype=npgrad.int64).dtype == npgrad.int64


@pytest.mark.parametrize("args, kwargs, message", [
    (((2, 3), (0,)), {}, "Number of dimensions in size does not match the length of the physical_layout; i.e. "
                         "len(size) = 2 is not equal to len(physical_layout) = 1"),
    (((2, 3), (0, 0)), {}, "Duplicate dim not allowed"),
    (((2, 3), (0, 2)), {}, "Dimension out of range (expected to be between 0 and 1, but got 2 at index 1).  NB: "
                           "negative dims not currently supported; file an issue if you want it."),
    (((2, 3), (-1, 0)), {}, "Dimension out of range (expected to be between 0 and 1, but got -1 at index 0).  NB: "
                            "negative dims not currently supported; file an issue if you want it."),
    (((2, -1), (0, 1)), {}, "Trying to create tensor with negative dimension -1: [2, -1]"),
    (((2, 3), (1, 0)), {"requires_grad": True, "dtype": "int64"},
     "Only Tensors of floating point and complex dtype can require gradients")])
def test_empty_permuted_errors(args, kwargs, message):
    def call(lib):
        kw = dict(kwargs, dtype=getattr(lib, kwargs["dtype"])) if "dtype" in kwargs else kwargs
        return lib.empty_permuted(*args, **kw)
    check_error(call, RuntimeError, message)


def test_from_file_reads_raw_values(tmp_path):
    path = str(tmp_path / "values.bin")
    np.arange(10, dtype=np.float64).tofile(path)
    assert npgrad.from_file(path, shared=False, size=10, dtype=npgrad.float64).tolist() == list(range(10))
    assert npgrad.from_file(path, size=4, dtype=npgrad.float64).tolist() == [0, 1, 2, 3]
    empty = npgrad.from_file(path, dtype=npgrad.float64)  # size=0: nothing, whatever the file holds
    assert empty.shape == (0,) and empty.dtype == npgrad.float64
    assert npgrad.from_file(path, size=3).dtype == npgrad.float32  # the default dtype
    assert npgrad.from_file(path, size=2, dtype=npgrad.int32).tolist() == [0, 0]  # the low word of 0.0, 1.0
    t = npgrad.from_file(path, None, 3, dtype=npgrad.float64, requires_grad=True)
    assert t.requires_grad and t.is_contiguous()
    if HAS_TORCH:
        for size, dtype in [(10, "float64"), (3, "int32"), (0, "float32"), (5, "bool")]:
            ours = npgrad.from_file(path, size=size, dtype=getattr(npgrad, dtype)).numpy()
            theirs = torch.from_file(path, size=size, dtype=getattr(torch, dtype)).numpy()
            np.testing.assert_array_equal(ours, theirs)


def test_from_file_shared_writes_through_private_does_not(tmp_path):
    path = str(tmp_path / "values.bin")
    np.arange(4, dtype=np.float32).tofile(path)
    private = npgrad.from_file(path, shared=False, size=4)
    private.fill_(9.0)
    assert private.tolist() == [9.0] * 4 and np.fromfile(path, np.float32).tolist() == [0, 1, 2, 3]
    shared = npgrad.from_file(path, shared=True, size=2)
    shared.add_(10.0)
    del shared
    assert np.fromfile(path, np.float32).tolist() == [10, 11, 2, 3]
    grown = npgrad.from_file(path, shared=True, size=6)  # shared: the file is extended with zeros to fit
    assert grown.tolist() == [10, 11, 2, 3, 0, 0] and np.fromfile(path, np.float32).size == 6
    created = str(tmp_path / "new.bin")
    npgrad.from_file(created, shared=True, size=3).fill_(2.5)
    assert np.fromfile(created, np.float32).tolist() == [2.5] * 3


def test_from_file_errors(tmp_path):
    path = str(tmp_path / "values.bin")
    np.arange(10, dtype=np.float64).tofile(path)
    missing = str(tmp_path / "missing.bin")
    nodir = str(tmp_path / "nodir" / "x.bin")
    check_error(lambda lib: lib.from_file(path, size=11, dtype=lib.float64), RuntimeError,
                f"file <{path}> size <80> is smaller than the required mapping size <88>")
    check_error(lambda lib: lib.from_file(missing, size=2), RuntimeError,
                f"unable to open file <{missing}> in read-only mode: No such file or directory (2)")
    check_error(lambda lib: lib.from_file(nodir, shared=True, size=2), RuntimeError,
                f"unable to open file <{nodir}> in read-write mode: No such file or directory (2)")
    check_error(lambda lib: lib.from_file(tmp_path / "values.bin", size=2), TypeError,
                "from_file(): argument 'filename' (position 1) must be str, not PosixPath")
    assert not (tmp_path / "missing.bin").exists()
