"""A tiny character transformer trained PyTorch's way (Embedding, TransformerEncoderLayer with a causal
mask, AdamW, gradient clipping, warmup scheduler). Unmodified PyTorch; `npgrad run` runs it."""
import argparse
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--init", help="an .npz with initial weights and each step's batch offsets (ix)")
args = parser.parse_args()
torch.manual_seed(0)
text = "to be or not to be that is the question " * 20
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
T, B, D = 16, 8, 32


class TinyGPT(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.tok = nn.Embedding(vocab, D)
        self.pos = nn.Parameter(torch.zeros(1, T, D))
        self.block = nn.TransformerEncoderLayer(D, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(D, vocab)
        mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, idx):
        h = self.tok(idx) + self.pos[:, : idx.shape[1]]
        return self.head(self.block(h, src_mask=self.mask))


model = TinyGPT(len(chars))
if args.init:  # start from given weights and batches (e.g. another framework's), so runs can be compared
    init = np.load(args.init)
    model.load_state_dict({k: torch.from_numpy(init[k]) for k in model.state_dict()})
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
losses = []
for step in range(len(init["ix"]) if args.init else 60):
    ix = torch.from_numpy(init["ix"][step]) if args.init else torch.randint(0, len(data) - T - 1, (B,))
    xb = torch.stack([data[i:i + T] for i in ix.tolist()])
    yb = torch.stack([data[i + 1:i + T + 1] for i in ix.tolist()])
    loss = F.cross_entropy(model(xb).reshape(-1, len(chars)), yb.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    losses.append(loss.item())
    if args.init:
        print(f"step loss {loss.item():.9g}")
first, last = sum(losses[:10]) / 10, sum(losses[-10:]) / 10
print(f"loss {first:.3f} -> {last:.3f} (uniform {math.log(len(chars)):.3f})")
