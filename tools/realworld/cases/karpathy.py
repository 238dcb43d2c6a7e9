"""Andrej Karpathy's teaching code: nanoGPT, minGPT and makemore, among the most-read PyTorch programs."""
import types

from corpus import Job, case, definitions, import_file, import_package_module
from ._util import DEFS_ONLY, NO_DROPOUT, SYNTHETIC, no_dropout

TOKENS = "random token batches (4 x 16) instead of a text corpus"


def _lm_batches(rng, vocab, batch=4, block=16, n=2):
    return [(rng.integers(0, vocab, (batch, block)), rng.integers(0, vocab, (batch, block))) for _ in range(n)]


@case("nanoGPT", "karpathy/nanoGPT", ["model.py"],
      ["GPTConfig(n_layer=2, n_head=2, n_embd=32, block_size=16, vocab_size=65, dropout=0)", TOKENS,
       "its configure_optimizers (AdamW, weight decay 0.1, lr 1e-3, betas (0.9, 0.95))"])
def nanogpt(torch, src, rng):
    m = import_file(src, "model.py", "nanogpt_model")
    cfg = m.GPTConfig(block_size=16, vocab_size=65, n_layer=2, n_head=2, n_embd=32, dropout=0.0, bias=True)
    net = m.GPT(cfg)
    opt = net.configure_optimizers(0.1, 1e-3, (0.9, 0.95), "cpu")
    return Job(net, opt, lambda b: net(b[0], b[1])[1], _lm_batches(rng, 65))


@case("nanoGPT_nobias", "karpathy/nanoGPT", ["model.py"],
      ["GPTConfig(n_layer=2, n_head=4, n_embd=32, block_size=16, vocab_size=50, dropout=0, bias=False)", TOKENS])
def nanogpt_nobias(torch, src, rng):
    m = import_file(src, "model.py", "nanogpt_model")
    cfg = m.GPTConfig(block_size=16, vocab_size=50, n_layer=2, n_head=4, n_embd=32, dropout=0.0, bias=False)
    net = m.GPT(cfg)
    opt = net.configure_optimizers(0.1, 1e-3, (0.9, 0.95), "cpu")
    return Job(net, opt, lambda b: net(b[0], b[1])[1], _lm_batches(rng, 50))


@case("minGPT", "karpathy/minGPT", ["mingpt/__init__.py", "mingpt/model.py", "mingpt/utils.py"],
      ["model_type None, n_layer=2, n_head=2, n_embd=32, vocab 50, block 16", NO_DROPOUT, TOKENS,
       "its configure_optimizers with the Trainer's default config"])
def mingpt(torch, src, rng):
    model = import_package_module(src, "", "mingpt.model")
    trainer_cfg = types.SimpleNamespace(weight_decay=0.1, learning_rate=5e-4, betas=(0.9, 0.95))
    C = model.GPT.get_default_config()
    C.model_type, C.n_layer, C.n_head, C.n_embd = None, 2, 2, 32
    C.vocab_size, C.block_size = 50, 16
    C.embd_pdrop = C.resid_pdrop = C.attn_pdrop = 0.0
    net = model.GPT(C)
    opt = net.configure_optimizers(trainer_cfg)
    return Job(net, opt, lambda b: net(b[0], b[1])[1], _lm_batches(rng, 50))


def _makemore(kind):
    def build(torch, src, rng):
        m = definitions(src, "makemore.py", drop_imports=())
        cfg = m.ModelConfig(vocab_size=27, block_size=16, n_layer=2, n_head=2, n_embd=32, n_embd2=32)
        net = {"transformer": lambda: m.Transformer(cfg), "bigram": lambda: m.Bigram(cfg),
               "mlp": lambda: m.MLP(cfg), "rnn": lambda: m.RNN(cfg, cell_type="rnn"),
               "gru": lambda: m.RNN(cfg, cell_type="gru"), "bow": lambda: m.BoW(cfg)}[kind]()
        opt = torch.optim.AdamW(net.parameters(), lr=5e-4, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
        return Job(net, opt, lambda b: net(b[0], b[1])[1], _lm_batches(rng, 27))
    return build


for _kind in ("transformer", "bigram", "mlp", "rnn", "gru", "bow"):
    case(f"makemore_{_kind}", "karpathy/makemore", ["makemore.py"],
         [DEFS_ONLY, f"--type {_kind}, n_layer 2, n_head 2, n_embd = n_embd2 = 32, vocab 27, block 16",
          "random names-like token batches (4 x 16) instead of names.txt",
          "the script's AdamW (lr 5e-4, weight decay 0.01, betas (0.9, 0.99), eps 1e-8)"])(_makemore(_kind))
