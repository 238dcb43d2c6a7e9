"""Every internal link of the built documentation site works when the site is opened from disk.

    python tools/check_site_links.py site             # parse the HTML: each internal link names a file
    python tools/check_site_links.py site --browser   # and open the pages in headless Chromium over file://

The first check reads each page's <a href>, <img src>, <link href> and <script src>, resolves them against
the page as a browser does and requires a file (not a directory: a file:// browser shows a folder listing
there) and, for #fragments, an element with that id. tests/docs/test_site.py runs it on every build.

--browser starts from index.html in headless Chromium (Debian's `chromium` package), driven over its
DevTools pipe, follows every link to a page of the site, and fails on a link the browser cannot load, one
that lands anywhere but a page of the site (a directory listing, an error page), a missing #fragment, or a
picture that does not render.
"""
import argparse
import fcntl
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path


class _Page(html.parser.HTMLParser):
    ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src"}

    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        value = attrs.get(self.ATTRS.get(tag, ""))
        if value is not None:
            self.links.append((tag, value))


def _parse(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _internal(url):
    parts = urllib.parse.urlsplit(url)
    return not parts.scheme and not parts.netloc  # http:, https:, mailto:, data:, //host are not ours


def broken_links(site):
    """[(page, link, why)] for every internal link of the site's pages that does not resolve to a file."""
    site = Path(site).resolve()
    pages = sorted(site.rglob("*.html"))
    parsed = {p: _parse(p) for p in pages}
    bad = []
    for page, doc in parsed.items():
        for tag, link in doc.links:
            if not _internal(link):
                continue
            parts = urllib.parse.urlsplit(link)
            if not parts.path:                      # "#fragment": this page
                target = page
            else:
                path = urllib.parse.unquote(parts.path)
                target = (site / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
                target = Path(os.path.normpath(target))
            rel = page.relative_to(site).as_posix()
            if site != target and site not in target.parents:
                bad.append((rel, link, "points outside the site"))
            elif target.is_dir() or parts.path.endswith("/"):
                bad.append((rel, link, "is a directory: a file:// browser shows a folder listing"))
            elif not target.is_file():
                bad.append((rel, link, "no such file"))
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    bad.append((rel, link, f"no element with id {parts.fragment!r} in {target.name}"))
    return bad


class _Chromium:
    """Headless Chromium over --remote-debugging-pipe: DevTools messages are NUL-terminated JSON on fds 3/4."""

    def __init__(self, exe):
        cmd_r, self._cmd_w = os.pipe()
        self._res_r, res_w = os.pipe()
        # Moved above 4 first, so placing them on 3 and 4 in the child cannot overwrite one with the other.
        hi_cmd, hi_res = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(res_w, fcntl.F_DUPFD, 10)

        def child():
            os.dup2(hi_cmd, 3)
            os.dup2(hi_res, 4)
        self._profile = tempfile.mkdtemp(prefix="npgrad-chromium-")
        self._proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--remote-debugging-pipe", f"--user-data-dir={self._profile}", "about:blank"],
            preexec_fn=child, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (cmd_r, res_w, hi_cmd, hi_res):
            os.close(fd)
        self._buf, self._id, self._session = b"", 0, None
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable")

    def _message(self, deadline):
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._res_r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium exited")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, wait_event=None, timeout=60, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self._session:
            msg["sessionId"] = self._session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline, result, seen = time.monotonic() + timeout, None, wait_event is None
        while result is None or not seen:
            m = self._message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                result = m["result"]
                if wait_event and result.get("errorText"):   # a failed navigation fires no load event
                    return result
            elif m.get("method") == wait_event:
                seen = True
        return result

    def open(self, url):
        """Load url; None when it loaded, else the browser's error text."""
        result = self.send("Page.navigate", wait_event="Page.loadEventFired", url=url)
        return result.get("errorText")

    def js(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)["result"]
        return result.get("value")

    def close(self):
        self._proc.kill()
        self._proc.wait()
        shutil.rmtree(self._profile, ignore_errors=True)


_PAGE_FACTS = """(() => ({
  url: location.href,
  generator: (document.querySelector('meta[name=generator]') || {}).content || '',
  links: Array.from(document.querySelectorAll('a[href]'), a => a.href),
  ids: Array.from(document.querySelectorAll('[id]'), e => e.id),
  badImages: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80)),
}))()"""


def browse(site, exe="chromium"):
    """Follow every internal link from index.html in headless Chromium; return ([(page, link, why)], pages seen)."""
    site = Path(site).resolve()
    root = site.as_uri() + "/"
    browser = _Chromium(exe)
    bad, facts, queue, referrers = [], {}, [root + "index.html"], {root + "index.html": "(start)"}
    try:
        while queue:
            url = queue.pop(0)
            error = browser.open(url)
            if error:
                bad.append((referrers[url], url[len(root):], f"the browser could not load it: {error}"))
                continue
            page = browser.js(_PAGE_FACTS)
            facts[url] = page
            if not page["generator"].startswith("mkdocs"):
                bad.append((referrers[url], url[len(root):], "opens something that is not a page of the site "
                            "(a directory listing or an error page)"))
                continue
            name = url[len(root):]
            bad += [(name, src, "picture does not render") for src in page["badImages"]]
            for link in page["links"]:
                if not link.startswith(root[:-1]) and link.startswith("file:"):
                    bad.append((name, link, "points outside the site"))
                if not link.startswith(root):
                    continue
                target = link.split("#", 1)[0]
                if target not in referrers:
                    referrers[target] = name
                    queue.append(target)
        # Fragments once every page is loaded: the target's ids as the browser built them.
        for url, page in facts.items():
            for link in page.get("links", []):
                if link.startswith(root) and "#" in link:
                    target, fragment = link.split("#", 1)
                    ids = facts.get(target, {}).get("ids")
                    if ids is not None and fragment and urllib.parse.unquote(fragment) not in ids:
                        bad.append((url[len(root):], link[len(root):], "no element with that id"))
    finally:
        browser.close()
    return bad, len(facts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", default="site", help="the built site (mkdocs build's site_dir)")
    parser.add_argument("--browser", action="store_true", help="also follow the links in headless Chromium")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"), help="Chromium's command")
    args = parser.parse_args(argv)
    if not (Path(args.site) / "index.html").is_file():
        parser.error(f"{args.site}/index.html not found: build the site first (mkdocs build)")
    bad = broken_links(args.site)
    pages = len(list(Path(args.site).rglob("*.html")))
    print(f"{pages} pages parsed, {len(bad)} broken internal links")
    if args.browser:
        exe = shutil.which(args.chromium)
        if exe is None:
            parser.error(f"{args.chromium!r} not found: install Chromium (apt-get install chromium) or pass --chromium")
        found, seen = browse(args.site, exe)
        print(f"{seen} pages opened in Chromium from file://, {len(found)} broken links")
        bad += found
    for page, link, why in bad:
        print(f"  {page}: {link} {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
