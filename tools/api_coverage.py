"""How much of PyTorch's public API npgrad has, namespace by namespace.

PyTorch's names are read once (with torch installed) into `pytorch_api.json` next to this file, so the
count and the compatibility page can be rebuilt and checked on a machine without PyTorch:

    python tools/api_coverage.py --refresh   # re-read PyTorch's names (needs torch)
    python tools/api_coverage.py             # print the table, rewrite docs/compatibility.md (and MARKED_PAGES)
    python tools/api_coverage.py --check     # exit 1 when one of them is stale

A name counts when npgrad has it at the same place. Names that cannot apply to a CPU library on NumPy,
or that another issue owns, are listed in EXCLUDED with the reason, so nothing is dropped silently.
"""
import argparse
import importlib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES_FILE = HERE / "pytorch_api.json"
PAGE = HERE.parent / "docs" / "compatibility.md"

# namespace -> npgrad module holding it (attribute lookups go through getattr, so lazy names count)
NAMESPACES = {
    "torch": "npgrad",
    "torch.Tensor": "npgrad:Tensor",
    "torch.nn": "npgrad.nn",
    "torch.nn.functional": "npgrad.nn.functional",
    "torch.nn.init": "npgrad.nn.init",
    "torch.linalg": "npgrad.linalg",
    "torch.special": "npgrad.special",
    "torch.utils.data": "npgrad.utils.data",
    "torch.func": "npgrad.func",
    "torch.distributions": "npgrad.distributions",
    "torch.optim": "npgrad.optim",
    "torch.fft": "npgrad.fft",
    "torch (constants, dtypes, types)": "npgrad",
    "torch (submodules)": "submodules",
}

_TYPES = ("Size", "device", "dtype", "Generator", "layout", "memory_format", "finfo", "iinfo", "Tensor")


class _Submodules:
    """``hasattr(holder, "backends.mkl")``: whether ``npgrad.backends.mkl`` imports."""

    def __getattr__(self, name):
        import types

        import npgrad
        if "." not in name and isinstance(getattr(npgrad, name, None), types.ModuleType):
            return getattr(npgrad, name)  # torch.windows: an attribute naming a module, not an importable path
        try:
            return importlib.import_module(f"npgrad.{name}")
        except ImportError:
            raise AttributeError(name) from None

_SPARSE = "sparse tensors: npgrad stores dense NumPy arrays only"
_QUANT = "quantized tensors: no quantized dtypes on NumPy"
_DEVICE = "accelerator-only kernels or memory management (CUDA/MIOpen/cuDNN/MKLDNN/IPU/XPU/...)"
_COMPLEX = "complex dtypes: issue 19 (complex numbers and torch.fft)"
_COMPILE = "compiler/tracing internals (symbolic shapes, TorchScript, export): npgrad has no compiler"
_NESTED = "nested tensors: not supported"
_DATAPIPE = "DataPipes: deprecated in PyTorch and being removed"
_REMOVED = "removed from PyTorch: calling it raises there too"
_STORAGE = "Storage objects: an npgrad tensor's memory is a NumPy array, there is no separate Storage type"
_AUTOCAST = "autocast internals (per-device autocast dtypes, nesting counters, cast cache): torch.autocast is the API"
_INTERNAL = "undocumented kernels behind a public function (the public function is what counts)"

