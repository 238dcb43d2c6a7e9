"""Graph networks (sparse adjacency matrices), LoRA, and the rest of pytorch/examples' models."""
import os
import tempfile
import types

import numpy as np

from corpus import Job, case, definitions, import_file, import_package_module
from ._util import DEFS_ONLY, NO_DROPOUT, SYNTHETIC, images, labels, no_dropout

CORA = ("a synthetic Cora-format data set (40 papers, 24 binary features, 3 classes, 80 citations) written to a "
        "temporary folder and read by the program's own loader")


def _write_cora(rng, folder, prefix="cora"):
    n, f = 40, 24
    ids = rng.choice(10_000, n, replace=False)
    feats = (rng.uniform(size=(n, f)) < 0.3).astype(int)
    feats[:, 0] = 1  # no paper without words (the loaders divide by the row sum)
    names = np.array(["Theory", "Neural_Networks", "Rule_Learning"])[rng.integers(0, 3, n)]
    with open(os.path.join(folder, f"{prefix}.content"), "w") as fh:
        for i in range(n):
            fh.write("\t".join([str(ids[i]), *map(str, feats[i]), names[i]]) + "\n")
    pairs = {(int(ids[a]), int(ids[b])) for a, b in rng.integers(0, n, (80, 2)) if a != b}
    with open(os.path.join(folder, f"{prefix}.cites"), "w") as fh:
        fh.writelines(f"{a}\t{b}\n" for a, b in sorted(pairs))
    return folder


def _examples_graph(torch, src, rng, path, make):
    m = definitions(src, path)
    folder = _write_cora(rng, tempfile.mkdtemp(prefix="cora-"))
    features, target, adj = m.load_cora(folder)
    net = make(m, features.shape[1])
    no_dropout(torch, net)
    opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=5e-4)
    crit = torch.nn.NLLLoss()
    return Job(net, opt, lambda b: crit(net(features, adj), target), [()])


@case("examples/gcn", "pytorch/examples", ["gcn/main.py"], [DEFS_ONLY, CORA, NO_DROPOUT, "all nodes in the loss"])
def examples_gcn(torch, src, rng):
    return _examples_graph(torch, src, rng, "gcn/main.py", lambda m, nf: m.GCN(nf, 16, 3, dropout_p=0.0))


@case("examples/gat", "pytorch/examples", ["gat/main.py"], [DEFS_ONLY, CORA, NO_DROPOUT, "all nodes in the loss"])
def examples_gat(torch, src, rng):
    return _examples_graph(torch, src, rng, "gat/main.py",
                           lambda m, nf: m.GAT(nf, 8, 2, 3, concat=False, dropout=0.0))


@case("pygcn", "tkipf/pygcn", ["pygcn"], [CORA, "dropout 0", "all nodes in the loss"], needs=("scipy",))
def pygcn(torch, src, rng):
    models = import_package_module(src, "", "pygcn.models")
    utils = import_package_module(src, "", "pygcn.utils")
    folder = _write_cora(rng, tempfile.mkdtemp(prefix="cora-"))
    adj, features, target, *_ = utils.load_data(path=folder + os.sep, dataset="cora")
    net = models.GCN(nfeat=features.shape[1], nhid=16, nclass=int(target.max()) + 1, dropout=0.0)
    opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=5e-4)
    F = torch.nn.functional
    return Job(net, opt, lambda b: F.nll_loss(net(features, adj), target), [()])


@case("loralib", "microsoft/LoRA", ["loralib"],
      ["an MLP and an embedding built from loralib's Linear, MergedLinear and Embedding (r=4), "
       "mark_only_lora_as_trainable, lora_state_dict; lora_B initialised randomly so its gradient is not trivially 0"])
def loralib(torch, src, rng):
    lora = import_package_module(src, "", "loralib")
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lora.Embedding(30, 16, r=4)
            self.qkv = lora.MergedLinear(16, 48, r=4, enable_lora=[True, False, True])
            self.fc = lora.Linear(48, 10, r=4, lora_alpha=8)

        def forward(self, x):
            return self.fc(torch.relu(self.qkv(self.emb(x)))).mean(1)
    net = Net()
    for name, p in net.named_parameters():
        if "lora_B" in name:
            with torch.no_grad():
                p.normal_(0, 0.1)
    lora.mark_only_lora_as_trainable(net)
    assert set(lora.lora_state_dict(net)) == {k for k in net.state_dict() if "lora_" in k}
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-2)
    crit = nn.CrossEntropyLoss()
    return Job(net, opt, lambda b: crit(net(b[0]), b[1]), [(rng.integers(0, 30, (4, 6)), labels(rng, 4, 10))])


@case("examples/super_resolution", "pytorch/examples", ["super_resolution/model.py"],
      ["upscale factor 3, synthetic 2 x 1 x 16 x 16 inputs and 48 x 48 targets", "Adam lr 1e-3 and MSELoss (main.py's)"])
