"""The benchmark models, written once against PyTorch's API and run with ``lib`` = torch or npgrad.

Each builder returns ``(params_module, step)`` where ``step()`` runs one full training step (forward,
backward, optimizer update) and returns the loss tensor. Weights and data are created in NumPy from a
fixed seed and loaded into both frameworks, so both sides compute the same thing.
"""
import numpy as np


def _load(lib, module, arrays):
    """Copy NumPy arrays into a module's parameters in named_parameters() order."""
    with lib.no_grad():
        for p, a in zip(module.parameters(), arrays):
            p.copy_(lib.tensor(a))


def _init_arrays(module, rng):
    return [rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32) / np.sqrt(max(1, p.shape[-1]))
            for p in module.parameters()]


def _shared_init(lib, module, seed):
    # Both frameworks draw the same arrays from this seed, in the same parameter order.
    _load(lib, module, _init_arrays(module, np.random.default_rng(seed)))


# -- overhead: a chain of tiny elementwise ops ---------------------------------------------------------

OVERHEAD_OPS = 200


def overhead(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.uniform(-1, 1, 4).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.uniform(0.5, 1.0, 4).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.uniform(-0.5, 0.5, 4).astype(np.float32), requires_grad=True)

    def step():
        x.grad = w.grad = b.grad = None
        y = x
        ops = 0
        while ops < OVERHEAD_OPS:
            # add, mul, sub, div, tanh, exp: the mix the issue names; values stay bounded.
            y = y * w
            y = y + b
            y = y.tanh()
            y = y - b
            y = y / 1.5
            y = (y * 0.5).exp() if ops + 7 <= OVERHEAD_OPS else y
            ops += 7 if ops + 7 <= OVERHEAD_OPS else 5
        loss = y.sum()
        loss.backward()
        return loss
    return None, step


# -- mlp: 784-512-256-10, ReLU, cross-entropy, SGD, batch 128 -------------------------------------------

def mlp(lib, batch=128):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    _shared_init(lib, model, 1)
    rng = np.random.default_rng(2)
    x = lib.tensor(rng.standard_normal((batch, 784)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, batch))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, step


# -- cnn: LeNet-style, Adam, batch 64 ---------------------------------------------------------------------

def cnn(lib, batch=64):
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(800, 128), nn.ReLU(), nn.Linear(128, 10))
    _shared_init(lib, model, 3)
    rng = np.random.default_rng(4)
    x = lib.tensor(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, batch))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, step


# -- gpt: char-level decoder-only transformer, AdamW ----------------------------------------------------------

def gpt_model(lib, vocab=65, ctx=64, layers=4, heads=4, d=128):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.fc = nn.Linear(d, 4 * d)
            self.out = nn.Linear(4 * d, d)

        def forward(self, x, mask):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q = q.view(B, T, heads, C // heads).transpose(1, 2)
            k = k.view(B, T, heads, C // heads).transpose(1, 2)
            v = v.view(B, T, heads, C // heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / (C // heads) ** 0.5)
            att = att.masked_fill(mask[:T, :T], float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, C)
            x = x + self.proj(y)
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(ctx, d)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)
            self.register_buffer("mask", lib.triu(lib.ones(ctx, ctx, dtype=lib.bool), diagonal=1))

        def forward(self, idx):
            T = idx.shape[1]
            x = self.tok(idx) + self.pos(lib.arange(T))
            for blk in self.blocks:
                x = blk(x, self.mask)
            return self.head(self.ln(x))

    return GPT()


def gpt(lib, batch=32, ctx=64, vocab=65):
    model = gpt_model(lib, vocab=vocab, ctx=ctx)
    _shared_init(lib, model, 5)
    rng = np.random.default_rng(6)
    data = rng.integers(0, vocab, (batch, ctx + 1))
    x, y = lib.tensor(data[:, :-1]), lib.tensor(data[:, 1:])
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

    def step():
        opt.zero_grad()
        logits = model(x)
        loss = lib.nn.functional.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss
    return model, step


# -- deep: backward through a long chain ---------------------------------------------------------------------

def deep(lib, ops=100_000):
    x = lib.tensor(np.full(4, 0.5, np.float32), requires_grad=True)

    def step():
        x.grad = None
        y = x
        for _ in range(ops // 2):  # two ops per iteration
            y = y * 0.9999 + 1e-4
        loss = y.sum()
        loss.backward()
        return loss
    return None, step


# -- residual: backward through a deep residual network -------------------------------------------------------

def residual(lib, layers=1000, width=16):
    rng = np.random.default_rng(7)
    ws = [lib.tensor(rng.standard_normal((width, width)).astype(np.float32) * 0.1, requires_grad=True)
          for _ in range(layers)]
    x = lib.tensor(rng.standard_normal((4, width)).astype(np.float32), requires_grad=True)

    def step():
        for w in ws:
            w.grad = None
        h = x
        for w in ws:
            h = h + 0.01 * (h @ w).tanh()  # each layer: the skip connection plus a (small) branch
        loss = h.pow(2).mean()
        loss.backward()
        return loss
    return None, step


# -- lstm: 2-layer LSTM (hidden 256) over 64 steps, batch 32, a per-step classifier head, Adam --------------

def lstm(lib, batch=32, seq=64, inp=64, hidden=256, classes=10):
    nn = lib.nn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(inp, hidden, num_layers=2)
            self.head = nn.Linear(hidden, classes)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out)

    model = Tagger()
    _shared_init(lib, model, 8)
    rng = np.random.default_rng(9)
    x = lib.tensor(rng.standard_normal((seq, batch, inp)).astype(np.float32))
    y = lib.tensor(rng.integers(0, classes, seq * batch))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x).reshape(-1, classes), y)
        loss.backward()
        opt.step()
        return loss
    return model, step


