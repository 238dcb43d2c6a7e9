"""The projector plugin's files for add_embedding: tensors.tsv, metadata.tsv, sprite.png and the
projector_config.pbtxt that lists every embedding of the run."""
import math
import os

import numpy as np
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo  # optional

from ._png import encode_png
from ._summary import _grid


def encode_tag(tag):
    # A tag becomes one folder name: escape the characters that would split or break it.
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def write_metadata(path, metadata, header=None):
    if header:
        if len(header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [header] + list(metadata)]
    else:
        lines = [str(x) for x in metadata]
    with open(os.path.join(path, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))


def write_sprite(path, images):
    # The projector wants one square image holding every thumbnail, in rows of ceil(sqrt(N)).
    ncols = math.ceil(images.shape[0] ** 0.5)
    chw = _grid(images, ncols=ncols)
    square = np.zeros((chw.shape[2], chw.shape[2], 3))
    square[:chw.shape[1]] = chw.transpose(1, 2, 0)
    with open(os.path.join(path, "sprite.png"), "wb") as f:
        f.write(encode_png(np.uint8((square * 255).clip(0, 255))))


def write_tensors(path, mat):
    with open(os.path.join(path, "tensors.tsv"), "wb") as f:
        for row in mat:
            f.write(("\t".join(str(v.item()) for v in row) + "\n").encode("utf-8"))


def embedding_info(tag, global_step, subdir, has_metadata, label_img_shape):
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(global_step).zfill(5)}",
                         tensor_path=os.path.join(subdir, "tensors.tsv"))
    if has_metadata:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img_shape is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img_shape[3], label_img_shape[2]])
    return info
