"""The documentation site builds with `mkdocs build --strict` (no broken links, no missing API references,
no page left out of the navigation), and every page in docs/ is reachable from the navigation."""
import importlib.util
import os
import pathlib
import shutil
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


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


links = _tool("check_site_links")


_BUILD_WITHOUT_EXTRAS = """
import sys
class NoExtras:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"tensorboard", "onnx", "onnxruntime", "mpi4py", "torch", "safetensors"}:
            raise ImportError(f"{name} blocked: the docs build must need only the [docs] extra")
sys.meta_path.insert(0, NoExtras())
from mkdocs.__main__ import cli
sys.argv[0] = "mkdocs"
cli()
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for name in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(name, reason="the docs site needs the docs extra: pip install -e '.[docs]'")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    site = tmp_path_factory.mktemp("docs") / "site"
    # Built as with the [docs] extra alone: importing another extra's package (or PyTorch) fails the build.
    run = subprocess.run([sys.executable, "-c", _BUILD_WITHOUT_EXTRAS, "build", "--strict", "-d", str(site)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    return site


def test_site_builds_strict(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 20
    assert not [p for p in site.rglob("index.html") if p.parent != site]   # no directory URLs
    api = (site / "api" / "nn.html").read_text(encoding="utf-8")
    assert 'id="npgrad.nn.Module.load_state_dict"' in api      # the reference is generated from docstrings
    bench = (site / "benchmarks-log.html").read_text(encoding="utf-8")
    assert "npgrad/PyTorch" in bench and "Round 2" in bench   # the log is included from benchmarks/RESULTS.md
    tensorboard = (site / "api" / "ecosystem.html").read_text(encoding="utf-8")
    assert 'id="npgrad.utils.tensorboard.SummaryWriter.add_scalar"' in tensorboard   # read from the source


def test_tutorials_show_their_output_and_figures(site):
    figures = 0
    for page in (ROOT / "docs" / "tutorials").glob("*.md"):
        built = (site / "tutorials" / f"{page.stem}.html").read_text(encoding="utf-8")
        assert built.count(">Output</span>") >= 2, f"{page.name}: its printed output is not on the page"
        figures += built.count('src="data:image/png;base64,')
    assert figures >= 4
    for name in ("tensor", "autograd", "nn", "optim", "data", "serialization"):   # the API pages' examples
        assert ">Output</span>" in (site / "api" / f"{name}.html").read_text(encoding="utf-8"), name


def test_every_internal_link_names_a_file(site):
    assert links.broken_links(site) == []


def test_the_link_check_finds_what_a_file_browser_cannot_open(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_text('<h2 id="here">x</h2><a href="../index.html#top">up</a>')
    (tmp_path / "index.html").write_text(
        '<p id="top"></p><a href="sub/page.html#here">ok</a> <a href="https://example.org/x/">ext</a>'
        '<img src="data:image/png;base64,AAAA"> <a href="#top">self</a> <a href="sub/">dir</a>'
        '<a href="gone.html">gone</a> <a href="sub/page.html#nowhere">frag</a> <link href="../../x.css">')
    found = {(page, link): why for page, link, why in links.broken_links(tmp_path)}
    assert set(found) == {("index.html", "sub/"), ("index.html", "gone.html"),
                          ("index.html", "sub/page.html#nowhere"), ("index.html", "../../x.css")}
    assert "directory" in found["index.html", "sub/"] and "no such file" in found["index.html", "gone.html"]


def test_the_links_work_in_a_browser_opened_from_disk(site):
    exe = shutil.which(os.environ.get("CHROMIUM", "chromium"))
    if exe is None:
        pytest.skip("Chromium not installed (apt-get install chromium): the links are checked by parsing only")
    bad, seen = links.browse(site, exe)
    assert bad == []
    assert seen == len(list(site.rglob("*.html"))) - 1            # every page but 404.html is reachable


def _table_rows(text):
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|") and not set(line) <= set("|- ")]


def test_the_benchmarks_page_quotes_the_latest_results():
    """docs/benchmarks.md copies the alone ratios of RESULTS.md's newest 'where it stands' table; a new
    measurement that leaves the user page behind fails here."""
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    latest = results[results.index("where it stands"):]
    latest = latest[:latest.index("\n#")]                                      # up to its first subsection
    measured = {row[0]: row[1:4] for row in _table_rows(latest)}              # npgrad, PyTorch, median ratio
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    shown = {row[0].split("`")[1]: row[1:4] for row in _table_rows(page) if row[0].startswith("`")}
    common = set(measured) & set(shown)
    assert len(common) >= 7, (sorted(measured), sorted(shown))
    for name in common:
        assert shown[name] == measured[name], (name, shown[name], measured[name])
