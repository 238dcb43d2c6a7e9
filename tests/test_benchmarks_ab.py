"""``python -m benchmarks.ab``: the old code must really be what runs in the old rounds (including through names
imported into other modules), the new code afterwards, and the timing must tell a slower old version apart."""
import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import ab  # noqa: E402

CURRENT = {
    "core.py": """
        import time

        def work():
            return "new"

        class Base:
            def tag(self):
                return "base"

        class K(Base):
            def tag(self):
                return "new"

            @staticmethod
            def twice(x):
                return 2 * x
        """,
    "user.py": """
        from .core import work

        def run():
            return work()
        """,
}
OLD = {
    "core.py": """
        def work():
            time.sleep(0.002)  # runs with the current module's globals, where time is imported
            return "old"

        class K:
            @staticmethod
            def twice(x):
                return 3 * x
        """,
}


def _tree(root, files):
    pkg = root / "abdemo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(textwrap.dedent(text))


@pytest.fixture
def demo(tmp_path, monkeypatch):
    _tree(tmp_path / "cur", CURRENT)
    _tree(tmp_path / "old", OLD)
    monkeypatch.syspath_prepend(str(tmp_path / "cur"))
    for name in [m for m in sys.modules if m.startswith("abdemo")]:
        monkeypatch.delitem(sys.modules, name)
    import abdemo.core
    import abdemo.user
    yield str(tmp_path / "old"), abdemo.core, abdemo.user
    for name in [m for m in sys.modules if m.startswith("abdemo")]:
        del sys.modules[name]


def test_swap_puts_the_old_code_in_place_everywhere_and_back(demo):
    base, core, user = demo
    swap = ab.Swap(base, ["abdemo.core:work", "abdemo.core:K.tag", "abdemo.core:K.twice"])
    swap.use("old")
    assert user.run() == "old"  # through the name user.py imported
    assert core.K().tag() == "base"  # the old K had no tag: the inherited one runs
    assert core.K.twice(5) == 15 and core.K().twice(5) == 15  # still a staticmethod
    swap.use("new")
    assert user.run() == "new" and core.K().tag() == "new" and core.K.twice(5) == 10


def test_alternate_times_both_and_tells_the_slower_one(demo):
    base, core, user = demo
    seen = set()

    def step():
        seen.add(user.run())

    times = ab.alternate(step, ab.Swap(base, ["abdemo.core:work"]), number=5, rounds=4)
    assert seen == {"old", "new"} and user.run() == "new"
    assert len(times["old"]) == len(times["new"]) == 4
    s = ab.summary(times)
    assert s["old_min"] >= 0.002 and s["ratio"] < 0.5


def test_bad_targets_are_refused(demo):
    base, _, _ = demo
    with pytest.raises(ValueError, match="module:qualname"):
        ab.Swap(base, ["abdemo.core.work"])
    with pytest.raises(ValueError, match="neither tree"):
        ab.Swap(base, ["abdemo.core:nothing"])
