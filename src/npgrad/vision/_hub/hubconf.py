"""pytorch/vision's torch.hub entrypoints: that repository's hubconf.py re-exports torchvision.models' builders
and weights look-ups, and npgrad.vision is that package. npgrad.hub loads this file, like any hubconf.py, for
``hub.load("pytorch/vision", ...)`` when no snapshot of the repository is cached."""
from npgrad.vision import models as _models

dependencies = []
get_model_weights = _models.get_model_weights
get_weight = _models.get_weight
globals().update({_name: _models.get_model_builder(_name) for _name in _models.list_models(module=_models)})
