"""``torch.mps`` as it behaves on a machine without Apple's Metal backend: no devices, and the calls
that need one raise PyTorch's error."""


def device_count():
    return 0


def _no_mps(what):
    def call(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")
    call.__name__ = what
    return call


synchronize = _no_mps("deviceSynchronize")
empty_cache = _no_mps("emptyCache")
manual_seed = seed = get_rng_state = set_rng_state = _no_mps("getDefaultGenerator")
current_allocated_memory = _no_mps("getCurrentAllocatedMemory")
driver_allocated_memory = _no_mps("getDriverAllocatedMemory")
