"""Datasets read from a folder per class: ``root/<class>/**/<file>``, classes sorted by name."""
import os

from .vision import VisionDataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "has_file_allowed_extension", "is_image_file",
           "find_classes", "make_dataset", "pil_loader", "default_loader"]

IMG_EXTENSIONS = (
    ".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp",
)


def has_file_allowed_extension(filename, extensions):
    """Whether ``filename`` ends (case-insensitively) with one of ``extensions`` (a string or a tuple)."""
    suffixes = (extensions,) if isinstance(extensions, str) else tuple(extensions)
    return filename.lower().endswith(suffixes)


def is_image_file(filename):
    return filename.lower().endswith(IMG_EXTENSIONS)


def find_classes(directory):
    """The sorted names of the sub-folders of ``directory`` and ``{name: index}``."""
    with os.scandir(directory) as entries:
        classes = sorted(e.name for e in entries if e.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None, allow_empty=False):
    """``[(path, class index), ...]`` for every accepted file below each class folder, in sorted order.

    Files are accepted by ``extensions`` or by ``is_valid_file(path)``: exactly one of the two is given.
    A class folder with no accepted file is an error unless ``allow_empty``.
    """
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        class_to_idx = find_classes(directory)[1]
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    accept = is_valid_file if extensions is None else (lambda p: has_file_allowed_extension(p, extensions))
    samples, empty = [], []
    for name in sorted(class_to_idx):
        folder = os.path.join(directory, name)
        if not os.path.isdir(folder):
            continue
        found = False
        for here, _, files in sorted(os.walk(folder, followlinks=True)):
            for fname in sorted(files):
                path = os.path.join(here, fname)
                if accept(path):
                    samples.append((path, class_to_idx[name]))
                    found = True
        if not found:
            empty.append(name)
    # a class named in class_to_idx whose folder is missing counts as empty too
    empty = sorted(set(empty) | {n for n in class_to_idx if not os.path.isdir(os.path.join(directory, n))})
    if empty and not allow_empty:
        hint = ""
        if extensions is not None:
            listed = extensions if isinstance(extensions, str) else ", ".join(extensions)
            hint = f"Supported extensions are: {listed}"
        raise FileNotFoundError(f"Found no valid file for the classes {', '.join(empty)}. {hint}")
    return samples


class DatasetFolder(VisionDataset):
    """Samples ``loader(path)`` of the files under ``root/<class>/``; targets are the class indices.

    ``classes``, ``class_to_idx``, ``samples`` (path, index) and ``targets`` are set on construction.
    Subclasses may override ``find_classes`` to choose the classes differently.
    """

    def __init__(self, root, loader, extensions=None, transform=None, target_transform=None, is_valid_file=None,
                 allow_empty=False):
        super().__init__(root, None, transform, target_transform)
        self.classes, self.class_to_idx = self.find_classes(self.root)
        self.samples = self.make_dataset(self.root, class_to_idx=self.class_to_idx, extensions=extensions,
                                         is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.loader, self.extensions = loader, extensions
        self.targets = [target for _, target in self.samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None, allow_empty=False):
        if class_to_idx is None:
            # find_classes may be overridden, so the mapping must come from the caller
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions=extensions, is_valid_file=is_valid_file,
                            allow_empty=allow_empty)

    def find_classes(self, directory):
        """The classes of ``directory`` (the module's ``find_classes``); override to choose others."""
        classes, mapping = find_classes(directory)
        return classes, mapping

    def __getitem__(self, index):
        file, target = self.samples[index]
        return self._transformed(self.loader(file), target)

    def __len__(self):
        return len(self.samples)


def pil_loader(path):
    """The image file at ``path`` as a PIL image converted to ``RGB``."""
    from PIL import Image
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def default_loader(path):
    return pil_loader(path)


class ImageFolder(DatasetFolder):
    """A ``DatasetFolder`` of images (``IMG_EXTENSIONS``) loaded as RGB PIL images; ``imgs`` = ``samples``."""

    def __init__(self, root, transform=None, target_transform=None, loader=default_loader, is_valid_file=None,
                 allow_empty=False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
