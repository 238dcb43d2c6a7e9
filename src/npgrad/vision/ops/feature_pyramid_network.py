"""Feature Pyramid Network (Lin et al., 2017): a top-down pathway over a backbone's feature maps, each
level a 1x1 lateral projection plus the coarser level upsampled (nearest), smoothed by a 3x3 convolution;
optional extra levels on top (a stride-2 max pool, or RetinaNet's P6/P7). Module names and state_dict keys
are torchvision's."""
from collections import OrderedDict

from ... import nn
from ...nn import functional as F
from .misc import Conv2dNormActivation

__all__ = ["ExtraFPNBlock", "FeaturePyramidNetwork", "LastLevelMaxPool", "LastLevelP6P7"]


def _init_conv(conv):
    nn.init.kaiming_uniform_(conv.weight, a=1)
    if conv.bias is not None:
        nn.init.constant_(conv.bias, 0)


class ExtraFPNBlock(nn.Module):
    """Base of the blocks that add levels after the pyramid: ``forward(results, x, names)`` gets the FPN's
    outputs, the original features and the level names, and returns the (extended) results and names."""

    def forward(self, results, x, names):
        pass


class FeaturePyramidNetwork(nn.Module):
    """FPN over an ordered dict of feature maps, finest first, with ``in_channels_list`` their channels;
    every output level has ``out_channels``. Returns an OrderedDict with the input's keys (and the extra
    block's)."""

    _version = 2

    def __init__(self, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(Conv2dNormActivation(in_channels, out_channels, kernel_size=1, padding=0,
                                                          norm_layer=norm_layer, activation_layer=None))
            self.layer_blocks.append(Conv2dNormActivation(out_channels, out_channels, kernel_size=3,
                                                          norm_layer=norm_layer, activation_layer=None))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                _init_conv(m)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(f"extra_blocks should be of type ExtraFPNBlock not {type(extra_blocks)}")
        self.extra_blocks = extra_blocks

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            # checkpoints before version 2 held bare convolutions: inner_blocks.0.weight is now inner_blocks.0.0.weight
            for block in ("inner_blocks", "layer_blocks"):
                for i in range(len(self.inner_blocks)):
                    for kind in ("weight", "bias"):
                        old = f"{prefix}{block}.{i}.{kind}"
                        if old in state_dict:
                            state_dict[f"{prefix}{block}.{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def _level(self, blocks, x, idx):
        n = len(blocks)
        idx = idx + n if idx < 0 else idx
        for i, module in enumerate(blocks):
            if i == idx:
                return module(x)
        return x

    def get_result_from_inner_blocks(self, x, idx):
        """``self.inner_blocks[idx](x)`` (a negative idx counts from the end)."""
        return self._level(self.inner_blocks, x, idx)

    def get_result_from_layer_blocks(self, x, idx):
        """``self.layer_blocks[idx](x)`` (a negative idx counts from the end)."""
        return self._level(self.layer_blocks, x, idx)

    def forward(self, x):
        names = list(x.keys())
        feats = list(x.values())
        top = self.get_result_from_inner_blocks(feats[-1], -1)
        results = [self.get_result_from_layer_blocks(top, -1)]
        for idx in range(len(feats) - 2, -1, -1):
            lateral = self.get_result_from_inner_blocks(feats[idx], idx)
            top = lateral + F.interpolate(top, size=lateral.shape[-2:], mode="nearest")
            results.insert(0, self.get_result_from_layer_blocks(top, idx))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, feats, names)
        return OrderedDict(zip(names, results))


class LastLevelMaxPool(ExtraFPNBlock):
    """One more level: the coarsest output subsampled by 2 (a 1x1 max pool at stride 2), named "pool"."""

    def forward(self, x, y, names):
        names.append("pool")
        x.append(F.max_pool2d(x[-1], kernel_size=1, stride=2, padding=0))
        return x, names


class LastLevelP6P7(ExtraFPNBlock):
    """RetinaNet's two extra levels: P6 a stride-2 3x3 convolution of P5 (when the channels agree) or C5,
    P7 another of relu(P6)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        for conv in (self.p6, self.p7):
            _init_conv(conv)
        self.use_P5 = in_channels == out_channels

    def forward(self, p, c, names):
        source = p[-1] if self.use_P5 else c[-1]
        p6 = self.p6(source)
        p7 = self.p7(F.relu(p6))
        p.extend([p6, p7])
        names.extend(["p6", "p7"])
        return p, names
