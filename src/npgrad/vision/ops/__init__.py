"""torchvision.ops: box operations, NMS, RoI pooling, losses and the layers the models are built from."""
from .boxes import (batched_nms, box_area, box_convert, box_iou, clip_boxes_to_image, complete_box_iou,
                    distance_box_iou, generalized_box_iou, masks_to_boxes, nms, remove_small_boxes)
from .losses import complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss, sigmoid_focal_loss
from .misc import Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, MLP, Permute, SqueezeExcitation
from .stochastic_depth import StochasticDepth, stochastic_depth
from .roi_align import RoIAlign, roi_align
from .roi_pool import RoIPool, roi_pool
from .feature_pyramid_network import FeaturePyramidNetwork
from .drop_block import DropBlock2d, DropBlock3d, drop_block2d, drop_block3d
from .poolers import MultiScaleRoIAlign
from .ps_roi import PSRoIAlign, PSRoIPool, ps_roi_align, ps_roi_pool
from .deform_conv import DeformConv2d, deform_conv2d