# (namespace or "*", regex on the name, reason)
EXCLUDED = [
    ("*", r"(^|_)sparse|^to_sparse|^sspaddmm$|^[hd]?smm$|^saddmm$|^coalesce$|^is_coalesced$|^indices(_copy)?$|^values(_copy)?$"
          r"|^(c|r)ow_indices|^ccol_indices|^crow_indices|^col_indices|^dense_dim$|^sparse_dim$|^nnz$", _SPARSE),
    ("*", r"^q_|quantize|^int_repr$|^dequantize$|^qscheme$|^fbgemm_|^choose_qparams|fake_quant|^quantized_", _QUANT),
    ("*", r"^miopen_|^cudnn_|^mkldnn|^is_vulkan|^ipu$|^xpu$|^hpu$|^mtia$|^is_ipu|^is_hpu|^is_mtia|^is_maia"
          r"|^record_stream$|^pin_memory$|^is_pinned$|^share_memory_$|^is_shared$|^is_xla$|^to_mkldnn$"
          r"|^scaled_mm$|^scaled_grouped_mm$", _DEVICE),
    ("torch.Tensor", r"^(eig|symeig|lstsq|solve|reinforce)$", _REMOVED),
    ("torch.Tensor", r"^(storage|untyped_storage|storage_type|storage_offset_|set_|is_set_to)$", _STORAGE),
    ("torch.optim", r"^SparseAdam$", _SPARSE + ": SparseAdam refuses dense gradients"),
    ("torch.Tensor", r"^index$", "functorch's first-class dimensions (torchdim), an experimental separate API, not "
                                 "indexing"),
    ("*", r"^batch_norm_(stats|elemt|gather_stats|gather_stats_with_counts|update_stats|backward_elemt|backward_reduce)$",
          _DEVICE + ": SyncBatchNorm's CUDA kernels"),
    ("*", r"^native_|^conv_tbc$|^norm_except_dim$|^grid_sampler(_2d|_3d)?$|^affine_grid_generator$|^constant_pad_nd$"
          r"|^convolution$|^_|^max_pool1d_with_indices$|^segment_reduce$|^slice_inverse$|^hash_tensor$", _INTERNAL),
    ("*", r"^sym_", _COMPILE),
    ("torch", r"^(get|set)_autocast_|^is_autocast_|^autocast_(in|de)crement_nesting$|^clear_autocast_cache$", _AUTOCAST),
    ("torch", r"^(parse_ir|parse_schema|parse_type_comment|import_ir_module|import_ir_module_from_buffer"
              r"|merge_type_from_type_comment|unify_type_list|fork|wait)$", _COMPILE + ": TorchScript's IR and futures"),
    ("torch", r"^cond$", _COMPILE + ": torch.cond is torch.compile's control-flow operator"),
    ("*", r"^(chalf|complex32)$", "complex32 (half-precision complex): NumPy has no such dtype"),
    ("*", r"^nested|^is_nested$|^to_padded_tensor$", _NESTED),
    ("torch.utils.data", r"DataPipe|^DataChunk$|^functional_datapipe$|^guaranteed_datapipes_determinism$"
          r"|^non_deterministic$|^runtime_validation|^argument_validation$", _DATAPIPE),
    ("torch.func", r"^functionalize$", _COMPILE + ": functionalization rewrites mutations for graph capture"),
    ("torch (constants, dtypes, types)", r"^(q(u)?int|per_(channel|tensor)_)", _QUANT),
    ("torch (constants, dtypes, types)", r"^(u?int[1-7]|bits\w*|bit|float4_e2m1fn_x2)$",
     "sub-byte and bit-packed dtypes: no NumPy storage for them (PyTorch has almost no kernels for them either)"),
    ("torch (constants, dtypes, types)", r"^(TYPE_CHECKING|USE_GLOBAL_DEPS|USE_RTLD_GLOBAL_WITH_LIBTORCH|PRIVATE_OPS"
     r"|AVG|SUM)$", "flags of how PyTorch's C++ library was built and loaded, and its internal enum values"),
    ("torch (constants, dtypes, types)", r"^jagged$", _NESTED),
    ("torch (constants, dtypes, types)", r"^uint(16|32|64)$",
     "PyTorch 2.13's shell dtypes: it refuses their promotion and most arithmetic ('add_stub' not implemented for "
     "'UInt16'); left out rather than half-supported"),
    ("torch (constants, dtypes, types)", r"^(Cuda|Xpu|Mtia)?\w*Storage$", _STORAGE),
    ("torch (submodules)", r"^(ao|quantization|backends\.quantized)$", _QUANT),
    ("torch (submodules)", r"^(xpu|mtia|backends\.(cudnn|cusparselt|miopen|mkldnn|mps|nnpack|kleidiai|mha))$", _DEVICE),
    ("torch (submodules)", r"^(fx|export|compiler|package|classes|cpp|library|ops|monitor|backends\.(m|python_native))$",
     _COMPILE + ", or PyTorch's C++ operator registry"),
    ("torch (submodules)", r"^nested$", _NESTED),
    ("torch (submodules)", r"^masked$", "masked tensors: a prototype API of PyTorch's (torch.masked.MaskedTensor)"),
    ("torch (submodules)", r"^overrides$", "the __torch_function__ protocol: npgrad's Tensor has no dispatch layer for "
                                           "subclasses to override"),
    ("torch (submodules)", r"^storage$", _STORAGE),
    ("torch.func", r"^debug_unwrap$", "functorch's per-level wrapper tensors: npgrad's transforms run on one tape "
                                       "and wrap nothing, so there is nothing to unwrap"),
]


