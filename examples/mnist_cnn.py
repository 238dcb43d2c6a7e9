"""A small convolutional network for MNIST: two conv + max-pool blocks and a classifier, PyTorch style.

    python examples/mnist_cnn.py                          # 6 epochs: over 99% test accuracy
    python examples/mnist_cnn.py --epochs 1 --limit 1000  # a quick smoke run on a subset

MNIST is looked for in --data-dir, $NPGRAD_DATA and ~/.cache/npgrad, and downloaded there if missing.
"""
import argparse
import os
import time

import npgrad as torch
import npgrad.nn as nn
import npgrad.nn.functional as F
from npgrad.datasets import MNIST
from npgrad.utils.data import DataLoader, TensorDataset

MEAN, STD = 0.1307, 0.3081


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 14 x 14
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 7 x 7
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Dropout(0.25),
            nn.Linear(128, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def load(data_dir, train, limit=None):
    """A split as a TensorDataset of normalised images (N, 1, 28, 28) and labels (N,)."""
    ds = MNIST(data_dir, train=train)
    x = ((ds.data.float() / 255 - MEAN) / STD).unsqueeze(1)  # add the channel dimension
    y = ds.targets
    if limit:
        x, y = x[:limit], y[:limit]
    return TensorDataset(x, y)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = total = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--limit", type=int, default=None, help="use only the first N train and test images")
    p.add_argument("--out", default=os.path.join("runs", "mnist_cnn"))
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    train_loader = DataLoader(load(args.data_dir, True, args.limit), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(load(args.data_dir, False, args.limit), batch_size=500)

    model = CNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    # One-cycle: warm up to max_lr over the first 30% of steps, then anneal to almost zero.
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr,
                                                    total_steps=args.epochs * len(train_loader))

    history = []
    start = time.time()
    for epoch in range(1, args.epochs + 1):
        model.train()
        for i, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            if i % 100 == 0:
                print(f"epoch {epoch}  step {i:4d}/{len(train_loader)}  loss {loss.item():.4f}", flush=True)
        acc = evaluate(model, test_loader)
        history.append({"epoch": epoch, "train_loss": loss.item(), "test_acc": acc})
        print(f"epoch {epoch}: test accuracy {100 * acc:.2f}%  ({time.time() - start:.0f} s)", flush=True)

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.npgrad")
    torch.save(model.state_dict(), path)
    print(f"final test accuracy {100 * acc:.2f}% after {args.epochs} epochs, {time.time() - start:.0f} s; saved {path}")
    return {"history": history, "test_acc": acc, "checkpoint": path, "seconds": time.time() - start}


if __name__ == "__main__":
    main()
