"""A variational autoencoder on MNIST, written with torch.distributions the way PyTorch code writes it.

The encoder gives a diagonal Normal over a 20-dimensional code; a code is drawn with ``rsample`` (the
reparameterisation trick: the draw is a differentiable function of the encoder's outputs); the decoder gives
a Bernoulli over the 784 pixels. Training maximises the evidence lower bound,
E_q[log p(x | z)] - KL(q(z | x) || N(0, I)), with ``log_prob`` and ``kl_divergence`` doing the arithmetic.

    python examples/vae.py                      # 10 epochs, about 3 minutes on 2 CPU cores
    python examples/vae.py --epochs 1 --limit 2000   # a quick smoke run on a subset

MNIST is looked for in --data-dir, $NPGRAD_DATA and ~/.cache/npgrad, and downloaded there if missing.
"""
import argparse
import time

import npgrad as torch
import npgrad.nn as nn
from npgrad.datasets import MNIST
from npgrad.distributions import Bernoulli, Independent, Normal, kl_divergence
from npgrad.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, latent=20, hidden=400):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, 784))
        self.latent = latent

    def posterior(self, x):
        mu, log_sigma = self.encoder(x).chunk(2, dim=-1)
        return Independent(Normal(mu, log_sigma.exp()), 1)     # one event of `latent` dimensions per image

    def prior(self, n):
        zeros = torch.zeros(n, self.latent)
        return Independent(Normal(zeros, torch.ones_like(zeros)), 1)

    def likelihood(self, z):
        return Independent(Bernoulli(logits=self.decoder(z)), 1)

    def forward(self, x):
        """The negative ELBO of each image (nats), and its two parts."""
        q = self.posterior(x)
        z = q.rsample()
        reconstruction = -self.likelihood(z).log_prob(x)
        kl = kl_divergence(q, self.prior(len(x)))
        return reconstruction + kl, reconstruction, kl


def load(data_dir, train, limit=None):
    ds = MNIST(data_dir, train=train)
    x = (ds.data.float() / 255 > 0.5).float().view(-1, 784)   # binarised pixels: a Bernoulli likelihood
    return TensorDataset(x[:limit] if limit else x)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total = rec = kl = 0.0
    n = 0
    for (x,) in loader:
        loss, r, k = model(x)
        total, rec, kl, n = total + loss.sum().item(), rec + r.sum().item(), kl + k.sum().item(), n + len(x)
    return total / n, rec / n, kl / n


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--latent", type=int, default=20)
    p.add_argument("--limit", type=int, default=None, help="use only the first N training images")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    train = DataLoader(load(args.data_dir, True, args.limit), batch_size=args.batch_size, shuffle=True)
    test = DataLoader(load(args.data_dir, False), batch_size=1000)
    model = VAE(args.latent)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    t0 = time.time()
    history = []
    for epoch in range(args.epochs):
        model.train()
        for (x,) in train:
            loss = model(x)[0].mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        history.append(evaluate(model, test))
        elbo, rec, kl = history[-1]
        print(f"epoch {epoch + 1}/{args.epochs}  test -ELBO {elbo:.2f} nats/image "
              f"(reconstruction {rec:.2f} + KL {kl:.2f})  {time.time() - t0:.0f} s", flush=True)
    print(f"final test negative ELBO {history[-1][0]:.2f} nats per image", flush=True)
    return {"history": history, "model": model}


if __name__ == "__main__":
    main()
