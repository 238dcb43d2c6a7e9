"""Op table: the view-copy operators (npgrad/ops/view_copy.py: ``torch.<view>_copy``, split_with_sizes and the
unsafe_ splits). Their samples run in tests/ops/test_movement.py (family "movement": against PyTorch, finite
differences, double backward); tests/ops/test_view_copy.py checks over ``COPIES`` that each result is fresh
memory (writing to it leaves the input alone, as it would not through a view).
"""
from oracle import In
from _record import OpInfo, Sample
from _record import row as _row, row2 as _row2  # noqa: E402 (shared makers)


def _weighted(lib, parts):
    # Weight each piece differently so a gradient routed to the wrong piece is caught.
    return lib.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(parts)])


def _copy_rows(name, call, shape, many=False):
    fn = (lambda lib, x: _weighted(lib, call(lib, x))) if many else call
    return [_row2(name, lambda lib, x: fn(lib, x) * 1, [In(shape)])]


F = "float32"
# operator -> the empty-tensor suite's calls (tests/reliability/test_empty_tensors.py)
EMPTY = {
    "alias_copy": [("empty", lambda L, x: L.alias_copy(x), ((0, 3), F))],
    "as_strided_copy": [("empty", lambda L, x: L.as_strided_copy(x, (0,), (1,)), ((0, 3), F))],
    "detach_copy": [("empty", lambda L, x: L.detach_copy(x), ((0, 3), F))],
    "diagonal_copy": [("empty", lambda L, x: L.diagonal_copy(x), ((0, 3), F))],
    "expand_copy": [("empty", lambda L, x: L.expand_copy(x, (2, 0, 3)), ((0, 3), F))],
    "narrow_copy": [("empty", lambda L, x: L.narrow_copy(x, 1, 1, 2), ((0, 3), F))],
    "permute_copy": [("empty", lambda L, x: L.permute_copy(x, (1, 0)), ((0, 3), F))],
    "select_copy": [("empty", lambda L, x: L.select_copy(x, 1, 0), ((0, 3), F))],
    "slice_copy": [("empty", lambda L, x: L.slice_copy(x, 0, 1, 1), ((2, 3), F))],
    "split_copy": [("empty", lambda L, x: L.split_copy(x, 2, 1), ((0, 3), F))],
    "split_with_sizes_copy": [("empty", lambda L, x: L.split_with_sizes_copy(x, [1, 2], 1), ((0, 3), F))],
    "squeeze_copy": [("empty", lambda L, x: L.squeeze_copy(x, 1), ((0, 1), F))],
    "t_copy": [("empty", lambda L, x: L.t_copy(x), ((0, 3), F))],
    "transpose_copy": [("empty", lambda L, x: L.transpose_copy(x, 0, 2), ((3, 0, 2), F))],
    "unbind_copy": [("empty", lambda L, x: L.unbind_copy(x, 1), ((0, 3), F))],
    "unfold_copy": [("empty", lambda L, x: L.unfold_copy(x, 1, 2, 1), ((0, 3), F))],
    "unsqueeze_copy": [("empty", lambda L, x: L.unsqueeze_copy(x, 0), ((0, 3), F))],
    "view_copy": [("empty", lambda L, x: L.view_copy(x, (3, 0)), ((0, 3), F))],
    "split_with_sizes": [("empty", lambda L, x: L.split_with_sizes(x, [1, 2], 1), ((0, 3), F))],
    "unsafe_split": [("empty", lambda L, x: L.unsafe_split(x, 2, 1), ((0, 3), F))],
    "unsafe_split_with_sizes": [("empty", lambda L, x: L.unsafe_split_with_sizes(x, [0, 0]), ((0, 3), F))],
    "unsafe_chunk": [("empty", lambda L, x: L.unsafe_chunk(x, 2), ((0, 3), F))],
}

# (operator, call, input shape, returns several tensors)
COPIES = [
    ("alias_copy", lambda lib, x: lib.alias_copy(x), (2, 3), False),
    ("as_strided_copy", lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1), (2, 3), False),
    ("diagonal_copy", lambda lib, x: lib.diagonal_copy(x, 1), (3, 4), False),
    ("expand_copy", lambda lib, x: lib.expand_copy(x, (2, 3, 4)), (3, 1), False),
    ("narrow_copy", lambda lib, x: x.narrow_copy(1, 1, 2), (3, 4), False),
    ("permute_copy", lambda lib, x: lib.permute_copy(x, (2, 0, 1)), (2, 3, 4), False),
    ("select_copy", lambda lib, x: lib.select_copy(x, 1, -1), (3, 4), False),
    ("slice_copy", lambda lib, x: lib.slice_copy(x, 1, 0, 3, 2), (3, 4), False),
    ("split_copy", lambda lib, x: lib.split_copy(x, 3, 1), (2, 5), True),
    ("split_with_sizes_copy", lambda lib, x: lib.split_with_sizes_copy(x, [1, 3], 1), (2, 4), True),
    ("squeeze_copy", lambda lib, x: lib.squeeze_copy(x, (0, 2)), (1, 3, 1), False),
    ("t_copy", lambda lib, x: lib.t_copy(x), (2, 3), False),
    ("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, -1), (2, 3, 4), False),
    ("unbind_copy", lambda lib, x: lib.unbind_copy(x, 1), (2, 3), True),
    ("unfold_copy", lambda lib, x: lib.unfold_copy(x, 1, 2, 1), (3, 4), False),
    ("unsqueeze_copy", lambda lib, x: lib.unsqueeze_copy(x, -1), (2, 3), False),
    ("view_copy", lambda lib, x: lib.view_copy(x, (3, 2)), (2, 3), False),
]

RAISES = {
    "permute_copy": [
        ("permute_copy_spread_dims", lambda lib: lib.permute_copy(lib.ones(2, 3), 1, 0), TypeError,
         "permute_copy() takes 2 positional arguments but 3 were given"),
    ],
    "slice_copy": [
        ("slice_copy_step", lambda lib: lib.slice_copy(lib.ones(2, 3), 1, 0, 2, 0), RuntimeError,
         "slice step must be positive"),
    ],
}

OPS = [OpInfo(name, "movement", call, samples=_copy_rows(name, call, shape, many), raises=RAISES.get(name, ()),
              empty=EMPTY[name]) for name, call, shape, many in COPIES]
OPS += [
    OpInfo("detach_copy", "movement", lambda lib, x: lib.detach_copy(x),
           empty=EMPTY["detach_copy"],
           # PyTorch has no derivative for detach_copy (its backward raises): the value only
           samples=[Sample("detach_copy", lambda lib, x: lib.detach_copy(x), [In((2, 3), grad=False)],
                           checks=frozenset({"parity"}))]),
    OpInfo("split_with_sizes", "movement", lambda lib, x: lib.split_with_sizes(x, [1, 2])[0],
           empty=EMPTY["split_with_sizes"],
           samples=[_row2("split_with_sizes", lambda lib, x: _weighted(lib, lib.split_with_sizes(x, [1, 2])),
                          [In((3, 2))]),
                    _row("split_with_sizes_method", lambda lib, x: _weighted(lib, x.split_with_sizes([2, 0, 2], 1)),
                         [In((2, 4))])]),
    OpInfo("unsafe_split", "movement", lambda lib, x: lib.unsafe_split(x, 2)[0],
           empty=EMPTY["unsafe_split"],
           samples=[_row2("unsafe_split", lambda lib, x: _weighted(lib, lib.unsafe_split(x, 2, 1)), [In((2, 5))]),
                    # unlike split's, its pieces may be modified in place while recording a graph
                    _row("unsafe_split_inplace", lambda lib, x: _weighted(lib, [p.mul_(2) for p in (x * 1).unsafe_split(2)]),
                         [In((3, 2))])]),
    OpInfo("unsafe_split_with_sizes", "movement", lambda lib, x: lib.unsafe_split_with_sizes(x, [1, 2])[0],
           empty=EMPTY["unsafe_split_with_sizes"],
           samples=[_row("unsafe_split_with_sizes", lambda lib, x: _weighted(lib, x.unsafe_split_with_sizes([1, 2])),
                         [In((3, 2))])]),
    OpInfo("unsafe_chunk", "movement", lambda lib, x: lib.unsafe_chunk(x, 2)[0],
           empty=EMPTY["unsafe_chunk"],
           samples=[_row("unsafe_chunk", lambda lib, x: _weighted(lib, lib.unsafe_chunk(x, 2, 1)), [In((2, 5))]),
                    _row("unsafe_chunk_method", lambda lib, x: _weighted(lib, x.unsafe_chunk(3)), [In((3, 2))])]),
]
