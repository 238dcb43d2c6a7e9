"""An MLP (784-256-128-10) classifying MNIST digits, written exactly as one would with PyTorch.

    python examples/mnist_mlp.py                          # 10 epochs: about 98% test accuracy
    python examples/mnist_mlp.py --epochs 1 --limit 2000  # a quick smoke run on a subset

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

MEAN, STD = 0.1307, 0.3081  # of MNIST's training pixels


class MLP(nn.Module):
    def __init__(self, dropout=0.1):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, 10)
        self.drop = nn.Dropout(dropout)  # a little regularisation: 60k images, 235k weights

    def forward(self, x):
        x = x.flatten(1)                     # (N, 1, 28, 28) or (N, 784) -> (N, 784)
        x = self.drop(F.relu(self.fc1(x)))
        x = self.drop(F.relu(self.fc2(x)))
        return self.fc3(x)                   # logits; cross_entropy applies log_softmax itself


def load(data_dir, train, limit=None):
    """All images of a split as one normalised float32 tensor (N, 784), and the labels (N,).

    Whole-tensor preprocessing, then a TensorDataset: far faster than a per-image transform.
    """
    ds = MNIST(data_dir, train=train)
    x = ((ds.data.float() / 255 - MEAN) / STD).view(-1, 784)
    y = ds.targets
    if limit:
        x, y = x[:limit], y[:limit]
    return TensorDataset(x, y)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = total = 0
    loss = 0.0
    for x, y in loader:
        logits = model(x)
        loss += F.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return loss / total, correct / total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--limit", type=int, default=None, help="use only the first N train and test images")
    p.add_argument("--out", default=os.path.join("runs", "mnist_mlp"))
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    train_loader = DataLoader(load(args.data_dir, True, args.limit), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(load(args.data_dir, False, args.limit), batch_size=1000)

    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    # Cosine decay over every step of the run: large steps early, fine ones at the end.
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))

    history = []
    start = time.time()
    for epoch in range(1, args.epochs + 1):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        test_loss, test_acc = evaluate(model, test_loader)
        history.append({"epoch": epoch, "train_loss": loss.item(), "test_loss": test_loss, "test_acc": test_acc})
        print(f"epoch {epoch:2d}  last batch loss {loss.item():.4f}  test loss {test_loss:.4f}  "
              f"test accuracy {100 * test_acc:.2f}%  ({time.time() - start:.0f} s)", flush=True)

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.npgrad")
    torch.save(model.state_dict(), path)
    print(f"final test accuracy {100 * test_acc:.2f}% after {args.epochs} epochs, {time.time() - start:.0f} s; "
          f"saved {path}")
    return {"history": history, "test_acc": test_acc, "checkpoint": path, "seconds": time.time() - start}


if __name__ == "__main__":
    main()
