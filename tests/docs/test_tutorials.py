"""The tutorials in docs/tutorials/ are executed pages: every ```python block of a page runs, in order, in
one namespace per page, and the assertions written in them must hold. The site build runs them with the
same code (tools/docs_exec.py, an mkdocs hook) and shows each block's output and figures under it; here they
run in the test suite, so a page whose code stops working fails even where mkdocs is not installed."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted((DOCS / "tutorials").glob("*.md"))


def _exec_tool():
    spec = importlib.util.spec_from_file_location("docs_exec", ROOT / "tools" / "docs_exec.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


docs_exec = _exec_tool()


def _has_matplotlib():
    return importlib.util.find_spec("matplotlib") is not None


def test_the_tutorials_are_there():
    names = {p.stem for p in PAGES}
    assert {"neuron", "tiny-mlp", "custom-function", "higher-order", "mnist", "char-gpt"} <= names
    for page in PAGES:
        code = "".join(docs_exec.blocks(page.read_text(encoding="utf-8")))
        assert code.count("assert ") >= 2, f"{page.name}: a tutorial checks what it shows"
    plotting = [p.stem for p in PAGES if any(map(docs_exec.needs_matplotlib,
                                                 docs_exec.blocks(p.read_text(encoding="utf-8"))))]
    assert len(plotting) >= 3, plotting


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_tutorial_runs(page):
    # Without matplotlib (a plain install) the blocks that only draw are left out; the rest still run.
    skip = (lambda code: False) if _has_matplotlib() else docs_exec.needs_matplotlib
    results = docs_exec.run_page(page.read_text(encoding="utf-8"), str(page), skip=skip)
    assert any(out.strip() for _, out, _ in results), f"{page.name} prints what it computes"
    for code, out, images in results:
        if docs_exec.needs_matplotlib(code) and _has_matplotlib():
            assert len(images) >= 1 and all(png.startswith(b"\x89PNG") for png in images), code
        else:
            assert images == [], f"{page.name}: a figure drawn by a block that does not import matplotlib"


def test_render_shows_output_and_figures_under_each_block():
    text = ("intro\n\n```python\nx = 6 * 7\nprint(x)\n```\n\nmiddle\n\n```python\nassert x == 42\n```\n"
            "\nend\n")
    rendered = docs_exec.render(text, "demo.md")
    assert rendered.index("print(x)") < rendered.index('```text title="Output"\n42\n```') < rendered.index("middle")
    assert rendered.count("```text") == 1                      # a block that prints nothing gets no output block
    assert rendered.endswith("end\n")
    if _has_matplotlib():
        plot = "```python\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n```\n"
        rendered = docs_exec.render(plot, "plot.md")
        assert rendered.count("](data:image/png;base64,") == 1


def test_a_block_that_raises_fails_the_page_naming_it():
    text = "```python\nprint('before')\n```\n\n```python\nprint('partial')\n1 / 0\n```\n"
    with pytest.raises(docs_exec.BlockError, match=r"(?s)bad\.md, python block 2 raised.*ZeroDivisionError.*partial"):
        docs_exec.render(text, "bad.md")


def test_index_guide_and_api_examples_run():
    for page in [DOCS / "index.md", DOCS / "coming-from-pytorch.md", *sorted((DOCS / "api").glob("*.md"))]:
        docs_exec.run_page(page.read_text(encoding="utf-8"), str(page))


def test_the_main_entry_points_have_an_example():
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md")}
    for page, names in {"tensor": ["tensor(", "backward()"], "autograd": ["autograd.grad(", ".backward()"],
                        "nn": ["nn.Module", "nn.Linear("], "optim": ["optim.Adam(", "optim.SGD("],
                        "data": ["DataLoader("], "serialization": ["torch.save(", "torch.load("]}.items():
        code = "".join(docs_exec.blocks(pages[page]))
        assert "At a glance" in pages[page] and "assert " in code, page
        for name in names:
            assert name in code, (page, name)
