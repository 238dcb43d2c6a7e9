"""The documentation site builds with `mkdocs build --strict` (no broken links, no missing API references,
no page left out of the navigation), and every page in docs/ is reachable from the navigation."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def nav_pages():
    import yaml  # mkdocs' own dependency

    class Loader(yaml.SafeLoader):
        pass
    # mkdocs.yml may hold !!python tags in other projects; ours is plain YAML.
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)

    def walk(entry):
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for v in entry.values():
                yield from walk(v)
        elif isinstance(entry, list):
            for v in entry:
                yield from walk(v)
    return set(walk(config["nav"]))


def test_every_page_is_in_the_navigation():
    pytest.importorskip("yaml", reason="reading mkdocs.yml needs PyYAML (pip install -e '.[docs]')")
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    nav = nav_pages()
    assert pages - nav == set(), f"pages missing from mkdocs.yml's nav: {sorted(pages - nav)}"
    assert nav - pages == set(), f"nav entries with no page: {sorted(nav - pages)}"


def test_site_builds_strict(tmp_path):
    for name in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(name, reason="the docs site needs the docs extra: pip install -e '.[docs]'")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    pages = list(site.rglob("index.html"))
    assert len(pages) >= 20
    api = (site / "api" / "nn" / "index.html").read_text(encoding="utf-8")
    assert 'id="npgrad.nn.Module.load_state_dict"' in api      # the reference is generated from docstrings
    bench = (site / "benchmarks" / "index.html").read_text(encoding="utf-8")
    assert "npgrad/PyTorch" in bench                           # the results file is included, not linked
