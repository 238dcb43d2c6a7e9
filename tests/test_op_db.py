"""Every public operator has an op-table entry (tests/opinfo), or is listed below with the reason it has none."""
import pytest

from opinfo import BY_NAME, OP_DB, covered_names, registered_ops

# Operators whose rows still live in their family's own lists (tests/ops/test_<family>.py, the reliability
# tables, tests/nn): they move into the op table family by family, and leave this list as they do.
PENDING = {
    "nn.functional": [
        "F.adaptive_avg_pool1d", "F.adaptive_avg_pool2d", "F.adaptive_max_pool1d", "F.adaptive_max_pool2d",
        "F.alpha_dropout", "F.avg_pool1d", "F.avg_pool2d", "F.batch_norm", "F.bilinear", "F.conv1d", "F.conv2d",
        "F.conv_transpose1d", "F.conv_transpose2d", "F.cosine_similarity", "F.dropout", "F.dropout1d", "F.dropout2d",
        "F.dropout3d", "F.embedding", "F.embedding_bag", "F.fold", "F.group_norm", "F.gumbel_softmax",
        "F.instance_norm", "F.interpolate", "F.layer_norm", "F.linear", "F.lp_pool1d", "F.lp_pool2d", "F.max_pool1d",
        "F.max_pool2d", "F.max_pool2d_with_indices", "F.multi_head_attention_forward", "F.normalize", "F.one_hot",
        "F.pad", "F.pairwise_distance", "F.pdist", "F.pixel_shuffle", "F.pixel_unshuffle", "F.rms_norm",
        "F.scaled_dot_product_attention", "F.unfold", "F.upsample", "F.upsample_bilinear", "F.upsample_nearest"],
}

# Public names that are not operators on tensors, with the reason.
EXCLUDED = {
    "broadcast_shapes": "takes and returns shapes, no tensors (tests/ops/test_movement.py checks it)",
    "bernoulli": "random sampling from NumPy's generator: no value parity with PyTorch (tests/test_factories.py "
                 "checks its statistics and errors)",
    "multinomial": "random sampling, as bernoulli (tests/test_factories.py)",
    "F.feature_alpha_dropout": "random masks from NumPy's generator: no value parity with PyTorch "
                               "(tests/nn/test_functional_leftovers.py checks the mask structure, moments, gradient)",
    "F.assert_int_or_pair": "an argument check on ints, no tensors (tests/nn/test_functional_leftovers.py)",
}


def test_every_public_operator_has_an_op_table_entry():
    pending = {name for names in PENDING.values() for name in names}
    missing = registered_ops() - covered_names() - pending - set(EXCLUDED)
    assert not missing, f"public operators without an op-table entry (tests/opinfo): {sorted(missing)}"


def test_the_exception_lists_name_only_registered_operators_without_entries():
    pending = [name for names in PENDING.values() for name in names]
    assert len(pending) == len(set(pending))
    stale = (set(pending) | set(EXCLUDED)) - registered_ops()
    assert not stale, f"no such public operator: {sorted(stale)}"
    converted = (set(pending) | set(EXCLUDED)) & covered_names()
    assert not converted, f"in the op table now, drop from PENDING/EXCLUDED: {sorted(converted)}"


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
