"""``torch.torch_version``: the version string ``torch.__version__`` is, and how it compares.

``npgrad.__version__`` (so ``torch.__version__`` under ``npgrad run`` or ``import npgrad as torch``) is the
PyTorch release whose API npgrad implements, with npgrad's own version as its local part:
``"2.13.0+npgrad.0.1.0"``. Programs and libraries that branch on ``torch.__version__ >= "2.0"`` or
``packaging.version.parse(torch.__version__)`` then take PyTorch 2.13's branch, which is the API they get.
npgrad's own release is ``NPGRAD_VERSION`` here (also ``npgrad.version.npgrad_version``); the command line's
``npgrad --version`` is the place that reports it.

``TorchVersion`` is a ``str`` that compares by PEP 440 ordering (release, pre/post/dev, local) against strings,
and against tuples or lists of parts (``>= (2, 1)``). A string that is no version compares as a string, as
PyTorch's does. Parsing is done here (no ``packaging`` import: npgrad's core needs NumPy only).
"""
import re
from collections.abc import Iterable

__all__ = ["TorchVersion"]

NPGRAD_VERSION = "0.1.0"
PYTORCH_API_VERSION = "2.13.0"

_NUM = r"[-_.]?(\d*)"
_VERSION_PATTERN = (
    r"v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>alpha|beta|preview|pre|rc|a|b|c)" + _NUM.replace("(", "(?P<pre_n>", 1) + ")?"
    r"(?:-(?P<post_implicit>\d+)|[-_.]?(?P<post>post|rev|r)" + _NUM.replace("(", "(?P<post_n>", 1) + ")?"
    r"(?:[-_.]?(?P<dev>dev)" + _NUM.replace("(", "(?P<dev_n>", 1) + ")?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?")
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


class _NotAVersion(Exception):
    pass


def _sort_key(text):
    """A tuple that orders versions as PEP 440 does; raises _NotAVersion for a string that is not one."""
    # Compiled at the first comparison, not at import (~1.5 ms): re's own cache keeps it after that.
    m = re.fullmatch(_VERSION_PATTERN, text.strip(), re.IGNORECASE)
    if m is None:
        raise _NotAVersion(text)
    release = [int(p) for p in m["release"].split(".")]
    while release and release[-1] == 0:  # 2.13 == 2.13.0
        release.pop()
    has_post = m["post"] is not None or m["post_implicit"] is not None
    if m["pre"] is not None:
        pre = (_PRE_RANK[m["pre"].lower()], int(m["pre_n"] or 0))
    elif m["dev"] is not None and not has_post:
        pre = (-1, 0)  # 1.0.dev0 comes before 1.0a0
    else:
        pre = (3, 0)  # a final release comes after its pre-releases
    post = (0, int(m["post_n"] or m["post_implicit"] or 0)) if has_post else (-1, 0)
    dev = (0, int(m["dev_n"] or 0)) if m["dev"] is not None else (1, 0)
    # A local part sorts above none; a numeric segment above a lettered one.
    local = tuple((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                  for p in re.split(r"[-_.]", m["local"])) if m["local"] else ()
    return int(m["epoch"] or 0), tuple(release), pre, post, dev, local


def _comparison(name):
    str_op = getattr(str, name)
    key_op = getattr(tuple, name)

    def compare(self, other):
        if isinstance(other, str):
            text = other
        elif isinstance(other, Iterable):
            text = ".".join(str(p) for p in other)  # (2, 1) -> "2.1"
        else:
            return NotImplemented
        try:
            return key_op(_sort_key(self), _sort_key(text))
        except _NotAVersion:
            return str_op(self, other)

    compare.__name__ = name
    return compare


class TorchVersion(str):
    """A version string that compares as a version: ``v >= "2.0"``, ``v < (2, 14)``."""

    __slots__ = ()
    # != stays str's (plain string inequality), as on PyTorch's TorchVersion, which defines == only
    __eq__ = _comparison("__eq__")
    __lt__, __le__ = _comparison("__lt__"), _comparison("__le__")
    __gt__, __ge__ = _comparison("__gt__"), _comparison("__ge__")
    __hash__ = str.__hash__


__version__ = TorchVersion(f"{PYTORCH_API_VERSION}+npgrad.{NPGRAD_VERSION}")
