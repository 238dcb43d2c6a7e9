"""The three summaries TensorBoard's hparams plugin reads: the experiment (which hyperparameters and
metrics exist), the session start (this run's values) and the session end."""
from google.protobuf import struct_pb2  # optional (tensorboard's dependency)
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata  # optional
from tensorboard.plugins.hparams import api_pb2, metadata  # optional
from tensorboard.plugins.hparams.plugin_data_pb2 import (HParamsPluginData, SessionEndInfo,  # optional
                                                         SessionStartInfo)

from ...tensor import Tensor

# A bool is an int, so it is logged as a number (1.0/0.0), as PyTorch's writer logs it.
_KINDS = (
    ((int, float), "number_value", "DATA_TYPE_FLOAT64"),
    ((str,), "string_value", "DATA_TYPE_STRING"),
)


def _summary(tag, **content):
    data = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=metadata.PLUGIN_NAME,
                                                                  content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    start = SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):
            start.hparams[k].number_value = float(v.detach().numpy().reshape(-1)[0])
            infos.append(api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        for types, field, dtype in _KINDS:
            if isinstance(v, types):
                setattr(start.hparams[k], field, v)
                domain = None
                if k in domains:
                    domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domains[k]])
                infos.append(api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value(dtype), domain_discrete=domain))
                break
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
    experiment = api_pb2.Experiment(hparam_infos=infos,
                                    metric_infos=[api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k))
                                                  for k in metric_dict])
    end = SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (_summary(metadata.EXPERIMENT_TAG, experiment=experiment),
            _summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
            _summary(metadata.SESSION_END_INFO_TAG, session_end_info=end))
