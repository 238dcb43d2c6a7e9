"""Learn an unknown filter by gradient descent in the frequency domain, with torch.fft and complex parameters.

A black box filters signals with an unknown low-pass FIR response; we only see noisy input/output pairs. The
model is the filter's frequency response itself: one complex number per rfft bin, ``H``, applied as
``irfft(rfft(x, n) * H, n)`` (a linear convolution, since n leaves room for the filter's tail). Adam fits ``H``
to the pairs; the gradient reaches the complex parameter through irfft and the product under PyTorch's
convention (the conjugate Wirtinger derivative), so the optimizer is the ordinary real one.

It prints the relative error of the recovered frequency response and impulse response against the true ones, and
how much the learned filter cleans the noisy outputs (the SNR of its output against the clean signal, compared
with that of the observations).

    python examples/learn_filter.py              # 400 Adam steps
    python examples/learn_filter.py --steps 20   # a smoke run
"""
import argparse
import math
import time

import npgrad as torch


def lowpass_fir(taps, cutoff):
    """A Hann-windowed sinc: the black box's impulse response (cutoff as a fraction of the Nyquist rate)."""
    k = torch.arange(taps, dtype=torch.float64) - (taps - 1) / 2
    hann = 0.5 - 0.5 * torch.cos(2 * math.pi * torch.arange(taps, dtype=torch.float64) / (taps - 1))
    h = cutoff * torch.sinc(cutoff * k) * hann
    return h / h.sum()


def filtered(x, H, n, length):
    """x convolved with the filter whose n-point frequency response is H, cut to the input's length."""
    return torch.fft.irfft(torch.fft.rfft(x, n=n) * H, n=n)[..., :length]


def snr_db(clean, est):
    return 10 * math.log10(float((clean ** 2).sum()) / float(((est - clean) ** 2).sum()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--signals", type=int, default=64)
    ap.add_argument("--length", type=int, default=256)
    ap.add_argument("--taps", type=int, default=31)
    ap.add_argument("--noise", type=float, default=0.05, help="noise std on the observed outputs")
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    torch.manual_seed(args.seed)
    n = args.length + args.taps - 1
    h_true = lowpass_fir(args.taps, 0.3)
    H_true = torch.fft.rfft(h_true, n=n)

    x = torch.randn(args.signals, args.length, dtype=torch.float64)
    clean = filtered(x, H_true, n, args.length)
    observed = clean + args.noise * torch.randn(clean.shape, dtype=torch.float64)

    H = torch.zeros(n // 2 + 1, dtype=torch.complex128, requires_grad=True)  # the model: one complex gain per bin
    opt = torch.optim.Adam([H], lr=args.lr)
    losses = []
    for step in range(args.steps):
        opt.zero_grad()
        loss = ((filtered(x, H, n, args.length) - observed) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 100 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {losses[-1]:.6f}")

    with torch.no_grad():
        response_err = float((H - H_true).abs().norm() / H_true.abs().norm())
        h_learned = torch.fft.irfft(H, n=n)
        impulse_err = float((h_learned[:args.taps] - h_true).norm() / h_true.norm())
        leak = float(h_learned[args.taps:].norm() / h_true.norm())  # energy outside the true support
        # fresh signals: the learned filter against the true one, and against the noisy observations
        x_test = torch.randn(args.signals, args.length, dtype=torch.float64)
        clean_test = filtered(x_test, H_true, n, args.length)
        noisy_test = clean_test + args.noise * torch.randn(clean_test.shape, dtype=torch.float64)
        snr_observed = snr_db(clean_test, noisy_test)
        snr_learned = snr_db(clean_test, filtered(x_test, H, n, args.length))
    elapsed = time.perf_counter() - t0
    print(f"relative error of the frequency response: {response_err:.4f}")
    print(f"relative error of the impulse response (first {args.taps} taps): {impulse_err:.4f}; "
          f"energy beyond them {leak:.4f}")
    print(f"SNR of the observed outputs {snr_observed:.1f} dB; of the learned filter's outputs {snr_learned:.1f} dB "
          f"(gain {snr_learned - snr_observed:.1f} dB)")
    print(f"{args.steps} steps in {elapsed:.2f} s")
    return {"losses": losses, "response_err": response_err, "impulse_err": impulse_err,
            "snr_observed": snr_observed, "snr_learned": snr_learned, "seconds": elapsed}


if __name__ == "__main__":
    main()