def excluded(namespace, name):
    for ns, pattern, reason in EXCLUDED:
        if ns in ("*", namespace) and re.search(pattern, name):
            return reason
    return None


def _public(mod):
    import types

    return [n for n in dir(mod) if not n.startswith("_") and not isinstance(getattr(mod, n), types.ModuleType)]


def read_pytorch():
    """PyTorch's public names per namespace (needs torch)."""
    import torch
    import torch.nn.functional as F

    # The overridable functions, and the ones torch_function ignores (factories, finfo, vmap, the process
    # settings ...), which ordinary programs call just as much.
    overrides = list(torch.overrides.get_testing_overrides()) + list(torch.overrides.get_ignored_functions())
    top = sorted({f.__name__ for f in overrides if getattr(torch, getattr(f, "__name__", ""), None) is f
                  and not f.__name__.startswith("_")})
    functional = sorted(n for n in _public(F) if callable(getattr(F, n)) and not isinstance(getattr(F, n), type)
                        and (getattr(getattr(F, n), "__module__", "") or "").startswith(("torch.nn", "torch._C", "torch"))
                        and n not in {"boolean_dispatch", "handle_torch_function", "has_torch_function",
                                      "has_torch_function_unary", "has_torch_function_variadic"}
                        and getattr(getattr(F, n), "__module__", "") not in ("torch._jit_internal", "torch.overrides"))
    modules = sorted(n for n in _public(torch.nn) if isinstance(getattr(torch.nn, n), type)
                     and issubclass(getattr(torch.nn, n), torch.nn.Module))
    init = sorted(n for n in _public(torch.nn.init) if getattr(getattr(torch.nn.init, n), "__module__", "") == "torch.nn.init")
    linalg = sorted(n for n in _public(torch.linalg) if callable(getattr(torch.linalg, n)))
    special = sorted(n for n in _public(torch.special) if callable(getattr(torch.special, n)) and n != "Tensor")
    data = sorted(n for n in torch.utils.data.__all__ if not n.startswith("_"))
    tensor = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    func = sorted(n for n in _public(torch.func) if callable(getattr(torch.func, n)))
    distributions = sorted(torch.distributions.__all__)
    optim = sorted(n for n in torch.optim.__all__ if not n.startswith("_"))
    # torch.fft.__all__ lacks hfft2/ihfft2/hfftn/ihfftn: its functions are the public callables (less the Tensor
    # class it re-exports)
    fft = sorted(n for n in _public(torch.fft) if callable(getattr(torch.fft, n)) and not isinstance(getattr(torch.fft, n), type))
    # What programs touch besides functions: the constants, dtypes and type objects (torch.inf, torch.bfloat16,
    # torch.FloatTensor, torch.Size ...) and the submodules they import (torch.jit, torch.backends.mkl ...).
    constants, submodules = _fresh_torch_names()
    return {"version": torch.__version__.split("+")[0], "out_functions": _out_functions(torch),
            "names": {"torch": top, "torch.Tensor": tensor, "torch.nn": modules, "torch.nn.functional": functional,
                      "torch.nn.init": init, "torch.linalg": linalg, "torch.special": special,
                      "torch.utils.data": data, "torch.func": func, "torch.distributions": distributions,
                      "torch.optim": optim, "torch.fft": fft, "torch (constants, dtypes, types)": constants,
                      "torch (submodules)": submodules}}


