"""A character-level GPT (decoder-only transformer) trained on tiny-shakespeare, then sampled from.

The model is the GPT-2 design at toy size, every piece written out with npgrad ops:
token + position embeddings, then blocks of pre-LayerNorm causal self-attention (q/k/v projections,
masked softmax over earlier positions) and a pre-LayerNorm GELU MLP, each added back to the residual
stream; a final LayerNorm and an output layer that shares its weights with the token embedding.
Training uses AdamW (weight decay on matrices only) and a cosine learning-rate schedule with warmup,
checkpointing to ``--out`` so an interrupted run continues with ``--resume``.

    python examples/char_gpt.py                       # the full run: 6000 steps, 22-35 min on 2 CPU cores
    python examples/char_gpt.py --resume              # continue from runs/char_gpt/checkpoint.npgrad
    python examples/char_gpt.py --smoke               # a few steps of a tiny model (CI)
    python examples/char_gpt.py --sample-only --prompt "ROMEO:"   # sample from the saved model

The text is looked for in --data-dir, then $NPGRAD_DATA, then ~/.cache/npgrad (downloaded if missing).
"""
import argparse
import math
import os
import sys
import time

import npgrad as torch
import npgrad.nn as nn
import npgrad.nn.functional as F
from npgrad.datasets import TextDataset, find_tiny_shakespeare


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_head, block_size):
        super().__init__()
        assert d_model % n_head == 0, "d_model must be a multiple of n_head"
        self.n_head = n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)  # q, k and v for every head in one matmul
        self.proj = nn.Linear(d_model, d_model)
        # True above the diagonal: position t may not look at positions after t.
        self.register_buffer("future", torch.ones(block_size, block_size, dtype=torch.bool).triu(1),
                             persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        hd = C // self.n_head
        q, k, v = self.qkv(x).split(C, dim=2)
        # (B, T, C) -> (B, n_head, T, head_dim): each head attends independently.
        q = q.view(B, T, self.n_head, hd).transpose(1, 2)
        k = k.view(B, T, self.n_head, hd).transpose(1, 2)
        v = v.view(B, T, self.n_head, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(self.future[:T, :T], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v                                   # (B, n_head, T, head_dim)
        y = y.transpose(1, 2).reshape(B, T, C)        # heads side by side again
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d_model, n_head, block_size):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, block_size)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))  # pre-LayerNorm: the residual stream itself is never normalised
        x = x + self.mlp(self.ln2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer, n_head, d_model):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_head, block_size) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.head.weight = self.tok_emb.weight  # weight tying: one matrix reads and writes characters
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("proj.weight") or name.endswith("mlp.2.weight"):
                # GPT-2: scale down the layers that write into the residual stream, so its variance
                # does not grow with depth.
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(T))
        x = self.ln_f(self.blocks(x))
        logits = self.head(x)
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(B * T))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        """Extend ``idx`` (1, T) by ``max_new_tokens`` characters drawn one at a time."""
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size:])   # the model sees at most block_size characters
            logits = logits[:, -1, :] / max(temperature, 1e-8)
            if top_k is not None:
                kth = torch.topk(logits, min(top_k, logits.size(-1))).values[:, -1:]
                logits = logits.masked_fill(logits < kth, float("-inf"))  # keep only the k likeliest
            probs = F.softmax(logits, dim=-1)
            nxt = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


