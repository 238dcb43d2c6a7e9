"""A small CNN trained the way PyTorch tutorials write it: device selection, cudnn flag, DataLoader,
optimizer + scheduler, train/eval, checkpoint save and reload. Unmodified PyTorch; `npgrad run` runs it."""
import argparse
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--out", default=".")
parser.add_argument("--init", help="an .npz with the data (x, y) and initial weights; batches in order")
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 4 * 4, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        return self.fc(torch.flatten(x, 1))


# two classes: a bright top half or a bright bottom half
x = torch.rand(128, 1, 8, 8) * 0.5
y = torch.randint(0, 2, (128,))
x[y == 0, :, :4] += 1.0
x[y == 1, :, 4:] += 1.0
model = Net().to(device)
if args.init:  # start from given data and weights (e.g. another framework's), so runs can be compared
    init = np.load(args.init)
    x, y = torch.from_numpy(init["x"]), torch.from_numpy(init["y"])
    model.load_state_dict({k: torch.from_numpy(init[k]) for k in model.state_dict()})
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=not args.init)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(args.epochs):
    model.train()
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
        if args.init:
            print(f"step loss {loss.item():.9g}")
    sched.step()
    print(f"epoch {epoch} loss {total / len(x):.4f}")

model.eval()
with torch.no_grad():
    acc = (model(x.to(device)).argmax(1) == y).float().mean().item()
path = os.path.join(args.out, "cnn.pt")
torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
state = torch.load(path)
fresh = Net()
fresh.load_state_dict(state["model"])
fresh.eval()
with torch.no_grad():
    same = torch.allclose(fresh(x), model(x))
print(f"accuracy {acc:.3f} reloaded_equal {same} torch_is {torch.__name__} argv {sys.argv[1:]}")
