"""bfloat16 rounding for float32 arrays (NumPy has no bfloat16): keep the top 16 bits, rounding to nearest even.

Enough to reproduce computations PyTorch does in bfloat16 on the CPU, where each operation accumulates in
float32 and rounds its result once: products of two bfloat16 values are exact in float32.
"""
import numpy as np


def round_bf16(a):
    """``a`` (float32) rounded to the nearest bfloat16 value, returned as float32."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32)
    nan = np.isnan(bits.view(np.float32))
    bits = (bits + (((bits >> 16) & np.uint32(1)) + np.uint32(0x7FFF))) & np.uint32(0xFFFF0000)
    out = bits.view(np.float32)
    if nan.any():
        out = np.where(nan, np.float32(np.nan), out)
    return out
