"""npgrad.vision.datasets against torchvision on small files written here in torchvision's layouts.

Every test also checks the samples against the NumPy arrays it wrote (so it means something without
torch/torchvision); where torchvision imports, the same root is read by both and compared sample by sample.
"""
import gzip
import hashlib
import io
import lzma
import os
import pathlib
import pickle
import tarfile
import urllib.error
import urllib.request
import zipfile

import numpy as np
import pytest
from tv_oracle import HAS_TV, tv

import npgrad
from npgrad.utils.data import DataLoader
from npgrad.vision import datasets as D
from npgrad.vision.datasets import utils as U

Image = pytest.importorskip("PIL.Image", reason="the datasets' samples are PIL images (the vision extra)")

_CODES = {np.dtype(np.uint8): 0x08, np.dtype(np.int32): 0x0C}


def idx_bytes(arr):
    arr = np.asarray(arr)
    head = bytes([0, 0, _CODES[arr.dtype], arr.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    return head + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def md5(path):
    return hashlib.md5(pathlib.Path(path).read_bytes()).hexdigest()


def write(path, data):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def assert_same_samples(ours, theirs, n=None):
    """Same length and, for each index, the same PIL image (mode, size, bytes) and target."""
    assert len(ours) == len(theirs)
    for i in range(len(ours) if n is None else min(n, len(ours))):
        (a, y), (b, z) = ours[i], theirs[i]
        assert (a.mode, a.size, a.tobytes()) == (b.mode, b.size, b.tobytes()), i
        if hasattr(z, "tolist"):
            assert y.tolist() == z.tolist()
        else:
            assert type(y) is type(z) and y == z, (i, y, z)


def assert_image(img, array, mode):
    assert img.mode == mode
    np.testing.assert_array_equal(np.asarray(img), array)


# -- MNIST and its relatives ------------------------------------------------------------------------------

def make_mnist_raw(raw, prefixes=("train", "t10k"), n=(6, 4), size=(28, 28), seed=0, gz=False):
    rs = np.random.RandomState(seed)
    arrays = {}
    for prefix, count in zip(prefixes, n):
        imgs = rs.randint(0, 256, (count, *size)).astype(np.uint8)
        labels = rs.randint(0, 10, count).astype(np.uint8)
        for name, arr in ((f"{prefix}-images-idx3-ubyte", imgs), (f"{prefix}-labels-idx1-ubyte", labels)):
            data = idx_bytes(arr)
            write(pathlib.Path(raw) / name, data)
            if gz:
                write(pathlib.Path(raw) / (name + ".gz"), gzip.compress(data))
        arrays[prefix] = (imgs, labels)
    return arrays


@pytest.mark.parametrize("name", ["MNIST", "FashionMNIST", "KMNIST"])
@pytest.mark.parametrize("train", [True, False])
def test_mnist_family(tmp_path, name, train):
    arrays = make_mnist_raw(tmp_path / name / "raw")
    ds = getattr(D, name)(str(tmp_path), train=train)
    imgs, labels = arrays["train" if train else "t10k"]
    assert len(ds) == len(labels)
    assert ds.data.dtype == npgrad.uint8 and ds.targets.dtype == npgrad.int64
    img, target = ds[1]
    assert_image(img, imgs[1], "L")
    assert type(target) is int and target == labels[1]
    assert ds.class_to_idx == {c: i for i, c in enumerate(ds.classes)}
    assert f"Split: {'Train' if train else 'Test'}" in repr(ds)
    if HAS_TV:
        theirs = getattr(tv.datasets, name)(str(tmp_path), train=train)
        assert_same_samples(ds, theirs)
        assert repr(ds) == repr(theirs) and ds.classes == theirs.classes
        assert ds.raw_folder == theirs.raw_folder and ds.processed_folder == theirs.processed_folder
        assert (ds.mirrors, ds.resources) == (theirs.mirrors, theirs.resources)


def test_mnist_reads_torchvisions_legacy_processed_files(tmp_path):
    rs = np.random.RandomState(1)
    saved = {}
    for fname in ("training.pt", "test.pt"):
        data, targets = rs.randint(0, 256, (3, 28, 28)).astype(np.uint8), rs.randint(0, 10, 3)
        saved[fname] = (data, targets)
        folder = tmp_path / "MNIST" / "processed"
        folder.mkdir(parents=True, exist_ok=True)
        npgrad.save((npgrad.from_numpy(data), npgrad.from_numpy(targets)), str(folder / fname))
    ds = D.MNIST(tmp_path, train=False)  # no raw/ folder at all
    np.testing.assert_array_equal(ds.data.numpy(), saved["test.pt"][0])
    assert ds[2][1] == saved["test.pt"][1][2]
    if HAS_TV:
        assert_same_samples(ds, tv.datasets.MNIST(tmp_path, train=False))


def test_mnist_rejects_inconsistent_files(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    make_mnist_raw(raw)
    write(raw / "train-labels-idx1-ubyte", idx_bytes(np.zeros(2, np.uint8)))
    with pytest.raises(ValueError, match="holds 6 images but .* holds 2 labels"):
        D.MNIST(tmp_path)
    write(raw / "train-images-idx3-ubyte", idx_bytes(np.zeros(2, np.uint8)))
    with pytest.raises(ValueError, match="expected 0x00000803"):
        D.MNIST(tmp_path)


@pytest.mark.parametrize("split", D.EMNIST.splits)
def test_emnist_every_split(tmp_path, split):
    raw = tmp_path / "EMNIST" / "raw"
    rs = np.random.RandomState(2)
    imgs = rs.randint(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = rs.randint(0, 10, 5).astype(np.uint8)
    write(raw / f"emnist-{split}-test-images-idx3-ubyte", idx_bytes(imgs))
    write(raw / f"emnist-{split}-test-labels-idx1-ubyte", idx_bytes(labels))
    ds = D.EMNIST(tmp_path, split=split, train=False)
    assert_image(ds[3][0], imgs[3], "L")  # served as stored (transposed), like torchvision
    assert ds[3][1] == labels[3]
    with pytest.raises(RuntimeError, match="Dataset not found"):
        D.EMNIST(tmp_path, split=split, train=True)
    if HAS_TV:
        theirs = tv.datasets.EMNIST(tmp_path, split=split, train=False)
        assert_same_samples(ds, theirs)
        assert ds.classes == theirs.classes and repr(ds) == repr(theirs)


def test_emnist_bad_split_says_the_valid_ones(tmp_path):
    with pytest.raises(ValueError) as e:
        D.EMNIST(tmp_path, split="bogus")
    assert "Unknown value 'bogus' for argument split. Valid values are {'byclass'," in str(e.value)
    if HAS_TV:
        with pytest.raises(ValueError) as f:
            tv.datasets.EMNIST(tmp_path, split="bogus")
        assert str(e.value) == str(f.value)


@pytest.fixture(scope="module")
def qmnist_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("qmnist")
    raw = root / "QMNIST" / "raw"
    rs = np.random.RandomState(3)
    arrays = {}
    for stem, n in (("qmnist-train", 4), ("qmnist-test", 10003), ("xnist", 5)):
        imgs = rs.randint(0, 256, (n, 3, 2)).astype(np.uint8)  # QMNIST does not insist on 28x28
        labels = rs.randint(0, 1000, (n, 8)).astype(np.int32)
        write(raw / f"{stem}-images-idx3-ubyte", idx_bytes(imgs))
        write(raw / f"{stem}-labels-idx2-int", idx_bytes(labels))
        arrays[stem] = (imgs, labels)
    return root, arrays


@pytest.mark.parametrize("what, stem, rows", [("train", "qmnist-train", slice(None)),
                                               ("test", "qmnist-test", slice(None)),
                                               ("test10k", "qmnist-test", slice(0, 10000)),
                                               ("test50k", "qmnist-test", slice(10000, None)),
                                               ("nist", "xnist", slice(None))])
@pytest.mark.parametrize("compat", [True, False])
def test_qmnist_subsets(qmnist_root, what, stem, rows, compat):
    root, arrays = qmnist_root
    imgs, labels = (a[rows] for a in arrays[stem])
    ds = D.QMNIST(root, what=what, compat=compat)
    assert len(ds) == len(imgs)
    img, target = ds[len(ds) - 1]
    assert_image(img, imgs[-1], "L")
    if compat:
        assert type(target) is int and target == labels[-1, 0]
    else:
        assert target.dtype == npgrad.int64 and target.tolist() == labels[-1].tolist()
    if HAS_TV:
        theirs = tv.datasets.QMNIST(root, what=what, compat=compat)
        assert len(ds) == len(theirs)
        for i in (0, len(ds) - 1):
            (a, y), (b, z) = ds[i], theirs[i]
            assert a.tobytes() == b.tobytes()
            assert (y if compat else y.tolist()) == (z if compat else z.tolist())
        assert repr(ds) == repr(theirs)


def test_qmnist_what_defaults_from_train(qmnist_root):
    root, arrays = qmnist_root
    assert len(D.QMNIST(root, train=True)) == 4 and len(D.QMNIST(root, train=False)) == 10003


# -- CIFAR ----------------------------------------------------------------------------------------------------

def make_cifar(root, cls, n=3, seed=0):
    """Pickled batches in torchvision's folder, and the class attributes pointing at their md5s."""
    rs = np.random.RandomState(seed)
    folder = pathlib.Path(root) / cls.base_folder
    fine = cls.meta["key"] == "fine_label_names"
    written = {}
    for name, _ in cls.train_list + cls.test_list:
        data = rs.randint(0, 256, (n, 3072)).astype(np.uint8)
        labels = rs.randint(0, 100 if fine else 10, n).tolist()
        entry = {"data": data, ("fine_labels" if fine else "labels"): labels, "filenames": ["x"] * n}
        write(folder / name, pickle.dumps(entry))
        written[name] = (data, labels)
    names = [f"class{i}" for i in range(100 if fine else 10)]
    write(folder / cls.meta["filename"], pickle.dumps({cls.meta["key"]: names}))
    return written, names


def patch_md5s(monkeypatch, classes, root, base_folder, lists=("train_list", "test_list")):
    for cls in classes:
        for attr in lists:
            monkeypatch.setattr(cls, attr, [[n, md5(pathlib.Path(root) / base_folder / n)] for n, _ in getattr(cls, attr)])


@pytest.mark.parametrize("name", ["CIFAR10", "CIFAR100"])
@pytest.mark.parametrize("train", [True, False])
def test_cifar(tmp_path, monkeypatch, name, train):
    ours_cls = getattr(D, name)
    written, names = make_cifar(tmp_path, ours_cls)
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):  # the md5s are the real ones
        ours_cls(tmp_path, train=train)
    classes = [ours_cls] + ([getattr(tv.datasets, name)] if HAS_TV else [])
    patch_md5s(monkeypatch, classes, tmp_path, ours_cls.base_folder)
    meta = dict(ours_cls.meta, md5=md5(tmp_path / ours_cls.base_folder / ours_cls.meta["filename"]))
    for cls in classes:
        monkeypatch.setattr(cls, "meta", meta)
    ds = ours_cls(tmp_path, train=train)
    first = (ours_cls.train_list if train else ours_cls.test_list)[0][0]
    data, labels = written[first]
    assert ds.data.shape == (len(ds), 32, 32, 3) and ds.classes == names and ds.class_to_idx["class3"] == 3
    assert_image(ds[1][0], data[1].reshape(3, 32, 32).transpose(1, 2, 0), "RGB")
    assert ds[1][1] == labels[1]
    if HAS_TV:
        theirs = getattr(tv.datasets, name)(tmp_path, train=train)
        assert_same_samples(ds, theirs, n=4)
        assert ds.targets == theirs.targets and ds.class_to_idx == theirs.class_to_idx
        assert repr(ds) == repr(theirs)


# -- SVHN, STL10 --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("split", ["train", "test", "extra"])
def test_svhn(tmp_path, monkeypatch, split):
    sio = pytest.importorskip("scipy.io", reason="SVHN's .mat files are read by SciPy")
    rs = np.random.RandomState(4)
    x = rs.randint(0, 256, (32, 32, 3, 4)).astype(np.uint8)
    y = np.array([[10], [1], [9], [10]], dtype=np.uint8)
    url, fname, _ = D.SVHN.split_list[split]
    sio.savemat(str(tmp_path / fname), {"X": x, "y": y})
    table = dict(D.SVHN.split_list, **{split: [url, fname, md5(tmp_path / fname)]})
    for cls in [D.SVHN] + ([tv.datasets.SVHN] if HAS_TV else []):
        monkeypatch.setattr(cls, "split_list", table)
    ds = D.SVHN(tmp_path, split=split)
    assert ds.labels.tolist() == [0, 1, 9, 0]
    assert_image(ds[2][0], x[:, :, :, 2], "RGB")
    if HAS_TV:
        theirs = tv.datasets.SVHN(tmp_path, split=split)
        assert_same_samples(ds, theirs)
        assert repr(ds) == repr(theirs)


def test_svhn_without_scipy_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "scipy.io", None)  # `import scipy.io` now fails
    with pytest.raises(ImportError, match="SVHN reads MATLAB files through SciPy.*pip install scipy"):
        D.SVHN(tmp_path)


@pytest.fixture
def stl10_root(tmp_path, monkeypatch):
    rs = np.random.RandomState(5)
    folder = tmp_path / "stl10_binary"
    arrays = {"train_X.bin": rs.randint(0, 256, (4, 3, 96, 96)).astype(np.uint8),
              "train_y.bin": rs.randint(1, 11, 4).astype(np.uint8),
              "unlabeled_X.bin": rs.randint(0, 256, (2, 3, 96, 96)).astype(np.uint8),
              "test_X.bin": rs.randint(0, 256, (3, 3, 96, 96)).astype(np.uint8),
              "test_y.bin": rs.randint(1, 11, 3).astype(np.uint8)}
    for name, arr in arrays.items():
        # images are stored column-major: each channel is written transposed
        write(folder / name, (arr.transpose(0, 1, 3, 2) if arr.ndim == 4 else arr).tobytes())
    (folder / "fold_indices.txt").write_text("0 2\n1 3\n" + "0\n" * 8)
    (folder / "class_names.txt").write_text("\n".join(f"c{i}" for i in range(10)) + "\n")
    patch_md5s(monkeypatch, [D.STL10] + ([tv.datasets.STL10] if HAS_TV else []), tmp_path, "stl10_binary")
    return tmp_path, arrays


@pytest.mark.parametrize("split, folds", [("train", None), ("train", 1), ("test", None), ("unlabeled", None),
                                          ("train+unlabeled", 0)])
def test_stl10(stl10_root, split, folds):
    root, arrays = stl10_root
    ds = D.STL10(root, split=split, folds=folds)
    key = "test" if split == "test" else "unlabeled" if split == "unlabeled" else "train"
    keep = [[0, 2], [1, 3]][folds] if folds is not None else slice(None)
    images = arrays[f"{key}_X.bin"] if key != "train" else arrays["train_X.bin"][keep]
    assert_image(ds[1][0], images[1].transpose(1, 2, 0), "RGB")
    if key == "unlabeled":
        assert ds[0][1] == -1
    else:
        assert ds[1][1] == arrays[f"{key}_y.bin"][keep][1] - 1
    if split == "train+unlabeled":
        assert len(ds) == 4 and ds[3][1] == -1
    assert ds.classes[3] == "c3"
    if HAS_TV:
        theirs = tv.datasets.STL10(root, split=split, folds=folds)
        assert_same_samples(ds, theirs)
        assert repr(ds) == repr(theirs)


@pytest.mark.parametrize("folds", [10, -1, "1"])
def test_stl10_bad_folds(stl10_root, folds):
    with pytest.raises(ValueError) as e:
        D.STL10(stl10_root[0], folds=folds)
    if HAS_TV:
        with pytest.raises(ValueError) as f:
            tv.datasets.STL10(stl10_root[0], folds=folds)
        assert str(e.value) == str(f.value)


# -- ImageFolder / DatasetFolder -----------------------------------------------------------------------------

@pytest.fixture
def image_tree(tmp_path):
    rs = np.random.RandomState(6)
    files = {"cat/a.png": "RGB", "cat/sub/b.PNG": "L", "cat/c.txt": None, "dog/z.bmp": "RGB",
             "dog/y.png": "P", "dog/x.jpg": "RGB", "emu/w.png": "RGBA", "emu/v.gif": "RGB"}
    arrays = {}
    for rel, mode in files.items():
        path = tmp_path / "tree" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if mode is None:
            path.write_text("not an image")
            continue
        channels = {"RGB": 3, "RGBA": 4}.get(mode, 0)
        arr = rs.randint(0, 256, (5, 7, channels) if channels else (5, 7)).astype(np.uint8)
        Image.fromarray(arr, mode if mode != "P" else "L").convert(mode).save(path)
        arrays[rel] = arr
    (tmp_path / "tree" / "readme.md").write_text("a file at the top is not a class")
    return tmp_path / "tree", arrays


def test_image_folder(image_tree):
    root, arrays = image_tree
    ds = D.ImageFolder(str(root))
    assert ds.classes == ["cat", "dog", "emu"] and ds.class_to_idx == {"cat": 0, "dog": 1, "emu": 2}
    rels = [os.path.relpath(p, root) for p, _ in ds.samples]
    assert rels == ["cat/a.png", "cat/sub/b.PNG", "dog/x.jpg", "dog/y.png", "dog/z.bmp", "emu/w.png"]
    assert ds.targets == [0, 0, 1, 1, 1, 2] and ds.imgs is ds.samples
    img, target = ds[0]
    assert_image(img, arrays["cat/a.png"], "RGB")
    assert_image(ds[1][0], np.repeat(arrays["cat/sub/b.PNG"][:, :, None], 3, axis=2), "RGB")
    if HAS_TV:
        theirs = tv.datasets.ImageFolder(str(root))
        assert ds.samples == theirs.samples and ds.classes == theirs.classes
        assert_same_samples(ds, theirs)
        assert repr(ds) == repr(theirs)


def test_dataset_folder_loader_and_filters(image_tree):
    root, _ = image_tree
    with pytest.raises(FileNotFoundError, match=r"Found no valid file for the classes dog\. Supported extensions "
                                                r"are: \.txt, \.gif"):
        D.DatasetFolder(root, loader=len, extensions=(".txt", ".gif"))
    ds = D.DatasetFolder(root, loader=os.path.getsize, extensions=(".txt", ".gif"), allow_empty=True)
    assert [os.path.relpath(p, root) for p, _ in ds.samples] == ["cat/c.txt", "emu/v.gif"]
    assert ds[0] == (len("not an image"), 0) and ds.targets == [0, 2]
    only_b = D.ImageFolder(root, is_valid_file=lambda p: p.endswith("b.PNG"), allow_empty=True)
    assert [os.path.relpath(p, root) for p, _ in only_b.samples] == ["cat/sub/b.PNG"]
    if HAS_TV:
        for kwargs in ({"extensions": (".txt", ".gif"), "allow_empty": True}, {"extensions": ".png", "allow_empty": True},
                       {"is_valid_file": lambda p: "x" in p, "allow_empty": True}):
            assert D.DatasetFolder(root, loader=len, **kwargs).samples == \
                tv.datasets.DatasetFolder(root, loader=len, **kwargs).samples


def test_dataset_folder_with_its_own_classes(image_tree):
    root, _ = image_tree

    class OnlyDogs(D.ImageFolder):
        def find_classes(self, directory):
            return ["dog"], {"dog": 7}

    ds = OnlyDogs(root)
    assert ds.classes == ["dog"] and set(ds.targets) == {7} and len(ds) == 3
    with pytest.raises(ValueError, match="The class_to_idx parameter cannot be None."):
        D.DatasetFolder.make_dataset(str(root), None, extensions=".png")
    if HAS_TV:
        class TheirDogs(tv.datasets.ImageFolder):
            def find_classes(self, directory):
                return ["dog"], {"dog": 7}
        assert ds.samples == TheirDogs(root).samples


@pytest.mark.parametrize("case", ["no_classes", "empty_class", "both_filters", "no_filter", "empty_mapping"])
def test_folder_errors_match_torchvision(tmp_path, case):
    (tmp_path / "a").mkdir()
    if case != "empty_class":
        Image.new("RGB", (2, 2)).save(tmp_path / "a" / "x.png")

    def build(mod):
        folder = mod.folder if hasattr(mod, "folder") else mod
        if case == "no_classes":
            return mod.ImageFolder(tmp_path / "a")
        if case == "empty_class":
            return mod.ImageFolder(tmp_path)
        if case == "both_filters":
            return folder.make_dataset(str(tmp_path), {"a": 0}, extensions=".png", is_valid_file=bool)
        if case == "no_filter":
            return folder.make_dataset(str(tmp_path), {"a": 0})
        return folder.make_dataset(str(tmp_path), {})

    errors = (FileNotFoundError, ValueError)
    with pytest.raises(errors) as e:
        build(D)
    if HAS_TV:
        with pytest.raises(errors) as f:
            build(tv.datasets)
        assert (type(e.value), str(e.value)) == (type(f.value), str(f.value))


def test_folder_helpers():
    from npgrad.vision.datasets import folder
    assert folder.has_file_allowed_extension("A.JPEG", (".jpeg",)) and folder.is_image_file("x.webp")
    assert not folder.has_file_allowed_extension("a.png.txt", ".png")
    if HAS_TV:
        assert folder.IMG_EXTENSIONS == tv.datasets.folder.IMG_EXTENSIONS


# -- FakeData ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("image_size, mode", [((3, 6, 5), "RGB"), ((1, 4, 4), "L"), ((4, 2, 3), "RGBA")])
def test_fake_data(image_size, mode):
    ds = D.FakeData(size=5, image_size=image_size, num_classes=3, random_offset=7)
    npgrad.manual_seed(0)
    before = npgrad.rand(3).tolist()
    npgrad.manual_seed(0)
    img, target = ds[2]
    assert npgrad.rand(3).tolist() == before  # the global generator is left as it was
    assert img.mode == mode and img.size == image_size[:0:-1] and 0 <= target < 3 and type(target) is int
    again, same_target = ds[2]
    assert again.tobytes() == img.tobytes() and same_target == target
    assert ds[3][0].tobytes() != img.tobytes()
    assert D.FakeData(5, image_size, 3, random_offset=8)[1][0].tobytes() == img.tobytes()  # seed = index + offset
    # the pixels are x * 255 wrapped to uint8 for x drawn from the normal distribution seeded with index+offset
    npgrad.manual_seed(9)
    x = npgrad.randn(*image_size)
    expected = x.mul(255).byte().numpy().transpose(1, 2, 0)
    np.testing.assert_array_equal(np.asarray(img), expected[:, :, 0] if mode == "L" else expected)
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ds[5]
    assert len(ds) == 5


def test_fake_data_transforms_like_torchvision():
    seen = []
    ds = D.FakeData(2, (3, 2, 2), transform=lambda im: im.size, target_transform=lambda t: seen.append(t) or t + 1)
    size, target = ds[0]
    assert size == (2, 2) and isinstance(seen[0], npgrad.Tensor) and target == seen[0].item() + 1
    if HAS_TV:
        theirs = tv.datasets.FakeData(2, (3, 2, 2), transform=lambda im: im.size, target_transform=lambda t: t + 1)
        assert repr(D.FakeData(2, (3, 2, 2), transform=abs)).splitlines() == \
            repr(tv.datasets.FakeData(2, (3, 2, 2), transform=abs)).splitlines()
        assert type(theirs[0][1]) is type(target)


# -- VisionDataset ---------------------------------------------------------------------------------------------

def _neg(v):
    return -v


class _Two(D.VisionDataset):
    def __len__(self):
        return 2


@pytest.mark.parametrize("kwargs", [{}, {"transform": abs}, {"target_transform": _neg},
                                    {"transform": abs, "target_transform": _neg}, {"transforms": max}])
def test_vision_dataset_repr_and_transforms(tmp_path, kwargs):
    ds = _Two(str(tmp_path), **kwargs)
    text = repr(ds)
    assert text.startswith(f"Dataset _Two\n    Number of datapoints: 2\n    Root location: {tmp_path}")
    if "transform" in kwargs or "target_transform" in kwargs:
        assert ds.transforms(-3, 4) == (kwargs.get("transform", lambda v: v)(-3),
                                        kwargs.get("target_transform", lambda v: v)(4))
    if HAS_TV:
        class Theirs(tv.datasets.VisionDataset):
            def __len__(self):
                return 2
        assert text.replace("_Two", "Theirs") == repr(Theirs(str(tmp_path), **kwargs))
    with pytest.raises(ValueError, match="Only transforms or transform/target_transform"):
        _Two(tmp_path, transforms=max, transform=abs)
    assert _Two("~/x").root == os.path.expanduser("~/x")


# -- missing files and downloads -------------------------------------------------------------------------------

MISSING = [("MNIST", {}), ("FashionMNIST", {"train": False}), ("EMNIST", {"split": "letters"}),
           ("QMNIST", {"what": "nist"}), ("CIFAR10", {}), ("CIFAR100", {}), ("STL10", {"split": "test"})]


@pytest.mark.parametrize("name, kwargs", MISSING)
def test_missing_files_say_what_torchvision_says(tmp_path, name, kwargs):
    with pytest.raises(RuntimeError) as e:
        getattr(D, name)(tmp_path, **kwargs)
    assert "You can use download=True to download it" in str(e.value)
    if HAS_TV:
        with pytest.raises(RuntimeError) as f:
            getattr(tv.datasets, name)(tmp_path, **kwargs)
        assert str(e.value) == str(f.value)


@pytest.fixture
def offline(monkeypatch):
    tried = []

    def urlopen(request, *args, **kwargs):
        tried.append(getattr(request, "full_url", request))
        raise urllib.error.URLError("no network here")
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return tried


@pytest.mark.parametrize("name, kwargs, expected", [
    ("MNIST", {}, ["train-images-idx3-ubyte", "MNIST/raw"]),
    ("KMNIST", {}, ["train-images-idx3-ubyte", "KMNIST/raw"]),
    ("EMNIST", {"split": "digits"}, ["gzip.zip", "emnist-digits-train-images-idx3-ubyte", "EMNIST/raw"]),
    ("QMNIST", {"what": "test10k"}, ["qmnist-test-images-idx3-ubyte.gz", "QMNIST/raw"]),
    ("CIFAR10", {}, ["cifar-10-python.tar.gz", "data_batch_1", "cifar-10-batches-py"]),
    ("CIFAR100", {"train": False}, ["cifar-100-python.tar.gz", "eb9058c3"]),
    ("STL10", {}, ["stl10_binary.tar.gz"]),
    ("SVHN", {"split": "extra"}, ["extra_32x32.mat", "a93ce644f1a588dc4d68dda5feec44a7"]),
])
def test_offline_download_names_urls_and_files(tmp_path, offline, name, kwargs, expected):
    if name == "SVHN":
        pytest.importorskip("scipy.io", reason="SVHN needs SciPy before it downloads")
    with pytest.raises(RuntimeError) as e:
        getattr(D, name)(tmp_path, download=True, **kwargs)
    assert isinstance(e.value, urllib.error.URLError)  # what torchvision code catches to try another mirror
    msg = str(e.value)
    assert offline and all(url in msg for url in offline), (offline, msg)
    assert "no network here" in msg and str(tmp_path) in msg
    for part in expected:
        assert part in msg, (part, msg)
    if name in ("MNIST", "KMNIST"):
        cls = getattr(D, name)
        assert offline == [m + cls.resources[0][0] for m in cls.mirrors]  # every mirror, the first file


def test_mnist_download_from_a_mirror_unpacks_like_torchvision(tmp_path, monkeypatch):
    served = tmp_path / "served"
    arrays = make_mnist_raw(served, gz=True)
    resources = [(n, md5(served / n)) for n, _ in D.MNIST.resources]
    mirrors = ["file:///nonexistent/mirror/", served.as_uri() + "/"]  # the first mirror fails
    monkeypatch.setattr(D.MNIST, "resources", resources)
    monkeypatch.setattr(D.MNIST, "mirrors", mirrors)
    ds = D.MNIST(tmp_path / "root", download=True)
    raw = tmp_path / "root" / "MNIST" / "raw"
    assert sorted(os.listdir(raw)) == sorted([n for n, _ in resources] + [n[:-3] for n, _ in resources])
    assert_image(ds[5][0], arrays["train"][0][5], "L")
    if HAS_TV:  # the root the download made is one torchvision reads as it is
        assert_same_samples(ds, tv.datasets.MNIST(tmp_path / "root"))


def test_download_with_the_files_in_place_fetches_nothing(tmp_path, offline):
    make_mnist_raw(tmp_path / "MNIST" / "raw")
    assert len(D.MNIST(tmp_path, download=True)) == 6 and offline == []


def test_emnist_download_unpacks_every_split_from_the_zip(tmp_path, monkeypatch):
    rs = np.random.RandomState(7)
    archive = tmp_path / "served" / "gzip.zip"
    archive.parent.mkdir()
    arrays = {}
    with zipfile.ZipFile(archive, "w") as z:
        for split in ("digits", "letters"):
            imgs = rs.randint(0, 256, (3, 28, 28)).astype(np.uint8)
            labels = rs.randint(1, 10, 3).astype(np.uint8)
            arrays[split] = imgs
            for part, arr in (("images-idx3", imgs), ("labels-idx1", labels)):
                for which in ("train", "test"):
                    z.writestr(f"gzip/emnist-{split}-{which}-{part}-ubyte.gz", gzip.compress(idx_bytes(arr)))
    monkeypatch.setattr(D.EMNIST, "url", archive.as_uri())
    monkeypatch.setattr(D.EMNIST, "md5", md5(archive))
    ds = D.EMNIST(tmp_path / "root", split="letters", download=True)
    raw = tmp_path / "root" / "EMNIST" / "raw"
    assert not (raw / "gzip").exists() and (raw / "emnist-digits-test-images-idx3-ubyte").is_file()
    assert_image(ds[2][0], arrays["letters"][2], "L")
    assert len(D.EMNIST(tmp_path / "root", split="digits", train=False)) == 3  # unpacked by the first download


def test_cifar_download_checks_the_archive_md5(tmp_path, monkeypatch):
    src = tmp_path / "src"
    make_cifar(src, D.CIFAR10, n=2)
    archive = tmp_path / "served" / D.CIFAR10.filename
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src / D.CIFAR10.base_folder, arcname=D.CIFAR10.base_folder)
    patch_md5s(monkeypatch, [D.CIFAR10], src, D.CIFAR10.base_folder)
    monkeypatch.setattr(D.CIFAR10, "meta", dict(D.CIFAR10.meta, md5=None))
    monkeypatch.setattr(D.CIFAR10, "url", archive.as_uri())
    monkeypatch.setattr(D.CIFAR10, "tgz_md5", "0" * 32)
    with pytest.raises(RuntimeError, match="File not found or corrupted"):
        D.CIFAR10(tmp_path / "root", download=True)
    monkeypatch.setattr(D.CIFAR10, "tgz_md5", md5(archive))
    ds = D.CIFAR10(tmp_path / "root", download=True, train=False)
    assert len(ds) == 2 and ds.classes[0] == "class0"
    assert os.path.isfile(tmp_path / "root" / D.CIFAR10.filename)


# -- datasets.utils -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["tar.gz", "tgz", "tar.xz", "zip", "gz", "xz"])
def test_extract_archive(tmp_path, kind):
    payload = b"hello " * 100
    path = tmp_path / f"thing.{kind}"
    if kind in ("gz", "xz"):
        path.write_bytes(gzip.compress(payload) if kind == "gz" else lzma.compress(payload))
        out = U.extract_archive(path)
        assert pathlib.Path(out) == tmp_path / "thing" and pathlib.Path(out).read_bytes() == payload
        return
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("d/f.txt", payload)
    else:
        with tarfile.open(path, "w:" + ("xz" if kind == "tar.xz" else "gz")) as t:
            info = tarfile.TarInfo("d/f.txt")
            info.size = len(payload)
            t.addfile(info, io.BytesIO(payload))
    out = U.extract_archive(path, tmp_path / "out", remove_finished=True)
    assert (pathlib.Path(out) / "d" / "f.txt").read_bytes() == payload and not path.exists()


def test_utils_errors_and_checks(tmp_path):
    with pytest.raises(RuntimeError, match="Unknown compression or archive type: '.rar'"):
        U.extract_archive(tmp_path / "x.rar")
    f = write(tmp_path / "f", b"abc")
    assert U.check_integrity(f) and U.check_integrity(f, hashlib.md5(b"abc").hexdigest())
    assert not U.check_integrity(f, "0" * 32) and not U.check_integrity(tmp_path / "nope")
    assert U.calculate_md5(f) == hashlib.md5(b"abc").hexdigest()
    cases = [(3, "split", None), ("c", "split", ("a", "b")), ("c", None, ("a",)), ("a", "s", ("a",))]
    for args in cases:
        try:
            ours = U.verify_str_arg(*args)
        except ValueError as e:
            ours = str(e)
        if HAS_TV:
            try:
                theirs = tv.datasets.utils.verify_str_arg(*args)
            except ValueError as e:
                theirs = str(e)
            assert ours == theirs
    assert U.verify_str_arg("a", "s", ("a",)) == "a"


def test_download_url_keeps_a_verified_file_and_rejects_a_corrupt_one(tmp_path, offline):
    f = write(tmp_path / "f.bin", b"abc")
    U.download_url("http://example.invalid/f.bin", tmp_path, md5=hashlib.md5(b"abc").hexdigest())
    assert offline == []  # nothing fetched
    src = write(tmp_path / "src" / "g.bin", b"xyz")
    with pytest.raises(urllib.error.URLError, match="example.invalid/f.bin"):
        U.download_url("http://example.invalid/f.bin", tmp_path, md5="0" * 32)
    assert f.read_bytes() == b"abc"


# -- with the DataLoader ----------------------------------------------------------------------------------------

def test_mnist_through_the_dataloader(tmp_path):
    arrays = make_mnist_raw(tmp_path / "MNIST" / "raw")

    def to_tensor(img):
        return npgrad.from_numpy(np.asarray(img, dtype=np.float32)[None] / 255)

    ds = D.MNIST(tmp_path, transform=to_tensor)
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert tuple(x.shape) == (4, 1, 28, 28) and x.dtype == npgrad.float32 and y.dtype == npgrad.int64
    np.testing.assert_allclose(x.numpy()[:, 0], arrays["train"][0][:4] / 255, rtol=1e-6)
    assert y.tolist() == arrays["train"][1][:4].tolist()
