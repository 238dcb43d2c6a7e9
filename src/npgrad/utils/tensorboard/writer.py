"""SummaryWriter: PyTorch's ``torch.utils.tensorboard.SummaryWriter`` over TensorBoard's event-file writer."""
import os
import time

from tensorboard.compat.proto import event_pb2  # optional
from tensorboard.summary.writer.event_file_writer import EventFileWriter  # optional

from . import _embedding, _summary
from ._graph import build_graph
from ._hparams import hparams


class FileWriter:
    """Writes events (summaries, graphs) to one event file in ``log_dir``; SummaryWriter holds one per run
    directory."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        log_dir = str(log_dir)
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        graph, stats = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)
        meta = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=stats.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=meta), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


class SummaryWriter:
    """Writes entries to event files in ``log_dir`` for TensorBoard to read.

    ``log_dir`` defaults to ``runs/<Mon>DD_HH-MM-SS_<hostname><comment>``. ``purge_step`` hides events of
    an earlier, crashed run at or after that step; ``max_queue`` and ``flush_secs`` bound how long events
    wait before reaching disk; ``filename_suffix`` ends every event file's name.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            import socket
            from datetime import datetime
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname()
                                   + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _summary.tensorflow_bins()

    def _get_file_writer(self):
        # Created lazily so that logging after close() opens a fresh event file, as in PyTorch.
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(event_pb2.Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(event_pb2.Event(
                    step=self.purge_step, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory event files are written to."""
        return self.log_dir

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Log a run's hyperparameters and final metrics for the HParams dashboard, in the sub-run
        ``run_name`` (default: the current time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            for s in summaries:
                w.file_writer.add_summary(s, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number under ``tag`` at ``global_step``."""
        summary = _summary.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers on one chart: each key goes to its own run ``<log_dir>/<main_tag>_<key>``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run = base + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = self.all_writers.get(run)
            if fw is None:
                fw = self.all_writers[run] = FileWriter(run, self.max_queue, self.flush_secs, self.filename_suffix)
            fw.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """Log a histogram of ``values``; ``bins`` is 'tensorflow' (TensorBoard's default exponential
        buckets) or anything ``numpy.histogram`` takes ('auto', 'fd', a count, edges)."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(_summary.histogram(tag, values, bins, max_bins=max_bins),
                                            global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        """Log a histogram already reduced to its statistics and buckets."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        hist = _summary.HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                                       bucket_limit=bucket_limits, bucket=bucket_counts)
        summary = _summary.Summary(value=[_summary.Summary.Value(tag=tag, histo=hist)])
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Log one image (float in [0, 1] or uint8 in [0, 255]) laid out as ``dataformats``."""
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """Log a batch of images, tiled into one grid image."""
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Render a matplotlib figure (or a list of them) and log it as an image."""
        if isinstance(figure, list):
            import numpy as np
            img = np.stack([_summary.figure_to_chw(f, close) for f in figure])
            self.add_image(tag, img, global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, _summary.figure_to_chw(figure, close), global_step, walltime, dataformats="CHW")

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a (markdown) string."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Log the graph of ``model(*input_to_model)`` as recorded by autograd. ``use_strict_trace`` is
        accepted for PyTorch's signature; there is no TorchScript trace to make strict."""
        self._get_file_writer().add_graph(build_graph(model, input_to_model, verbose))

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """Write ``mat`` (N x D) with optional labels and thumbnails for the embedding projector."""
        mat = _summary.to_numpy(mat)
        if global_step is None:
            global_step = 0
        subdir = f"{str(global_step).zfill(5)}/{_embedding.encode_tag(tag)}"
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            _embedding.write_metadata(save_path, metadata, metadata_header)
        label_shape = None
        if label_img is not None:
            label_img = _summary.to_numpy(label_img)
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _embedding.write_sprite(save_path, label_img)
            label_shape = label_img.shape
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        _embedding.write_tensors(save_path, mat)
        # The config lists every embedding so far; the file is rewritten whole since it cannot be appended.
        if not hasattr(self, "_projector_config"):
            from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig  # optional
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([_embedding.embedding_info(
            tag, global_step, subdir, metadata is not None, label_shape)])
        from google.protobuf import text_format  # optional (tensorboard's dependency)
        with open(os.path.join(logdir, "projector_config.pbtxt"), "wb") as f:
            f.write(text_format.MessageToString(self._projector_config).encode("utf-8"))

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None):
        """Log a precision-recall curve of binary ``labels`` against ``predictions`` in [0, 1]."""
        labels, predictions = _summary.to_numpy(labels), _summary.to_numpy(predictions)
        self._get_file_writer().add_summary(_summary.pr_curve(tag, labels, predictions, num_thresholds, weights),
                                            global_step, walltime)

    def flush(self):
        """Write every pending event to disk."""
        if self.all_writers is None:
            return
        for w in self.all_writers.values():
            w.flush()

    def close(self):
        """Flush and close every event file; a later add_* call opens new ones."""
        if self.all_writers is None:
            return
        for w in self.all_writers.values():
            w.flush()
            w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
