"""Tensor images need neither Pillow nor torchvision: the transforms run with PIL made unimportable."""
import os
import subprocess
import sys

SCRIPT = r"""
import sys
sys.modules["PIL"] = None  # any `import PIL...` now raises ImportError
import numpy as np
import npgrad
from npgrad.vision import transforms as T
from npgrad.vision.transforms import v2
from npgrad.vision.transforms._presets import ImageClassification
npgrad.manual_seed(0)
x = npgrad.from_numpy(np.random.default_rng(0).integers(0, 256, (2, 3, 20, 24), dtype=np.uint8))
y = T.Compose([T.RandomResizedCrop(12), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3, 0.1),
               T.RandomRotation(15), T.TrivialAugmentWide(), T.ConvertImageDtype(npgrad.float32),
               T.Normalize([0.5] * 3, [0.5] * 3), T.RandomErasing()])(x)
z = v2.Compose([v2.RandomCrop(16, padding=2), v2.RandAugment(), v2.ToDtype(npgrad.float32, scale=True)])(x)
p = ImageClassification(crop_size=8, resize_size=10)(x)
assert tuple(y.shape) == (2, 3, 12, 12) and tuple(z.shape) == (2, 3, 16, 16) and tuple(p.shape) == (2, 3, 8, 8)
assert not any(m == "PIL" or m.startswith("PIL.") for m, v in sys.modules.items() if v is not None)
try:
    T.ToPILImage()(x[0])
except ImportError as e:
    assert "Pillow" in str(e)
else:
    raise AssertionError("ToPILImage worked without Pillow")
print("ok")
"""


def test_tensor_transforms_run_without_pillow():
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")
