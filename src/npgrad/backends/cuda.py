"""``torch.backends.cuda``: not built; ``matmul.allow_tf32`` and the other flags are kept for scripts that
set them, with no effect on the CPU."""


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: TF32 and reduced-precision reductions are GPU features."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    return False
