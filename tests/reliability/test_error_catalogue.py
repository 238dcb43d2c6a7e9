"""The error catalogue: the user mistakes npgrad reports, and its message for each (docs/errors.md).

``CATALOGUE`` below is the single source: every row is run here (the code must raise exactly that
exception and message in npgrad, and, where the row says so, the same exception and message in
PyTorch), and docs/errors.md is generated from it, so the two cannot drift:

    python tests/reliability/test_error_catalogue.py --write    # regenerate docs/errors.md

``test_doc_matches_catalogue`` fails when the file differs from what the list generates.
"""
import dataclasses
import os
import sys
import warnings

import pytest

import npgrad
import npgrad.nn  # noqa: F401
import npgrad.utils.data  # noqa: F401

try:
    import torch
    import torch.utils.data  # noqa: F401
    HAS_TORCH = True
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
    HAS_TORCH = False

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "errors.md")


@dataclasses.dataclass(frozen=True)
class Mistake:
    category: str
    mistake: str
    code: str               # run with `torch` bound to npgrad (and to PyTorch for the comparison)
    error: type
    message: str            # npgrad's message, exactly
    as_pytorch: bool = True  # PyTorch raises the same exception with the same message

    def __str__(self):
        return self.mistake


M = Mistake
_BROADCAST = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}"

