"""A recurrent language model on tiny-shakespeare, written the way PyTorch's word_language_model example is:
an embedding, a multi-layer LSTM (or GRU / RNN) with dropout between layers, a decoder that can share its
weights with the embedding, truncated backpropagation through time with the hidden state carried from one
segment to the next (detached), gradient clipping and a learning rate that drops when validation stalls.
It models characters (the file has 65 symbols), so perplexity is per character.

    python examples/word_language_model.py                # the full run (about 10 min on 2 CPU cores)
    python examples/word_language_model.py --model GRU    # the same with GRU cells
    python examples/word_language_model.py --smoke        # a few steps of a tiny model (CI)

The text is looked for in --data-dir, then $NPGRAD_DATA, then ~/.cache/npgrad (downloaded if missing).
"""
import argparse
import math
import time

import npgrad as torch
import npgrad.nn as nn
import npgrad.nn.functional as F
from npgrad.datasets import find_tiny_shakespeare


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.2, tie_weights=False):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout if nlayers > 1 else 0.0)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))           # (seq, batch, ninp): the RNN is sequence-first
        output, hidden = self.rnn(emb, hidden)
        return F.log_softmax(self.decoder(self.drop(output)), dim=-1), hidden

    def init_hidden(self, bsz):
        h = torch.zeros(self.nlayers, bsz, self.nhid)
        return (h, h.clone()) if self.rnn_type == "LSTM" else h


def repackage_hidden(h):
    """The hidden state's values without its history: backpropagation stops at the segment boundary."""
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    """The stream cut into ``bsz`` columns read in parallel: (length // bsz, bsz)."""
    n = data.size(0) // bsz
    return data[: n * bsz].view(bsz, n).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def evaluate(model, source, args):
    model.eval()
    total, count = 0.0, 0
    hidden = model.init_hidden(source.size(1))
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, args.bptt):
            data, targets = get_batch(source, i, args.bptt)
            output, hidden = model(data, hidden)
            total += F.nll_loss(output.view(-1, output.size(-1)), targets, reduction="sum").item()
            count += targets.numel()
    return total / count


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None)
    p.add_argument("--model", default="LSTM", choices=["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
    p.add_argument("--emsize", type=int, default=128)
    p.add_argument("--nhid", type=int, default=256)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.002)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--steps", type=int, default=1500, help="training segments (bptt x batch characters each)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--bptt", type=int, default=64)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--tied", action="store_true", help="share the embedding and decoder weights (emsize = nhid)")
    p.add_argument("--eval-every", type=int, default=250)
    p.add_argument("--val-chars", type=int, default=40000, help="how much of the validation split to score")
    p.add_argument("--seed", type=int, default=1111)
    p.add_argument("--smoke", action="store_true", help="tiny model, a few steps: checks the script runs")
    args = p.parse_args(argv)
    if args.smoke:  # a tiny model; options given on the command line still win
        small = dict(emsize=16, nhid=32, nlayers=2, steps=6, batch_size=4, bptt=16, eval_every=3, val_chars=400)
        for name, value in small.items():
            if getattr(args, name) == p.get_default(name):
                setattr(args, name, value)
    return args


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    text = open(find_tiny_shakespeare(args.data_dir), encoding="utf-8").read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    split = int(0.9 * len(ids))
    train_data = batchify(ids[:split], args.batch_size)
    val_data = batchify(ids[split:split + args.val_chars], 8)
    rnn_type = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(args.model, args.model)
    model = RNNModel(rnn_type, len(chars), args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)
    if args.model == "RNN_RELU":
        model.rnn = nn.RNN(args.emsize, args.nhid, args.nlayers, nonlinearity="relu",
                           dropout=args.dropout if args.nlayers > 1 else 0.0)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    print(f"{args.model}: {args.nlayers} layers, hidden {args.nhid}, {sum(p.numel() for p in model.parameters())} "
          f"parameters; {len(chars)} characters; batches of {args.batch_size} x {args.bptt}", flush=True)

    t0, step, running, best = time.time(), 0, None, float("inf")
    while step < args.steps:
        hidden = model.init_hidden(args.batch_size)
        for i in range(0, train_data.size(0) - 1, args.bptt):
            model.train()
            data, targets = get_batch(train_data, i, args.bptt)
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = F.nll_loss(output.view(-1, len(chars)), targets)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            opt.step()
            running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
            step += 1
            if step % args.eval_every == 0 or step == args.steps:
                val_loss = evaluate(model, val_data, args)
                sched.step(val_loss)
                best = min(best, val_loss)
                print(f"step {step:5d}/{args.steps}  train {running:.3f}  val {val_loss:.3f}  "
                      f"val ppl {math.exp(val_loss):.2f}  ({time.time() - t0:.0f} s)", flush=True)
            if step == args.steps:
                break
    ms = 1000 * (time.time() - t0) / args.steps
    print(f"best validation perplexity per character {math.exp(best):.2f} (loss {best:.3f} nats) "
          f"after {args.steps} steps, {ms:.0f} ms per step including evaluation", flush=True)
    return best


if __name__ == "__main__":
    main()