_FRESH = """
import json, types, torch
public = [n for n in dir(torch) if not n.startswith("_")]
mods = lambda m: [n for n in dir(m) if not n.startswith("_") and isinstance(getattr(m, n), types.ModuleType)]
constants = {n for n in public if not callable(getattr(torch, n)) and not isinstance(getattr(torch, n), types.ModuleType)}
constants |= {n for n in public if isinstance(getattr(torch, n), type) and n.endswith("Tensor")}
submodules = {n for n in mods(torch) if getattr(torch, n).__name__.startswith("torch.")}
submodules |= {"backends." + n for n in mods(torch.backends)}
print(json.dumps([sorted(constants), sorted(submodules)]))
"""


def _fresh_torch_names():
    """The torch module's constants/type objects and submodules as a program sees them right after
    ``import torch``, read in a new interpreter: what a process imported before (a test run's other modules)
    adds attributes to the torch module and would change the lists."""
    import subprocess
    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True).stdout
    constants, submodules = json.loads(out)
    return sorted(set(constants) | set(_TYPES)), submodules


def _out_functions(torch):
    """The torch.<name> functions that take ``out=``: those whose ATen schema has an out argument."""
    names = []
    for n in sorted(set(dir(torch))):
        if n.startswith("_") or not callable(getattr(torch, n)):
            continue
        try:
            schemas = torch._C._jit_get_schemas_for_operator("aten::" + n)
        except RuntimeError:
            continue
        if any(a.is_out for s in schemas for a in s.arguments):
            names.append(n)
    return names


OUT_INDEX = HERE.parent / "src" / "npgrad" / "ops" / "_out_index.py"


def out_index_text(pytorch):
    names = pytorch["out_functions"]
    lines = ['"""Generated by `python tools/api_coverage.py --refresh` from PyTorch\'s operator schemas: the torch.<name>',
             'functions that take ``out=`` (see ops/_out.py). Do not edit."""', "OUT_NAMES = frozenset({"]
    row = "   "
    for n in names:
        item = f' "{n}",'
        if len(row) + len(item) > 116:
            lines.append(row)
            row = "   "
        row += item
    lines += [row, "})", ""]
    return "\n".join(lines)


def _holder(spec):
    if spec == "submodules":
        return _Submodules()
    mod, _, attr = spec.partition(":")
    obj = importlib.import_module(mod)
    return getattr(obj, attr) if attr else obj


def coverage(pytorch):
    """namespace -> (have, applicable, missing names, excluded {name: reason})"""
    out = {}
    for ns, names in pytorch["names"].items():
        holder = _holder(NAMESPACES[ns])
        # A name npgrad has counts whatever EXCLUDED says: the page never calls something that exists absent.
        skip = {n: r for n in names if (r := excluded(ns, n)) and not hasattr(holder, n)}
        applicable = [n for n in names if n not in skip]
        missing = [n for n in applicable if not hasattr(holder, n)]
        out[ns] = (len(applicable) - len(missing), len(applicable), missing, skip)
    return out


def table(cov):
    lines = ["| namespace | npgrad has | of PyTorch's applicable | coverage | excluded |", "| --- | ---: | ---: | ---: | ---: |"]
    for ns, (have, total, _, skip) in cov.items():
        lines.append(f"| `{ns}` | {have} | {total} | {100 * have / total:.1f}% | {len(skip)} |")
    have = sum(c[0] for c in cov.values())
    total = sum(c[1] for c in cov.values())
    lines.append(f"| all | {have} | {total} | {100 * have / total:.1f}% | {sum(len(c[3]) for c in cov.values())} |")
    return "\n".join(lines)


CORPUS_BEGIN, CORPUS_END = "<!-- corpus:begin -->", "<!-- corpus:end -->"


def _corpus_section():
    """The real-program table tools/realworld/run.py writes into the page (it needs repository snapshots, so
    it is measured separately and kept as it is when this tool rewrites the rest)."""
    old = PAGE.read_text() if PAGE.exists() else ""
    if CORPUS_BEGIN in old and CORPUS_END in old:
        return old[old.index(CORPUS_BEGIN):old.index(CORPUS_END) + len(CORPUS_END)]
    return f"{CORPUS_BEGIN}\n(not measured yet)\n{CORPUS_END}"


