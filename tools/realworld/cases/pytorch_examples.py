"""pytorch/examples: the official example programs (the first code most users run)."""
import numpy as np

from corpus import Job, case, definitions, import_file
from ._util import DEFS_ONLY, LOOP, NO_DROPOUT, SYNTHETIC, images, labels, no_dropout, replay_normal_draws

REPO = "pytorch/examples"
VISION_DATA = "its torchvision import (used only to load the data set) is left out"


def _classifier(torch, net, lr, batches, optimizer="adadelta"):
    opt = (torch.optim.Adadelta(net.parameters(), lr=lr) if optimizer == "adadelta"
           else torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9))
    return Job(net, opt, lambda b: torch.nn.functional.nll_loss(net(b[0]), b[1]), batches,
               scheduler=torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7))


@case("examples/mnist", REPO, ["mnist/main.py"], [DEFS_ONLY, VISION_DATA, SYNTHETIC, NO_DROPOUT])
def mnist(torch, src, rng):
    m = definitions(src, "mnist/main.py", drop_imports=("torchvision",))
    torch.manual_seed(1)
    net = m.Net()
    no_dropout(torch, net)
    return _classifier(torch, net, 1.0, [(images(rng, 16, 1, 28, 28), labels(rng, 16, 10)) for _ in range(2)])


@case("examples/mnist_rnn", REPO, ["mnist_rnn/main.py"], [DEFS_ONLY, VISION_DATA, SYNTHETIC, NO_DROPOUT])
def mnist_rnn(torch, src, rng):
    m = definitions(src, "mnist_rnn/main.py", drop_imports=("torchvision",))
    net = m.Net()
    no_dropout(torch, net)
    return _classifier(torch, net, 0.1, [(images(rng, 16, 1, 28, 28), labels(rng, 16, 10)) for _ in range(2)])


def _language_model(torch, net, rng, ntoken, recurrent):
    seq, batch = 12, 4
    data = [(rng.integers(0, ntoken, (seq, batch)), rng.integers(0, ntoken, seq * batch)) for _ in range(2)]
    crit = torch.nn.NLLLoss()
    opt = torch.optim.SGD(net.parameters(), lr=5.0)

    def loss(b):
        if recurrent:
            out, _ = net(b[0], net.init_hidden(batch))
        else:
            out = net(b[0]).view(-1, ntoken)
        return crit(out, b[1])
    job = Job(net, opt, loss, data)
    return job


for _kind in ("LSTM", "GRU", "RNN_TANH", "RNN_RELU"):
    def _build(torch, src, rng, kind=_kind):
        m = import_file(src, "word_language_model/model.py", "wlm_model")
        net = m.RNNModel(kind, 50, 16, 16, 2, dropout=0.0, tie_weights=True)
        return _language_model(torch, net, rng, 50, True)
    case(f"examples/word_lm_{_kind.lower()}", REPO, ["word_language_model/model.py"],
         ["vocabulary 50, emsize = nhid = 16, 2 layers, tied weights (the script's --tied), dropout 0",
          SYNTHETIC, "gradient clipping of the script's loop left out"])(_build)


@case("examples/word_lm_transformer", REPO, ["word_language_model/model.py"],
      ["vocabulary 50, d_model 16, 2 heads, ffn 32, 2 layers, dropout 0", SYNTHETIC])
def word_lm_transformer(torch, src, rng):
    m = import_file(src, "word_language_model/model.py", "wlm_model")
    net = m.TransformerModel(50, 16, 2, 32, 2, dropout=0.0)
    no_dropout(torch, net)
    return _language_model(torch, net, rng, 50, False)


@case("examples/time_sequence_prediction", REPO, ["time_sequence_prediction/train.py"],
      [DEFS_ONLY, "8 sine waves of length 40 (the script's generate_sine_wave.py makes 100 of 1000)",
       "Adam lr 1e-2 in place of the script's L-BFGS closure (L-BFGS has its own case)"])
def time_sequence(torch, src, rng):
    m = definitions(src, "time_sequence_prediction/train.py")
    net = m.Sequence().double()
    x = np.sin(np.arange(40)[None, :] / 4.0 + rng.uniform(0, 6, (8, 1)))
    crit = torch.nn.MSELoss()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    return Job(net, opt, lambda b: crit(net(b[0][:, :-1]), b[0][:, 1:]), [(x,)])


@case("examples/time_sequence_lbfgs", REPO, ["time_sequence_prediction/train.py"],
      [DEFS_ONLY, "8 sine waves of length 40", LOOP])
def time_sequence_lbfgs(torch, src, rng):
    m = definitions(src, "time_sequence_prediction/train.py")
    net = m.Sequence().double()
    x = np.sin(np.arange(40)[None, :] / 4.0 + rng.uniform(0, 6, (8, 1)))
    crit = torch.nn.MSELoss()
    opt = torch.optim.LBFGS(net.parameters(), lr=0.8)

    def step(b):
        def closure():
            opt.zero_grad()
            loss = crit(net(b[0][:, :-1]), b[0][:, 1:])
            loss.backward()
            return loss
        return opt.step(closure)
    return Job(net, opt, lambda b: crit(net(b[0][:, :-1]), b[0][:, 1:]), [(x,)], step=step,
               evaluate=lambda b: crit(net(b[0][:, :-1]), b[0][:, 1:]))


