"""The tutorials in docs/tutorials/ are executed pages: every ```python block of a page runs, in order, in
one namespace per page, and the assertions written in them must hold. A page whose code stops working fails
here, so the site never shows code that does not run."""
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted((DOCS / "tutorials").glob("*.md"))
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(page):
    return FENCE.findall(page.read_text(encoding="utf-8"))


def test_the_tutorials_are_there():
    names = {p.stem for p in PAGES}
    assert {"neuron", "tiny-mlp", "custom-function", "higher-order", "mnist", "char-gpt"} <= names
    for page in PAGES:
        code = "".join(blocks(page))
        assert code.count("assert ") >= 2, f"{page.name}: a tutorial checks what it shows"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_tutorial_runs(page, capsys):
    namespace = {"__name__": f"tutorial_{page.stem.replace('-', '_')}"}
    for i, code in enumerate(blocks(page)):
        # Compiled under the page's name, so a failure's traceback points at the page and block.
        exec(compile(code, f"{page}#block{i + 1}", "exec"), namespace)
    assert capsys.readouterr().out.strip(), f"{page.name} prints what it computes"


def test_index_and_guide_code_runs():
    for name in ("index.md", "coming-from-pytorch.md"):
        namespace = {"__name__": "docs_page"}
        for code in blocks(DOCS / name):
            exec(compile(code, str(DOCS / name), "exec"), namespace)
