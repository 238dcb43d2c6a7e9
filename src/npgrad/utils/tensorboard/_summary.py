"""Summary protocol buffers for each kind of record SummaryWriter writes (scalars, histograms, images,
text, hyperparameters, precision-recall curves), built from NumPy arrays."""
import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata  # optional
from tensorboard.compat.proto.tensor_pb2 import TensorProto  # optional
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto  # optional

from ..._optional import require
from ...tensor import Tensor
from ._png import encode_png


def to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        return x.detach().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(tag, value, new_style=False, double_precision=False):
    arr = to_numpy(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} "
                             f"and {arr.ndim} dimensions.")
    v = float(arr)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=v)])
    proto = (TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[v], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=meta)])


def tensorflow_bins():
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% per bucket up to 1e20, and 0."""
    edges = []
    v = 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def histogram(tag, values, bins, max_bins=None):
    values = to_numpy(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # Merge neighbouring buckets in groups so at most about max_bins remain.
        group = len(counts) // max_bins
        if len(counts) % group:
            counts = np.pad(counts, (0, group - len(counts) % group))
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = np.append(limits[:-1:group], limits[-1])
    # TensorBoard stores right edges only: keep the occupied range plus one empty bucket on its left so
    # the leftmost edge survives.
    occupied = np.nonzero(counts)[0]
    first, last = (int(occupied[0]), int(occupied[-1]) + 1) if occupied.size else (0, len(counts))
    counts = counts[first - 1:last] if first > 0 else np.concatenate([[0], counts[:last]])
    limits = limits[first:last + 1]
    hist = HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=tag, histo=hist)])


def _grid(nchw, ncols=8):
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, 1)
    if nchw.ndim != 4 or nchw.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = nchw.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=nchw.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = nchw[i]
    return canvas


def to_hwc(arr, dataformats):
    """An image array in any of PyTorch's layouts (NCHW, CHW, HWC, HW, ...) as H x W x C (C = 3 or 4);
    a batch is tiled into a grid of 8 columns, as PyTorch's writer does."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt):
        raise AssertionError(f"You can not use the same dimension shorthand twice. input_format: {dataformats}")
    if arr.ndim != len(fmt):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {arr.shape}, "
                             f"input_format: {dataformats}")
    if len(fmt) == 4:
        return _grid(arr.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = arr.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = arr.transpose([fmt.find(c) for c in "HW"])
    return np.stack([hw] * 3, 2)


def to_uint8(arr):
    # uint8 images are taken as 0..255, anything else as 0..1 (PyTorch's rule); out-of-range values clip.
    scale = 1 if arr.dtype == np.uint8 else 255
    return (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def image(tag, img, dataformats):
    hwc = to_uint8(to_hwc(to_numpy(img), dataformats))
    h, w, c = hwc.shape
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=encode_png(hwc))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def figure_to_chw(figure, close):
    plt = require("matplotlib.pyplot", "SummaryWriter.add_figure")
    FigureCanvasAgg = require("matplotlib.backends.backend_agg", "SummaryWriter.add_figure").FigureCanvasAgg
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    w, h = figure.canvas.get_width_height()
    rgb = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(h, w, 4)[:, :, :3]
    if close:
        plt.close(figure)
    return np.moveaxis(rgb, 2, 0)


def _shape(*dims):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in dims])


def text(tag, text_string):
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData  # optional
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")], tensor_shape=_shape(1))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData  # optional
    num_thresholds = min(num_thresholds, 127)  # TensorBoard's plugin stores at most 127 thresholds
    weights = 1.0 if weights is None else weights
    labels = labels.astype(np.float64)
    bucket = np.int32(np.floor(predictions * (num_thresholds - 1)))
    span = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(bucket, bins=num_thresholds, range=span, weights=labels * weights)
    fp_b, _ = np.histogram(bucket, bins=num_thresholds, range=span, weights=(1.0 - labels) * weights)
    tp, fp = np.cumsum(tp_b[::-1])[::-1], np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    data = np.stack((tp, fp, tn, fn, precision, recall))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="pr_curves",
        content=PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()))
    proto = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(), tensor_shape=_shape(*data.shape))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])
