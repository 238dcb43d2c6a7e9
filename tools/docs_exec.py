"""Executed pages: every ```python block of a page in docs/tutorials/ or docs/api/ runs when the site builds, in order,
in one namespace per page, and the page shows what it printed (and any matplotlib figure it drew) right
under the block. A block that raises stops the build, so the site never shows code that does not run.

mkdocs loads this file as a hook (mkdocs.yml: `hooks:`); tests/docs/test_tutorials.py runs the same
`run_page`, so what the tests check is what the site shows.
"""
import base64
import contextlib
import io
import os
import re
import sys
import traceback
import warnings

# Figures are rendered to PNG; without this, pyplot would try to open a window.
os.environ.setdefault("MPLBACKEND", "Agg")

FENCE = re.compile(r"^```python\n(.*?)^```\n?", re.S | re.M)
EXECUTED = ("tutorials/", "api/")  # the API pages' examples run too


class BlockError(Exception):
    """A block of an executed page raised; the message names the page and block and holds the traceback."""


def blocks(text):
    return FENCE.findall(text)


def needs_matplotlib(code):
    return re.search(r"^\s*(import|from) matplotlib", code, re.M) is not None


def _figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    images = []
    for num in plt.get_fignums():
        fig = plt.figure(num)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
        plt.close(fig)
        images.append(buf.getvalue())
    return images


def run_page(text, name, skip=lambda code: False):
    """Run every python block of `text`; return [(code, printed output, [png bytes])], one per block.

    `skip(code)` true leaves a block out (the tests use it for plotting blocks when matplotlib is missing;
    such blocks only draw, nothing later depends on them)."""
    namespace = {"__name__": "tutorial_" + re.sub(r"\W", "_", name)}
    results = []
    for i, code in enumerate(blocks(text), 1):
        if skip(code):
            results.append((code, "", []))
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), warnings.catch_warnings():
                # A tutorial ends its plot with plt.show() for readers running it; here that is a no-op.
                warnings.filterwarnings("ignore", message=".*non-interactive.*", category=UserWarning)
                # Compiled under the page's name, so a traceback points at the page and block.
                exec(compile(code, f"{name}#block{i}", "exec"), namespace)
        except BaseException as exc:
            raise BlockError(f"{name}, python block {i} raised:\n{traceback.format_exc()}"
                             f"\nits output before that:\n{out.getvalue()}") from exc
        results.append((code, out.getvalue(), _figures()))
    return results


def _rendered(code, output, images):
    parts = ["```python\n" + code + "```\n"]
    if output.strip():
        parts.append('```text title="Output"\n' + output.rstrip("\n") + "\n```\n")
    for png in images:
        # Inline, so the page carries its pictures wherever it is opened (file://, a server, a zip).
        parts.append("![figure drawn by the code above](data:image/png;base64,"
                     + base64.b64encode(png).decode("ascii") + ")\n")
    return "\n".join(parts)


def render(text, name):
    """`text` with each python block followed by its output and figures."""
    results = iter(run_page(text, name))
    return FENCE.sub(lambda m: _rendered(*next(results)) + "\n", text)


def on_page_markdown(markdown, page, config, files):  # mkdocs hook
    if not page.file.src_uri.startswith(EXECUTED):
        return markdown
    from mkdocs.exceptions import PluginError
    try:
        return render(markdown, page.file.src_uri)
    except BlockError as exc:
        raise PluginError(str(exc)) from None
