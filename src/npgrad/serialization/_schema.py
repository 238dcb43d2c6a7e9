"""The structure description (JSON) read as untrusted input: a size cap, strict JSON, and its schema.

``parse_json`` refuses NaN/Infinity literals, numbers that overflow to infinity and duplicate keys.
``check`` walks the whole tree (iteratively: depth cannot exhaust the stack) before anything is built
and returns the array members it references. Every node is a JSON scalar, a list, or an object tagged
``"$"`` with exactly the keys its kind allows, each of the right type.
"""
import math

from ._errors import fail
from ._format import FORMAT, TAG, TENSOR_DTYPES, VERSION

MAX_STRUCTURE_BYTES = 1 << 28  # 256 MiB of JSON: millions of tensors' worth

# tag -> (required keys, optional keys), "$" aside
_KINDS = {
    "tensor": ({"data", "dtype"}, {"requires_grad", "parameter"}),
    "ndarray": ({"data"}, set()),
    "npscalar": ({"data"}, set()),
    "float": ({"value"}, set()),
    "dtype": ({"name"}, set()),
    **{k: ({"items"}, set()) for k in ("tuple", "size", "set", "frozenset")},
    **{k: ({"items"}, {"metadata"}) for k in ("dict", "OrderedDict", "Counter")},
}
_BOOL_KEYS = ("requires_grad", "parameter")


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is not finite")
    return value


def _constant(text):
    raise ValueError(f"{text} is not JSON")


def _no_duplicates(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("an object has a duplicate key")
    return out


def parse_json(raw, fail_json):
    """Strict JSON from bytes; ``fail_json(exception)`` reports a document that is not."""
    import json
    try:
        return json.loads(bytes(raw).decode("utf-8"), parse_float=_finite, parse_constant=_constant,
                          object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        fail_json(e)


def _dtype_name(value):
    return type(value) is str and value in TENSOR_DTYPES


def check(meta, name):
    """Validate a parsed structure; return the set of array member numbers it references."""
    def bad(what):
        fail(name, f"is corrupted: its structure has {what}")

    if not isinstance(meta, dict) or meta.get("format") != FORMAT or "root" not in meta:
        fail(name, "is corrupted: its structure entry is not an npgrad checkpoint description")
    version = meta.get("version")
    if type(version) is not int or version > VERSION:
        fail(name, f"was written by a newer npgrad (checkpoint format version {version!r}; this npgrad "
                   f"reads up to {VERSION})")
    if version < 1 or set(meta) != {"format", "version", "root"}:
        bad(f"a header with unexpected keys or version ({sorted(meta)}, {version})")
    refs = set()
    stack = [meta["root"]]
    while stack:
        node = stack.pop()
        if node is None or isinstance(node, (bool, int, float, str)):
            continue
        if isinstance(node, list):
            stack.extend(node)
            continue
        tag = node.get(TAG)
        kind = _KINDS.get(tag) if isinstance(tag, str) else None
        if kind is None:
            bad(f"an unknown entry type {tag!r}")
        keys = set(node) - {TAG}
        if not kind[0] <= keys or not keys <= kind[0] | kind[1]:
            bad(f"a {tag} with keys {sorted(keys)} (expected {sorted(kind[0])}, optionally {sorted(kind[1])})")
        if "data" in node:
            idx = node["data"]
            if type(idx) is not int or idx < 0:
                bad(f"an invalid data reference {idx!r}")
            refs.add(idx)
        if tag == "tensor" and not _dtype_name(node["dtype"]):
            bad(f"a tensor of unknown dtype {node['dtype']!r}")
        if tag == "dtype" and not _dtype_name(node["name"]):
            bad(f"an unknown dtype {node['name']!r}")
        if any(type(node.get(k, False)) is not bool for k in _BOOL_KEYS):
            bad(f"a {tag} whose flags are not booleans")
        if tag == "float" and node["value"] not in ("inf", "-inf", "nan"):
            bad(f"an invalid float {node['value']!r}")
        if "items" in node:
            items = node["items"]
            if not isinstance(items, list):
                bad(f"a {tag} without a list of items")
            if tag in ("dict", "OrderedDict", "Counter"):
                for pair in items:
                    if not (isinstance(pair, list) and len(pair) == 2):
                        bad("a dict entry that is not a key/value pair")
            elif tag == "size" and not all(type(v) is int for v in items):
                bad("a Size with non-integer entries")
            stack.extend(items)
        if "metadata" in node:
            stack.append(node["metadata"])
    return refs