def super_resolution(torch, src, rng):
    m = import_file(src, "super_resolution/model.py", "sr_model")
    net = m.Net(upscale_factor=3)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    crit = torch.nn.MSELoss()
    x, y = images(rng, 2, 1, 16, 16), images(rng, 2, 1, 48, 48)
    return Job(net, opt, lambda b: crit(net(b[0]), b[1]), [(x, y)])


@case("examples/fast_neural_style", "pytorch/examples", ["fast_neural_style/neural_style/transformer_net.py"],
      ["the TransformerNet on a synthetic 1 x 3 x 32 x 32 image, an MSE content loss against a random target "
       "(the script's VGG16 perceptual loss needs torchvision's weights)", "Adam lr 1e-3"])
def fast_neural_style(torch, src, rng):
    m = import_file(src, "fast_neural_style/neural_style/transformer_net.py", "fns_transformer_net")
    net = m.TransformerNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    crit = torch.nn.MSELoss()
    x = rng.uniform(0, 255, (1, 3, 32, 32)).astype(np.float32)
    return Job(net, opt, lambda b: crit(net(b[0]), b[0]), [(x,)])


@case("examples/language_translation", "pytorch/examples",
      ["language_translation/src/model.py", "language_translation/src/data.py"],
      ["Translator(2, 2, embed 32, 4 heads, vocabularies 40/45, ffn 64, dropout 0)",
       "create_mask / generate_square_subsequent_mask from the program's src/data.py (its torchtext imports left out)",
       "random padded token batches (seq 7 x batch 3, pad id 1) instead of Multi30k", "Adam lr 1e-4, betas (0.9, 0.98), "
       "eps 1e-9 and CrossEntropyLoss(ignore_index=pad) as main.py"])
def language_translation(torch, src, rng):
    model = import_file(src, "language_translation/src/model.py", "lt_model")
    data = definitions(src, "language_translation/src/data.py", drop_imports=("torchtext",))
    net = model.Translator(2, 2, 32, 4, 40, 45, 64, 0.0)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    crit = torch.nn.CrossEntropyLoss(ignore_index=1)
    srcb, tgt = rng.integers(2, 40, (7, 3)), rng.integers(2, 45, (8, 3))
    srcb[5:, 0] = 1
    tgt[6:, 1] = 1

    def loss(b):
        s, t = b
        t_in, t_out = t[:-1, :], t[1:, :]
        masks = data.create_mask(s, t_in, 1, "cpu")
        logits = net(s, t_in, *masks[:2], masks[2], masks[3], masks[2])
        return crit(logits.reshape(-1, logits.shape[-1]), t_out.reshape(-1))
    return Job(net, opt, loss, [(srcb, tgt)])


@case("examples/snli", "pytorch/examples", ["legacy/snli/model.py"],
      ["config: vocabulary 50, d_embed 16, d_proj 16, projection, d_hidden 16, 2 layers, birnn, dp_ratio 0, "
       "d_out 3", "random premise/hypothesis batches (seq 6 x batch 4)", "Adam lr 1e-3"])
def snli(torch, src, rng):
    m = import_file(src, "legacy/snli/model.py", "snli_model")
    cfg = types.SimpleNamespace(n_embed=50, d_embed=16, d_proj=16, projection=True, d_hidden=16, n_layers=2,
                                dp_ratio=0.0, birnn=True, d_out=3, fix_emb=False, n_cells=4)
    net = m.SNLIClassifier(cfg)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    crit = torch.nn.CrossEntropyLoss()

    def loss(b):
        return crit(net(types.SimpleNamespace(premise=b[0], hypothesis=b[1])), b[2])
    return Job(net, opt, loss, [(rng.integers(0, 50, (6, 4)), rng.integers(0, 50, (7, 4)), labels(rng, 4, 3))])


@case("examples/mnist_forward_forward", "pytorch/examples", ["mnist_forward_forward/main.py"],
      [DEFS_ONLY, "its torchvision import is left out", "Net([784, 50, 50]) with args lr 0.03, threshold 2, 3 epochs per "
       "layer (the script's 1000)", "synthetic positive/negative images built with its overlay_y_on_x"])
def forward_forward(torch, src, rng):
    args = types.SimpleNamespace(lr=0.03, threshold=2.0, epochs=3, log_interval=10**9)
    m = definitions(src, "mnist_forward_forward/main.py", drop_imports=("torchvision",),
                    namespace=dict(args=args, device="cpu"))
    net = m.Net([784, 50, 50])
    x = rng.uniform(0, 1, (16, 784)).astype(np.float32)
    y = labels(rng, 16, 10)

    def goodness(b):
        xp = m.overlay_y_on_x(b[0], b[1])
        h, total = xp, 0
        for layer in net.layers:
            h = layer(h)
            total = total + h.pow(2).mean()
        return total

    def step(b):
        xp = m.overlay_y_on_x(b[0], b[1])
        xn = m.overlay_y_on_x(b[0], (b[1] + 1) % 10)
        net.train(xp, xn)
        return goodness(b)
    return Job(net, None, goodness, [(x, y)], extra_modules=net.layers, step=step, evaluate=goodness)