@case("examples/vae", REPO, ["vae/main.py"],
      [DEFS_ONLY, VISION_DATA, SYNTHETIC, "torch.randn_like replayed from one NumPy generator"])
def vae(torch, src, rng):
    m = definitions(src, "vae/main.py", drop_imports=("torchvision",))
    replay_normal_draws(torch)
    net = m.VAE()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = rng.uniform(0, 1, (16, 1, 28, 28)).astype(np.float32)
    return Job(net, opt, lambda b: _vae_loss(m, net, b[0]), [(x,)])


@case("examples/dcgan", REPO, ["dcgan/main.py"],
      [DEFS_ONLY, VISION_DATA, "nz 8, ngf = ndf = 8, 64x64 synthetic images, batch 4", LOOP,
       "the noise is drawn from a NumPy generator"])
def dcgan(torch, src, rng):
    m = definitions(src, "dcgan/main.py", drop_imports=("torchvision",),
                    namespace=dict(nz=8, ngf=8, ndf=8, nc=3))
    nn = torch.nn
    netG, netD = m.Generator(1), m.Discriminator(1)
    netG.apply(m.weights_init)
    netD.apply(m.weights_init)
    crit = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real = rng.uniform(-1, 1, (4, 3, 64, 64)).astype(np.float32)
    noise = rng.standard_normal((4, 8, 1, 1)).astype(np.float32)

    def step(b):
        x, z = b
        netD.zero_grad()
        label = torch.full((x.size(0),), 1, dtype=x.dtype)
        errD_real = crit(netD(x), label)
        errD_real.backward()
        fake = netG(z)
        label.fill_(0)
        errD_fake = crit(netD(fake.detach()), label)
        errD_fake.backward()
        optD.step()
        netG.zero_grad()
        label.fill_(1)
        errG = crit(netD(fake), label)
        errG.backward()
        optG.step()
        return errD_real + errD_fake + errG

    def evaluate(b):
        x, z = b
        return crit(netD(x), torch.ones(x.size(0))) + crit(netD(netG(z)), torch.zeros(x.size(0)))
    return Job(netG, None, None, [(real, noise)], extra_modules=[netD], step=step, evaluate=evaluate)


@case("examples/regression", REPO, ["regression/main.py"],
      [DEFS_ONLY, "the script's manual SGD update (param.data.add_) on batches drawn by NumPy", LOOP])
def regression(torch, src, rng):
    m = definitions(src, "regression/main.py", keep_assignments=("POLY_DEGREE", "W_target", "b_target"))
    m.W_target = torch.from_numpy(rng.standard_normal((4, 1)).astype(np.float32) * 5)
    m.b_target = torch.from_numpy(rng.standard_normal(1).astype(np.float32) * 5)
    fc = torch.nn.Linear(4, 1)
    F = torch.nn.functional
    xs = [rng.standard_normal(32).astype(np.float32) for _ in range(3)]

    def loss(b):
        x = m.make_features(b[0])
        return F.smooth_l1_loss(fc(x), m.f(x))

    def step(b):
        fc.zero_grad()
        out = loss(b)
        out.backward()
        for p in fc.parameters():
            p.data.add_(-0.1 * p.grad)
        return out
    return Job(fc, None, loss, [(x,) for x in xs], step=step, evaluate=loss)


@case("examples/actor_critic", REPO, ["reinforcement_learning/actor_critic.py"],
      [DEFS_ONLY, "a recorded episode of 20 synthetic CartPole states and rewards (no gymnasium); "
       "actions replayed from a NumPy generator", LOOP])
def actor_critic(torch, src, rng):
    m = definitions(src, "reinforcement_learning/actor_critic.py", drop_imports=("gymnasium",))
    net = m.Policy()
    opt = torch.optim.Adam(net.parameters(), lr=3e-2)
    states = rng.standard_normal((20, 4)).astype(np.float32)
    actions = rng.integers(0, 2, 20)
    rewards = np.ones(20, dtype=np.float32)
    F = torch.nn.functional
    Categorical = torch.distributions.Categorical

    def loss(b):
        s, a, r = b
        probs, values = net(s)
        log_prob = Categorical(probs).log_prob(a)
        R, returns = 0.0, []
        for reward in reversed(r.tolist()):
            R = reward + 0.99 * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-6)
        adv = returns - values.squeeze(1).detach()
        return -(log_prob * adv).sum() + F.smooth_l1_loss(values.squeeze(1), returns, reduction="sum")
    return Job(net, opt, loss, [(states, actions, rewards)])


def _vae_loss(m, net, x):
    recon, mu, logvar = net(x)
    return m.loss_function(recon, x, mu, logvar)
