"""(no elementwise kernels beyond the activations yet)"""
