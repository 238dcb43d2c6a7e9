"""docs/compatibility.md is what tools/api_coverage.py computes today, and its PyTorch name list is PyTorch's."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("api_coverage", ROOT / "tools" / "api_coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_page_is_current():
    tool = _tool()
    pytorch = json.loads(tool.NAMES_FILE.read_text())
    expected = tool.page(pytorch, tool.coverage(pytorch))
    assert tool.PAGE.read_text() == expected, "docs/compatibility.md is stale: run python tools/api_coverage.py"
    for path in tool.MARKED_PAGES:
        text = path.read_text()
        assert tool.MARKER.search(text), f"{path.name} has no generated list left: drop it from MARKED_PAGES"
        assert tool.marked(text, tool.coverage(pytorch)) == text, f"{path.name} is stale: run python tools/api_coverage.py"


def _listed(page):
    """{namespace: (names the page lists as missing, names it lists as excluded)}, read from the page itself."""
    import re
    listed = {}
    for section in re.split(r"^## ", page, flags=re.M)[1:]:
        if not section.startswith("`"):  # a section that is not a namespace's (the real-program corpus)
            continue
        ns = section.split("`")[1]
        missing = re.search(r"^Missing: (.*)$", section, re.M)
        excluded = re.findall(r"^- .*?: ((?:`[^`]+`(?:, )?)+)$", section, re.M)
        listed[ns] = (re.findall(r"`([^`]+)`", missing.group(1)) if missing else [],
                      [n for line in excluded for n in re.findall(r"`([^`]+)`", line)])
    return listed


def test_the_page_lists_as_absent_only_what_npgrad_lacks():
    """Checked against the code, not the tool: every name the page calls missing or excluded is absent from
    npgrad (DistributedSampler once stood there although it existed), and each PyTorch name is listed once."""
    tool = _tool()
    pytorch = json.loads(tool.NAMES_FILE.read_text())
    listed = _listed(tool.PAGE.read_text())
    assert set(listed) == set(tool.NAMESPACES)
    for ns, (missing, excluded) in listed.items():
        holder = tool._holder(tool.NAMESPACES[ns])
        present = [n for n in missing + excluded if hasattr(holder, n)]
        assert present == [], f"{ns}: npgrad has {present}, the page lists them as absent"
        assert len(set(missing + excluded)) == len(missing + excluded), ns
        assert set(missing + excluded) <= set(pytorch["names"][ns]), ns
    assert "DistributedSampler" not in listed["torch.utils.data"][1]


def test_every_exclusion_reason_names_its_cause():
    tool = _tool()
    for namespace, pattern, reason in tool.EXCLUDED:
        assert namespace == "*" or namespace in tool.NAMESPACES, namespace
        assert len(reason) > 20, (pattern, reason)


def test_counted_names_exist_and_excluded_names_are_pytorchs():
    tool = _tool()
    pytorch = json.loads(tool.NAMES_FILE.read_text())
    for ns, (have, total, missing, skip) in tool.coverage(pytorch).items():
        names = pytorch["names"][ns]
        assert set(skip) <= set(names) and set(missing) <= set(names)
        assert have + len(missing) + len(skip) == len(names) == total + len(skip), ns


def test_snapshot_is_the_installed_pytorchs_names():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: the snapshot cannot be re-read")
    tool = _tool()
    snapshot = json.loads(tool.NAMES_FILE.read_text())
    if torch.__version__.split("+")[0] != snapshot["version"]:
        pytest.skip(f"snapshot is of PyTorch {snapshot['version']}, installed is {torch.__version__}")
    assert tool.read_pytorch() == snapshot


def test_readme_states_the_current_numbers():
    tool = _tool()
    pytorch = json.loads(tool.NAMES_FILE.read_text())
    readme = (ROOT / "README.md").read_text()
    assert tool.table(tool.coverage(pytorch)) in readme, "README's coverage table is stale: paste the tool's table"
    assert "docs/compatibility.md" in readme
