"""Channel counts rounded to a hardware-friendly multiple, as the mobile architectures (MobileNet, EfficientNet,
RegNet) size their layers."""


def _make_divisible(v, divisor, min_value=None):
    """``v`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``, default ``divisor``), going one
    step up when rounding down would lose more than a tenth of ``v``."""
    floor = divisor if min_value is None else min_value
    rounded = max(floor, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded
