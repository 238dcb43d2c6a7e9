"""Every public operator has an op-table entry (tests/opinfo), or is listed in EXCLUDED with the reason it has none."""
import pytest

from opinfo import BY_NAME, OP_DB, covered_names, registered_ops

# Public names that are not operators on tensors, with the reason.
EXCLUDED = {
    "broadcast_shapes": "takes and returns shapes, no tensors (tests/ops/test_movement.py checks it)",
    "bernoulli": "random sampling from NumPy's generator: no value parity with PyTorch (tests/test_factories.py "
                 "checks its statistics and errors)",
    "multinomial": "random sampling, as bernoulli (tests/test_factories.py)",
    "F.gumbel_softmax": "random sampling, as bernoulli (tests/nn/test_random_functional.py checks its statistics "
                        "and its straight-through gradient)",
    "F.feature_alpha_dropout": "random masks from NumPy's generator: no value parity with PyTorch "
                               "(tests/nn/test_functional_leftovers.py checks the mask structure, moments, gradient)",
    "F.assert_int_or_pair": "an argument check on ints, no tensors (tests/nn/test_functional_leftovers.py)",
}


def test_every_public_operator_has_an_op_table_entry():
    missing = registered_ops() - covered_names() - set(EXCLUDED)
    assert not missing, f"public operators without an op-table entry (tests/opinfo): {sorted(missing)}"


def test_the_exception_list_names_only_registered_operators_without_entries():
    stale = set(EXCLUDED) - registered_ops()
    assert not stale, f"no such public operator: {sorted(stale)}"
    converted = set(EXCLUDED) & covered_names()
    assert not converted, f"in the op table now, drop from EXCLUDED: {sorted(converted)}"


@pytest.mark.parametrize("op", OP_DB, ids=lambda op: op.name)
def test_entry_is_well_formed(op):
    assert BY_NAME[op.name] is op, f"{op.name}: two entries"
    assert op.samples or op.properties, f"{op.name}: an entry with nothing to run"
    for s in op.samples:
        assert callable(s.fn) and s.checks, f"{op.name}/{s.name}: sample without a call or a check"


def test_sample_names_are_unique_per_check():
    # They are the test ids of the suites that draw from the table.
    for check in {c for op in OP_DB for s in op.samples for c in s.checks}:
        names = [s.name for op in OP_DB for s in op.samples if check in s.checks]
        assert len(names) == len(set(names)), check