def lr_at(step, args):
    """Linear warmup to --lr, then a cosine decay to --min-lr at the last step."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = min(1.0, (step - args.warmup) / max(1, args.steps - args.warmup))
    return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1.0 + math.cos(math.pi * progress))


def make_optimizer(model, args):
    # Weight decay on the matrices (the linear weights and the tied embedding/output matrix) only: biases
    # and LayerNorm gains just shift and scale, and pulling them towards zero does not regularise.
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.99))


@torch.no_grad()
def evaluate(model, batches):
    model.eval()
    losses = [model(x, y)[1].item() for x, y in batches]
    model.train()
    return sum(losses) / len(losses)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None, help="folder (or file) holding tinyshakespeare/input.txt")
    p.add_argument("--out", default=os.path.join("runs", "char_gpt"), help="checkpoint folder")
    p.add_argument("--steps", type=int, default=6000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--block-size", type=int, default=64, help="context length in characters")
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--min-lr", type=float, default=2e-4)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--eval-every", type=int, default=250)
    p.add_argument("--eval-batches", type=int, default=20, help="fixed validation batches per evaluation")
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --out")
    p.add_argument("--sample-only", action="store_true", help="load the checkpoint and only sample")
    p.add_argument("--prompt", default="ROMEO:")
    p.add_argument("--sample-len", type=int, default=500)
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--top-k", type=int, default=20)
    p.add_argument("--smoke", action="store_true", help="tiny model, a few steps: checks the script runs")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if args.smoke:
        args.steps, args.batch_size, args.block_size = min(args.steps, 8), 8, 16
        args.n_layer, args.n_head, args.d_model = 1, 2, 32
        args.warmup, args.eval_every, args.eval_batches, args.sample_len = 2, 4, 2, min(args.sample_len, 40)
    return args


def main(argv=None):
    args = parse_args(argv)
    say = (lambda *a, **k: None) if args.quiet else (lambda *a, **k: print(*a, **k, flush=True))
    torch.manual_seed(args.seed)
    path = find_tiny_shakespeare(args.data_dir)
    train = TextDataset(path, args.block_size, split="train")
    val = TextDataset(path, args.block_size, split="val", tokenizer=train.tokenizer)
    tok = train.tokenizer

    ckpt_path = os.path.join(args.out, "checkpoint.npgrad")
    state = torch.load(ckpt_path) if (args.resume or args.sample_only) else None
    if state is not None:  # the checkpoint's model shape wins over the command line
        for k, v in state["config"].items():
            setattr(args, k, v)
    model = GPT(tok.vocab_size, args.block_size, args.n_layer, args.n_head, args.d_model)
    n_params = sum(p.numel() for p in model.parameters())
    say(f"tiny-shakespeare: {len(train.data)} train / {len(val.data)} val characters, vocab {tok.vocab_size}")
    say(f"model: {args.n_layer} layers, {args.n_head} heads, d_model {args.d_model}, context {args.block_size}, "
        f"{n_params / 1e6:.2f}M parameters")
    opt = make_optimizer(model, args)
    history = {"step": [], "train": [], "val": []}
    start = 0
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        history, start = state["history"], state["step"]
        torch.manual_seed(args.seed + start)  # fresh batches after a resume, still reproducible
        say(f"loaded {ckpt_path} (trained for {start} steps)")

    # A fixed set of validation batches, so every evaluation measures the same thing.
    g_val = torch.Generator().manual_seed(0)
    val_batches = [val.get_batch(args.batch_size, generator=g_val) for _ in range(args.eval_batches)]

    def checkpoint(step):
        os.makedirs(args.out, exist_ok=True)
        config = {k: getattr(args, k) for k in ("block_size", "n_layer", "n_head", "d_model")}
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step,
                    "history": history, "config": config, "vocab": "".join(tok.itos)}, ckpt_path)

    t0, running = time.time(), None
    interactive = sys.stdout.isatty()
    step = start
    for step in range(start, 0 if args.sample_only else args.steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, args)
        x, y = train.get_batch(args.batch_size)
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        opt.step()
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        last = step == args.steps - 1
        if (step + 1) % args.eval_every == 0 or last:
            val_loss = evaluate(model, val_batches)
            history["step"].append(step + 1)
            history["train"].append(running)
            history["val"].append(val_loss)
            elapsed = time.time() - t0
            say(f"step {step + 1:5d}/{args.steps}  train {running:.4f}  val {val_loss:.4f}  "
                f"lr {lr_at(step, args):.2e}  {elapsed / (step + 1 - start):.3f} s/step  {elapsed / 60:.1f} min")
            checkpoint(step + 1)
        elif not args.quiet and (step + 1) % 10 == 0 and (interactive or (step + 1) % 50 == 0):
            # On a terminal the line rewrites itself; in a log file it is kept every 50 steps.
            print(f"step {step + 1:5d}  loss {running:.4f}", end="\r" if interactive else "\n", flush=True)

    if not args.sample_only:
        say(f"trained steps {start}-{args.steps} in {(time.time() - t0) / 60:.1f} min")
    model.eval()
    g = torch.Generator().manual_seed(args.seed)
    prompt = torch.tensor([tok.encode(args.prompt)], dtype=torch.long)
    out = model.generate(prompt, args.sample_len, temperature=args.temperature, top_k=args.top_k, generator=g)
    sample = tok.decode(out[0])
    say(f"\n--- sample (temperature {args.temperature}, top-k {args.top_k}) ---\n{sample}\n---")
    return {"history": history, "sample": sample, "vocab": tok.itos, "checkpoint": ckpt_path,
            "params": n_params, "seconds": time.time() - t0}


if __name__ == "__main__":
    main()
