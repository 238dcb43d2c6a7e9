"""The base class of the vision datasets: a root folder, the transforms, and torchvision's repr."""
import os

from ...utils.data import Dataset

__all__ = ["VisionDataset", "StandardTransform"]


class VisionDataset(Dataset):
    """A dataset stored under ``root``; subclasses implement ``__getitem__`` and ``__len__``.

    ``transforms`` takes (sample, target) and returns both; ``transform``/``target_transform`` each take
    one. Passing both kinds is an error. The separate pair is wrapped in a ``StandardTransform`` and kept
    as ``self.transforms`` too, so a dataset can always call ``self.transforms(sample, target)``.
    """

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        self.root = os.path.expanduser(root) if isinstance(root, str) else root
        separate = (transform, target_transform) != (None, None)
        if transforms is not None and separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform, self.target_transform = transform, target_transform
        self.transforms = StandardTransform(transform, target_transform) if separate else transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def _transformed(self, sample, target):
        """(sample, target) after ``transform`` and ``target_transform``, the datasets' last step."""
        return _apply(self.transform, sample), _apply(self.target_transform, target)

    def extra_repr(self):
        return ""

    def __repr__(self):
        body = [f"Number of datapoints: {len(self)}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body.extend(self.extra_repr().splitlines())
        if getattr(self, "transforms", None) is not None:
            body.append(repr(self.transforms))
        # Only the first line of each entry is indented, as in torchvision.
        pad = " " * self._repr_indent
        return "\n".join([f"Dataset {type(self).__name__}"] + [pad + line for line in body])

    def _format_transform_repr(self, transform, head):
        first, *rest = repr(transform).splitlines()
        return [head + first] + [" " * len(head) + line for line in rest]


class StandardTransform:
    """Applies ``transform`` to the sample and ``target_transform`` to the target."""

    def __init__(self, transform=None, target_transform=None):
        self.transform, self.target_transform = transform, target_transform

    def __call__(self, input, target):
        return _apply(self.transform, input), _apply(self.target_transform, target)

    def _format_transform_repr(self, transform, head):
        first, *rest = repr(transform).splitlines()
        return [head + first] + [" " * len(head) + line for line in rest]

    def __repr__(self):
        lines = [type(self).__name__]
        if self.transform is not None:
            lines += self._format_transform_repr(self.transform, "Transform: ")
        if self.target_transform is not None:
            lines += self._format_transform_repr(self.target_transform, "Target transform: ")
        return "\n".join(lines)


def _apply(fn, value):
    return value if fn is None else fn(value)


def _image(array, mode=None):
    """A PIL image of a HxW or HxWxC uint8 array (Pillow is imported here, when a sample is built)."""
    from PIL import Image
    return Image.fromarray(array, mode=mode) if mode is not None else Image.fromarray(array)