def page(pytorch, cov):
    parts = [f"# Compatibility with PyTorch {pytorch['version']}", "",
             "Generated by `python tools/api_coverage.py` (a test fails when this page is stale). A name counts when",
             "npgrad has it in the same place, working as PyTorch's and tested against it. Names that cannot apply to",
             "a CPU library on NumPy, or that another piece of work owns, are excluded with the reason.", "",
             table(cov), "",
             "## Real programs", "",
             "Names are not programs. The corpus below runs third-party PyTorch programs, read at run time from",
             "snapshots of their public repositories (the project stores none of their code), once under PyTorch",
             "and once under npgrad from the same initial weights and batches, and compares the step-0 loss",
             "(rtol 1e-4) and the losses after each optimizer step (rtol 1e-3). Every deviation from the original",
             "program is declared by its case and listed under the table. Rerun it with",
             "`python tools/realworld/run.py --mirrors DIR --page docs/compatibility.md` (DIR holds the snapshots,",
             "`DIR/<owner>+<name>/repo`; `--list` shows the cases).", "",
             _corpus_section(), ""]
    for ns, (have, total, missing, skip) in cov.items():
        parts += [f"## `{ns}`", "", f"{have} of {total} applicable names ({100 * have / total:.1f}%)."]
        if missing:
            parts += ["", "Missing: " + ", ".join(f"`{n}`" for n in missing) + "."]
        if skip:
            by_reason = {}
            for n, r in skip.items():
                by_reason.setdefault(r, []).append(n)
            parts += ["", "Excluded:", ""]
            parts += [f"- {r}: " + ", ".join(f"`{n}`" for n in ns_) for r, ns_ in by_reason.items()]
        parts.append("")
    return "\n".join(parts)


# Prose elsewhere in the docs that names what npgrad lacks ("every module but ...") is generated too, between
# markers: <!-- coverage:NAMESPACE but -->...<!-- /coverage --> holds " but `A` and `B`" (nothing when npgrad
# has every applicable name), with the excluded names when the marker says "but+excluded".
MARKER = re.compile(r"(<!-- coverage:(?P<ns>[\w.]+) (?P<what>but|but\+excluded) -->)(?P<text>.*?)(<!-- /coverage -->)", re.S)
MARKED_PAGES = [HERE.parent / "docs" / p for p in ("coming-from-pytorch.md", "api/nn.md", "api/optim.md")]


def _but(names):
    names = [f"`{n}`" for n in names]
    if not names:
        return ""
    return " but " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def marked(text, cov):
    """text with every coverage marker's content regenerated from `cov`."""
    def fill(m):
        _, _, missing, skip = cov[m["ns"]]
        names = list(missing) + (sorted(skip) if m["what"] == "but+excluded" else [])
        return m.group(1) + _but(names) + m.group(5)
    return MARKER.sub(fill, text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--refresh", action="store_true", help="re-read PyTorch's names (needs torch)")
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/compatibility.md is stale")
    ap.add_argument("--missing", action="store_true", help="print every missing name")
    args = ap.parse_args(argv)
    if args.refresh:
        NAMES_FILE.write_text(json.dumps(read_pytorch(), indent=1) + "\n")
    pytorch = json.loads(NAMES_FILE.read_text())
    if args.refresh:
        OUT_INDEX.write_text(out_index_text(pytorch))
    cov = coverage(pytorch)
    text = page(pytorch, cov)
    pages = {PAGE: text, **{p: marked(p.read_text(), cov) for p in MARKED_PAGES}}
    if args.check:
        stale = [p.relative_to(HERE.parent).as_posix() for p, t in pages.items() if not p.exists() or p.read_text() != t]
        print(f"stale: {', '.join(stale)}: run python tools/api_coverage.py" if stale else "up to date")
        return 1 if stale else 0
    for p, t in pages.items():
        p.write_text(t)
    print(table(cov))
    if args.missing:
        for ns, (_, _, missing, _) in cov.items():
            print(f"\n{ns} missing ({len(missing)}):", " ".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
