"""Array kernels (NumPy in, NumPy out) behind torch.fft and Tensor.stft/istft, with their vector-Jacobian products.

Private: the public ``npgrad.fft`` and ``torch.stft``/``istft`` are Tensor operators over these kernels
(``npgrad/fft`` and ``npgrad/ops/spectral.py``), which import the modules directly:

* ``plan`` -- torch.fft's ``n``/``s``/``dim``/``norm`` arguments checked (PyTorch's errors) and resolved into a Plan;
* ``transforms`` -- the 18 transforms: ``forward(x, plan)`` and ``backward(grad, plan)``;
* ``shift_freq`` -- fftshift/ifftshift (a roll, whose adjoint is the opposite roll) and fftfreq/rfftfreq;
* ``stft``, ``istft`` -- the short-time transform and its inverse, with their backward (``framing`` holds what
  they share: windows, centre padding, frames and overlap-add).
"""
