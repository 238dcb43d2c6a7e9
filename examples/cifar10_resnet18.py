"""ResNet-18 on CIFAR-10, written as a torchvision user writes it.

    npgrad run examples/cifar10_resnet18.py                  # CIFAR-10 in ./data (or FakeData when absent)
    npgrad run examples/cifar10_resnet18.py --download       # fetch CIFAR-10 into ./data first
    npgrad run examples/cifar10_resnet18.py --fake-data --epochs 1 --steps 20   # a quick run on FakeData
    python examples/cifar10_resnet18.py                      # the same file on PyTorch + torchvision

Under ``npgrad run`` the imports of ``torch`` and ``torchvision`` resolve to npgrad and npgrad.vision, so
nothing here names npgrad. When CIFAR-10 is not in --data-dir (torchvision's layout:
root/cifar-10-batches-py/) and --download is not given, the script says so and trains on
``torchvision.datasets.FakeData`` images of the same shape instead.
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as transforms
from torch.utils.data import DataLoader

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def datasets(args):
    """The (train, test) datasets: CIFAR-10 from disk (or downloaded), else FakeData of CIFAR's shape."""
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_tf = test_tf if args.no_augment else transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    if not args.fake_data:
        try:
            train = torchvision.datasets.CIFAR10(args.data_dir, train=True, download=args.download,
                                                 transform=train_tf)
            test = torchvision.datasets.CIFAR10(args.data_dir, train=False, download=args.download,
                                                transform=test_tf)
            return train, test, "CIFAR-10"
        except RuntimeError as e:  # "Dataset not found or corrupted. You can use download=True ..."
            print(f"CIFAR-10 not found in {args.data_dir!r} ({e}); training on FakeData instead")
    train = torchvision.datasets.FakeData(args.fake_size, image_size=(3, 32, 32), num_classes=10,
                                          transform=train_tf)
    test = torchvision.datasets.FakeData(max(1, args.fake_size // 5), image_size=(3, 32, 32), num_classes=10,
                                         transform=test_tf, random_offset=args.fake_size)
    return train, test, "FakeData"


@torch.no_grad()
def evaluate(model, loader, steps=None):
    model.eval()
    correct = total = 0
    for i, (images, labels) in enumerate(loader):
        if steps is not None and i >= steps:
            break
        correct += (model(images).argmax(1) == labels).sum().item()
        total += labels.numel()
    return correct / max(1, total)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default="./data")
    p.add_argument("--download", action="store_true", help="download CIFAR-10 into --data-dir if missing")
    p.add_argument("--fake-data", action="store_true", help="train on FakeData even if CIFAR-10 is on disk")
    p.add_argument("--fake-size", type=int, default=5000, help="number of FakeData training images")
    p.add_argument("--no-augment", action="store_true", help="train without RandomCrop/RandomHorizontalFlip")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--steps", type=int, default=None, help="stop each epoch after this many batches")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--save", default=None, help="write the trained state_dict here")
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    train_set, test_set, name = datasets(args)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=args.workers)

    model = torchvision.models.resnet18(num_classes=10)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    steps_per_epoch = len(train_loader) if args.steps is None else min(args.steps, len(train_loader))
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * steps_per_epoch)
    print(f"{name}: {len(train_set)} train / {len(test_set)} test images; "
          f"resnet18 with {sum(p.numel() for p in model.parameters()):,} parameters")

    for epoch in range(1, args.epochs + 1):
        model.train()
        start, seen, total_loss = time.time(), 0, 0.0
        for step, (images, labels) in enumerate(train_loader):
            if step >= steps_per_epoch:
                break
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            if not math.isfinite(loss.item()):
                raise SystemExit(f"loss became {loss.item()} at epoch {epoch} step {step}")
            total_loss += loss.item() * labels.size(0)
            seen += labels.size(0)
            if (step + 1) % args.log_every == 0:
                print(f"  epoch {epoch} step {step + 1}/{steps_per_epoch} loss {loss.item():.4f}", flush=True)
        acc = evaluate(model, test_loader, None if args.steps is None else max(1, args.steps // 4))
        print(f"epoch {epoch}: train loss {total_loss / seen:.4f}, test accuracy {acc:.1%}, "
              f"{seen / (time.time() - start):.1f} images/s", flush=True)

    if args.save:
        torch.save(model.state_dict(), args.save)
        print(f"saved {args.save}")


if __name__ == "__main__":
    main()