# -- resnet: a stem conv and one residual block (conv3x3-bn-relu x2 + identity skip), SGD momentum -----------

def resnet(lib, batch=32, channels=16, classes=10):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            # No conv bias before BatchNorm, as residual networks are written: BN's shift replaces it.
            self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(c)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(c)

        def forward(self, x):
            h = F.relu(self.bn1(self.conv1(x)))
            return F.relu(self.bn2(self.conv2(h)) + x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, channels, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(channels)
            self.block = Block(channels)
            self.head = nn.Linear(channels, classes)

        def forward(self, x):
            h = self.block(F.relu(self.bn(self.stem(x))))
            return self.head(h.mean((2, 3)))  # global average pooling

    model = Net()
    _shared_init(lib, model, 10)
    rng = np.random.default_rng(11)
    x = lib.tensor(rng.standard_normal((batch, 3, 32, 32)).astype(np.float32))
    y = lib.tensor(rng.integers(0, classes, batch))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, step


# -- resnet18: torchvision's resnet18(num_classes=10) on CIFAR-sized inputs (batch 32, 3x32x32), SGD momentum ---

def resnet18(lib, batch=32, classes=10):
    from benchmarks._vision import vision_for
    model = vision_for(lib).models.resnet18(num_classes=classes)
    _shared_init(lib, model, 14)
    rng = np.random.default_rng(15)
    x = lib.tensor(rng.standard_normal((batch, 3, 32, 32)).astype(np.float32))
    y = lib.tensor(rng.integers(0, classes, batch))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, step


# -- inference latency: forward only, under no_grad, batch 1 ------------------------------------------------
# The step returns the output (not a loss); check_value() reduces it to the number the runners compare.

def infer_mlp(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    _shared_init(lib, model, 1)
    model.eval()
    x = lib.tensor(np.random.default_rng(12).standard_normal((1, 784)).astype(np.float32))

    def step():
        with lib.no_grad():
            return model(x)
    return model, step


def infer_gpt(lib, ctx=64, vocab=65):
    model = gpt_model(lib, vocab=vocab, ctx=ctx)
    _shared_init(lib, model, 5)
    model.eval()
    x = lib.tensor(np.random.default_rng(13).integers(0, vocab, (1, ctx)))

    def step():
        with lib.no_grad():
            return model(x)
    return model, step


def check_value(out):
    """The number both frameworks must agree on at step 0: the loss, or for an output tensor its L1 norm
    in float64 (a plain sum of logits could cancel to near zero and make the relative check meaningless)."""
    if out.numel() == 1:
        return float(out.item())
    return float(np.abs(out.detach().numpy().astype(np.float64)).sum())
