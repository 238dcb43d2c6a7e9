"""torch.onnx: write a model as an ONNX file (through the optional ``onnx`` package).

``export`` records the forward pass operator by operator and maps each to ONNX operators; see
``_export`` (the driver), ``_trace`` (the recording), ``_graph`` (values, constants, nodes) and ``_ops``
(the mapping table).
"""
from ._export import TrainingMode, export, is_in_onnx_export

__all__ = ["export", "TrainingMode", "is_in_onnx_export"]
