"""FakeData: random images made on demand, the same image for the same index every time."""
import numpy as np

from ... import random as _random
from ...factories import randint, randn
from .vision import VisionDataset, _image

__all__ = ["FakeData"]

_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


class FakeData(VisionDataset):
    """``size`` random PIL images of ``image_size`` (C, H, W) with random labels below ``num_classes``.

    Sample ``i`` is drawn from npgrad's generator seeded with ``i + random_offset`` (the global generator's
    state is restored afterwards), as torchvision draws from torch's, so a dataset is reproducible; npgrad's
    random streams are not torch's, so the pixels differ from torchvision's FakeData.
    """

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None,
                 random_offset=0):
        super().__init__(None, None, transform, target_transform)
        self.size, self.image_size = size, image_size
        self.num_classes, self.random_offset = num_classes, random_offset

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        channels = self.image_size[0]
        if channels not in _MODES:
            raise ValueError(f"FakeData makes PIL images of 1 to 4 channels, not {channels} (image_size "
                             f"{tuple(self.image_size)})")
        state = _random.get_rng_state()
        try:
            _random.manual_seed(index + self.random_offset)
            img = randn(*self.image_size)
            target = randint(0, self.num_classes, size=(1,))[0]
        finally:
            _random.set_rng_state(state)
        # what ToPILImage makes of a float tensor: x * 255 converted to uint8, channels last
        pixels = img.mul(255).byte().numpy().transpose(1, 2, 0)
        sample = _image(np.ascontiguousarray(pixels[:, :, 0] if channels == 1 else pixels), _MODES[channels])
        # as in torchvision, target_transform sees the 0-d label Tensor and the result is unwrapped by .item()
        sample, target = self._transformed(sample, target)
        return sample, target.item()

    def __len__(self):
        return self.size
