"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (frequent classes in a head softmax, the
rest in clusters reached through one head entry each, their projections shrinking by div_value), with
PyTorch's parameter layout so a torch state_dict loads as is."""
import itertools
from collections import namedtuple

import numpy as np

from .. import functional as F
from ...ops.movement import cat
from ...tensor import Tensor
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, device=device, dtype=dtype),
                                        Linear(hsz, osz, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        """(output, loss): each row's log-probability of its target, and their negated mean."""
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.shape!r}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.shape!r}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = targ_dim > 0
        input = input_ if batched else input_.unsqueeze(0)
        t = target_._data.reshape(-1).astype(np.int64)
        N = t.shape[0]
        if N and (t.min() < 0 or t.max() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{t.min()}, {t.max()}] were found. ")
        gather_inds = t.copy()
        output = None
        dt = input._data.dtype
        for i, (low, high) in enumerate(itertools.pairwise(self.cutoffs)):
            rows = np.nonzero((t >= low) & (t < high))[0]
            if rows.size == 0:
                continue
            gather_inds[rows] = self.shortlist_size + i
            cluster_logprob = F.log_softmax(self.tail[i](input[Tensor._wrap(rows)]), dim=1)
            local = cluster_logprob.gather(1, Tensor._wrap((t[rows] - low)[:, None])).squeeze(1)
            place = np.zeros((N, rows.size), dt)  # puts each cluster row's value back at its batch position
            place[rows, np.arange(rows.size)] = 1
            part = Tensor._wrap(place) @ local
            output = part if output is None else output + part
        head_logprob = F.log_softmax(self.head(input), dim=1)
        picked = head_logprob.gather(1, Tensor._wrap(gather_inds[:, None])).squeeze(1)
        output = picked if output is None else picked + output
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of all n_classes classes, (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row (log_prob(input).argmax(1), computed for the rows whose head
        points to a cluster only)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        outside = output._data >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return self._get_full_log_prob(input, head_output).argmax(dim=1)
        rows = Tensor._wrap(np.nonzero(outside)[0])
        best = self._get_full_log_prob(input[rows], head_output[rows]).argmax(dim=1)
        result = output._data.copy()
        result[outside] = best._data
        return Tensor._wrap(result)