CATALOGUE = [
    # -- shapes in elementwise operators --------------------------------------------------------------------
    M("Shapes", "`+` on shapes that do not broadcast", "torch.ones(2, 3) + torch.ones(2, 4)",
      RuntimeError, _BROADCAST.format(3, 4, 1)),
    M("Shapes", "`-` on shapes that do not broadcast", "torch.ones(3) - torch.ones(4)",
      RuntimeError, _BROADCAST.format(3, 4, 0)),
    M("Shapes", "`*` on shapes that do not broadcast", "torch.ones(2, 3) * torch.ones(3, 2)",
      RuntimeError, _BROADCAST.format(3, 2, 1)),
    M("Shapes", "`/` on shapes that do not broadcast", "torch.ones(5) / torch.ones(2, 3)",
      RuntimeError, _BROADCAST.format(5, 3, 1)),
    M("Shapes", "`**` on shapes that do not broadcast", "torch.ones(2) ** torch.ones(3)",
      RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Shapes", "`%` on shapes that do not broadcast", "torch.ones(2) % torch.ones(3)",
      RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Shapes", "`torch.maximum` on shapes that do not broadcast", "torch.maximum(torch.ones(2), torch.ones(3))",
      RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Shapes", "`torch.atan2` on shapes that do not broadcast", "torch.atan2(torch.ones(2), torch.ones(3))",
      RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Shapes", "comparison on shapes that do not broadcast", "torch.ones(2, 1, 3) < torch.ones(4, 2)",
      RuntimeError, _BROADCAST.format(3, 2, 2)),
    M("Shapes", "`torch.logical_and` on shapes that do not broadcast",
      "torch.logical_and(torch.ones(2), torch.ones(3))", RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Shapes", "`torch.where` branches that do not broadcast",
      "torch.where(torch.ones(2) > 0, torch.ones(3), torch.ones(2))", RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Shapes", "in-place operator whose result would need a bigger tensor", "x = torch.ones(3); x += torch.ones(2, 3)",
      RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    M("Shapes", "`reshape` to a different number of elements", "torch.ones(12).reshape(4, 4)",
      RuntimeError, "shape '[4, 4]' is invalid for input of size 12"),
    M("Shapes", "`view` of a non-contiguous tensor", "torch.ones(2, 3).t().view(6)", RuntimeError,
      "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
      "contiguous subspaces). Use .reshape(...) instead."),
    M("Shapes", "`expand` of a dimension that is not 1", "torch.ones(2, 3).expand(4, 3)", RuntimeError,
      "The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0.  "
      "Target sizes: [4, 3].  Tensor sizes: [2, 3]"),
    # -- linear algebra and layers -----------------------------------------------------------------------------
    M("Linear algebra", "`@` with inner sizes that differ", "torch.ones(2, 3) @ torch.ones(4, 5)",
      RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    M("Linear algebra", "`@` of vectors of different lengths", "torch.ones(3) @ torch.ones(4)", RuntimeError,
      "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 "
      "and 4 elements respectively"),
    M("Linear algebra", "batched `@` with batch sizes that do not broadcast",
      "torch.ones(2, 3, 4) @ torch.ones(3, 4, 5)", RuntimeError, _BROADCAST.format(2, 3, 0)),
    M("Linear algebra", "`@` of float32 with float64", "torch.ones(2, 3) @ torch.ones(3, 2, dtype=torch.float64)",
      RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != double"),
    M("Linear algebra", "`torch.bmm` of 2-d tensors", "torch.bmm(torch.ones(2, 3), torch.ones(3, 2))",
      RuntimeError, "batch1 must be a 3D tensor"),
    M("Layers", "`nn.Linear` given the wrong number of input features", "torch.nn.Linear(4, 3)(torch.ones(2, 5))",
      RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x5 and 4x3)"),
    M("Layers", "`nn.Conv2d` given the wrong number of input channels",
      "torch.nn.Conv2d(3, 8, 3)(torch.ones(1, 4, 8, 8))", RuntimeError,
      "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 8, 8] to have 3 channels, but got 4 "
      "channels instead"),
    M("Layers", "`nn.Conv2d` given a 2-d input", "torch.nn.Conv2d(3, 8, 3)(torch.ones(3, 3))", RuntimeError,
      "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 3]"),
    M("Layers", "`nn.Embedding` index out of range", "torch.nn.Embedding(3, 2)(torch.tensor([3]))", IndexError,
      "index out of range in self"),
    M("Layers", "`nn.BatchNorm1d` training on a batch of one", "torch.nn.BatchNorm1d(3)(torch.ones(1, 3))",
      ValueError, "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"),
    # -- concatenation ------------------------------------------------------------------------------------------------
    M("Concatenation", "`torch.cat` of tensors whose other dims differ",
      "torch.cat([torch.ones(2, 3), torch.ones(2, 4)])", RuntimeError,
      "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in "
      "the list."),
    M("Concatenation", "`torch.cat` of tensors with different numbers of dims",
      "torch.cat([torch.ones(2, 3), torch.ones(3)])", RuntimeError,
      "Tensors must have same number of dimensions: got 2 and 1"),
    M("Concatenation", "`torch.stack` of tensors of different shapes", "torch.stack([torch.ones(3), torch.ones(4)])",
      RuntimeError, "stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1"),
    M("Concatenation", "`torch.cat` of an empty list", "torch.cat([])", ValueError,
      "torch.cat(): expected a non-empty list of Tensors"),
    # -- dims ---------------------------------------------------------------------------------------------------------
    M("Dims", "reduction over a dim the tensor does not have", "torch.ones(2, 3).sum(dim=2)", IndexError,
      "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    M("Dims", "negative dim out of range", "torch.ones(2, 3).softmax(dim=-3)", IndexError,
      "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    M("Dims", "`unsqueeze` beyond the last position", "torch.ones(2, 3).unsqueeze(4)", IndexError,
      "Dimension out of range (expected to be in range of [-3, 2], but got 4)"),
    M("Dims", "`permute` repeating a dim", "torch.ones(2, 3).permute(0, 0)", RuntimeError,
      "permute(): duplicate dims are not allowed."),
    M("Dims", "`max()` of an empty tensor", "torch.tensor([]).max()", RuntimeError,
      "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
      "'dim' argument."),
    # -- indexing ----------------------------------------------------------------------------------------------------
    M("Indexing", "float tensor used as an index", "torch.ones(3)[torch.tensor([0.0, 1.0])]", IndexError,
      "tensors used as indices must be long, int, byte or bool tensors"),
    M("Indexing", "`gather` with a float index", "torch.ones(2, 3).gather(1, torch.zeros(2, 1))", RuntimeError,
      "gather(): Expected dtype int32/int64 for index"),
    M("Indexing", "`index_select` with a float index", "torch.ones(3).index_select(0, torch.tensor([0.0]))",
      RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    M("Indexing", "index out of bounds", "torch.ones(3)[5]", IndexError,
      "index 5 is out of bounds for dimension 0 with size 3"),
    M("Indexing", "index tensor out of bounds", "torch.ones(3)[torch.tensor([5])]", IndexError,
      "index 5 is out of bounds for dimension 0 with size 3"),
    # -- autograd -----------------------------------------------------------------------------------------------------
    M("Autograd", "`backward()` twice through the same graph",
      "x = torch.ones(3, requires_grad=True); y = (x * x).sum(); y.backward(); y.backward()", RuntimeError,
      "Trying to backward through the graph a second time (or directly access saved tensors after they have "
      "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
      "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
      "you need to access saved tensors after calling backward."),
    M("Autograd", "`backward()` of a non-scalar without a gradient",
      "x = torch.ones(3, requires_grad=True); (x * 2).backward()", RuntimeError,
      "grad can be implicitly created only for scalar outputs"),
    M("Autograd", "`backward()` of something that does not require grad", "torch.ones(3).sum().backward()",
      RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn"),
    M("Autograd", "`requires_grad=True` on an integer tensor", "torch.tensor([1, 2], requires_grad=True)",
      RuntimeError, "Only Tensors of floating point and complex dtype can require gradients"),
    M("Autograd", "`requires_grad_()` on an integer tensor", "torch.arange(3).requires_grad_()", RuntimeError,
      "only Tensors of floating point dtype can require gradients"),
    M("Autograd", "in-place change of a tensor that backward needs",
      "x = torch.ones(3, requires_grad=True); y = x.exp(); y.add_(1); y.sum().backward()", RuntimeError,
      "one of the variables needed for gradient computation has been modified by an inplace operation: "
      "[torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. "
      "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
      "torch.autograd.set_detect_anomaly(True, check_nan=False)."),
    M("Autograd", "in-place change of a leaf that requires grad",
      "x = torch.ones(3, requires_grad=True); x.add_(1)", RuntimeError,
      "a leaf Variable that requires grad is being used in an in-place operation."),
    M("Autograd", "`requires_grad_(False)` on a computed tensor",
      "x = torch.ones(2, requires_grad=True); y = x * 2; y.requires_grad_(False)", RuntimeError,
      "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
      "subgraph that doesn't require differentiation use var_no_grad = var.detach()."),
    M("Autograd", "`autograd.grad` with respect to a tensor that does not require grad",
      "torch.autograd.grad(torch.ones(1, requires_grad=True).sum(), torch.ones(1))", RuntimeError,
      "One of the differentiated Tensors does not require grad"),
    M("Autograd", "`.numpy()` of a tensor that requires grad", "torch.ones(2, requires_grad=True).numpy()",
      RuntimeError, "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    # -- dtypes and values ---------------------------------------------------------------------------------------------
    M("Values", "integer division by zero", "torch.tensor([1, 2]) // 0", RuntimeError, "ZeroDivisionError"),
    M("Values", "`-` of bool tensors", "torch.tensor([True]) - torch.tensor([False])", RuntimeError,
      "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
      "operator instead."),
    M("Values", "`.item()` of several elements", "torch.ones(2).item()", RuntimeError,
      "a Tensor with 2 elements cannot be converted to Scalar"),
    M("Values", "`if tensor:` with several elements", "bool(torch.ones(2))", RuntimeError,
      "Boolean value of Tensor with more than one value is ambiguous"),
    M("Values", "ragged nested lists", "torch.tensor([[1, 2], [3]])", ValueError,
      "expected sequence of length 2 at dim 1 (got 1)"),
    # -- modules and state dicts --------------------------------------------------------------------------------------
    M("Modules", "`load_state_dict` missing a key",
      "m = torch.nn.Linear(4, 3); sd = m.state_dict(); del sd['bias']; m.load_state_dict(sd)", RuntimeError,
      'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '),
    M("Modules", "`load_state_dict` with an extra key",
      "m = torch.nn.Linear(4, 3); sd = m.state_dict(); sd['extra'] = torch.ones(1); m.load_state_dict(sd)",
      RuntimeError, 'Error(s) in loading state_dict for Linear:\n\tUnexpected key(s) in state_dict: "extra". '),
    M("Modules", "`load_state_dict` with a parameter of another shape",
      "m = torch.nn.Linear(4, 3); m.load_state_dict(torch.nn.Linear(5, 3).state_dict())", RuntimeError,
      "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with shape "
      "torch.Size([3, 5]) from checkpoint, the shape in current model is torch.Size([3, 4])."),
    M("Modules", "assigning a plain tensor to a parameter attribute",
      "m = torch.nn.Linear(2, 2); m.weight = torch.ones(2, 2)", TypeError,
      "cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)"),
    # -- losses --------------------------------------------------------------------------------------------------------
    M("Losses", "`cross_entropy` target class out of range",
      "torch.nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor([0, 5]))", IndexError,
      "Target 5 is out of bounds."),
    M("Losses", "`nll_loss` with float class targets",
      "torch.nn.functional.nll_loss(torch.ones(2, 3), torch.tensor([0.0, 1.0]))", RuntimeError,
      "expected target dtype to be Long or Byte, but got Float"),
    M("Losses", "`cross_entropy` with batch sizes that differ",
      "torch.nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1, 2]))", ValueError,
      "Expected input batch_size (2) to match target batch_size (3)."),
    M("Losses", "`binary_cross_entropy_with_logits` target of another shape",
      "torch.nn.functional.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(2, 4))", ValueError,
      "Target size (torch.Size([2, 4])) must be the same as input size (torch.Size([2, 3]))"),
    # -- optimizers and data -------------------------------------------------------------------------------------------
    M("Optimizers", "optimizing a computed (non-leaf) tensor",
      "x = torch.ones(2, requires_grad=True); torch.optim.SGD([x * 2], lr=0.1)", ValueError,
      "can't optimize a non-leaf Tensor"),
    M("Optimizers", "optimizer with no parameters", "torch.optim.SGD([], lr=0.1)", ValueError,
      "optimizer got an empty parameter list"),
    M("Data", "`DataLoader` of something that is not a dataset", "torch.utils.data.DataLoader(5)", TypeError,
      "DataLoader expects a map-style dataset (an object with __getitem__ and __len__, such as "
      "torch.utils.data.Dataset, a TensorDataset or a list) or an IterableDataset, but got int",
      as_pytorch=False),  # PyTorch accepts it and fails later, when iterating
    M("Data", "`DataLoader` with batch_size=0", "torch.utils.data.DataLoader([1, 2], batch_size=0)", ValueError,
      "batch_size should be a positive integer value, but got batch_size=0"),
]


def _raise(lib, code):
    namespace = {"torch": lib}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)  # noqa: S102 - the catalogue's own examples


@pytest.mark.parametrize("row", CATALOGUE, ids=lambda r: r.mistake)
def test_npgrad_reports_the_mistake(row):
    with pytest.raises(Exception) as info:
        _raise(npgrad, row.code)
    assert type(info.value) is row.error or isinstance(info.value, row.error), \
        f"{type(info.value).__name__}: {info.value}"
    assert str(info.value) == row.message


if HAS_TORCH:
    @pytest.mark.parametrize("row", [r for r in CATALOGUE if r.as_pytorch], ids=lambda r: r.mistake)
    def test_pytorch_reports_it_the_same_way(row):
        """The rows marked as PyTorch's message really are PyTorch's (checked against the installed torch)."""
        with pytest.raises(Exception) as info:
            _raise(torch, row.code)
        assert isinstance(info.value, row.error), f"{type(info.value).__name__}: {info.value}"
        assert str(info.value) == row.message


# -- the document ------------------------------------------------------------------------------------------------

HEADER = """# Error catalogue

The mistakes npgrad reports, and what it says. Every row is run by
`tests/reliability/test_error_catalogue.py` (this file is generated from that test's list; regenerate it
with `python tests/reliability/test_error_catalogue.py --write`). "Same as PyTorch" means PyTorch raises the
same exception with the same message for the same code, checked against the installed PyTorch.

Bad input never ends in a NumPy traceback or a silent wrong answer: if you find a case that does, it is a
bug — please report it with the code that triggers it.
"""


def _cell(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
            .replace("\t", "&nbsp;&nbsp;&nbsp;&nbsp;").replace("\n", "<br>"))


def render():
    lines = [HEADER.rstrip("\n")]
    category = None
    for row in CATALOGUE:
        if row.category != category:
            category = row.category
            lines += ["", f"## {category}", "", "| Mistake | Example | Exception | Message | Same as PyTorch |",
                      "|---|---|---|---|---|"]
        lines.append(f"| {row.mistake} | `{row.code}` | `{row.error.__name__}` | {_cell(row.message)} | "
                     f"{'yes' if row.as_pytorch else 'no'} |")
    return "\n".join(lines) + "\n"


def test_doc_matches_catalogue():
    with open(DOC, encoding="utf-8") as f:
        current = f.read()
    assert current == render(), ("docs/errors.md is out of date with CATALOGUE: run "
                                 "python tests/reliability/test_error_catalogue.py --write")


def test_catalogue_covers_the_required_mistakes():
    """The issue's list of mistakes, each present (by a keyword of its row)."""
    required = ["`+`", "`-`", "`*`", "`/`", "`**`", "`@`", "input channels", "input features", "`torch.cat`",
                "dim the tensor does not have", "float tensor used as an index", "`backward()` twice",
                "non-scalar", "integer tensor", "in-place change of a tensor that backward needs", "`load_state_dict`",
                "target class out of range", "not a dataset"]
    text = " ".join(r.mistake for r in CATALOGUE)
    missing = [k for k in required if k not in text]
    assert not missing, missing


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(render())
        print(f"wrote {os.path.normpath(DOC)} ({len(CATALOGUE)} rows)")
    else:
        sys.stdout.write(render())
