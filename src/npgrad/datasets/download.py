"""Finding dataset files on disk, and downloading them (checksummed) when they are missing.

Where files are looked for, in order:

1. ``root`` (the argument the dataset was given), when there is one;
2. the folder named by the environment variable ``NPGRAD_DATA``;
3. the cache, ``$XDG_CACHE_HOME/npgrad`` or by default ``~/.cache/npgrad``.

In each of these, the files may sit in the dataset's own subfolder (``mnist/``, ``fashion_mnist/``,
``tinyshakespeare/``...) or directly in the folder. A download goes to the dataset's subfolder
of ``root`` when one was given (as torchvision does) and of the cache otherwise.
"""
import os
import sys
import urllib.error

from ..vision.datasets.utils import _fetch
from ..vision.datasets.utils import calculate_md5 as md5sum  # one md5 helper for both

__all__ = ["DatasetNotFoundError", "cache_dir", "candidate_dirs", "find_files", "download_file", "md5sum",
           "fetch_files"]


class DatasetNotFoundError(RuntimeError):
    """Dataset files are neither on disk nor downloadable."""


def cache_dir():
    """Where npgrad keeps downloaded datasets: ``$XDG_CACHE_HOME/npgrad``, by default ``~/.cache/npgrad``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "npgrad")


def candidate_dirs(root, subdirs):
    """The folders searched for a dataset, in order, without duplicates (see the module doc)."""
    bases = []
    if root is not None:
        bases.append(os.path.expanduser(os.fspath(root)))
    env = os.environ.get("NPGRAD_DATA")
    if env:
        bases.append(os.path.expanduser(env))
    bases.append(cache_dir())
    out = []
    for base in bases:
        # The dataset's own subfolder first: a bare folder may hold another dataset's same-named files.
        for d in [os.path.join(base, s) for s in subdirs] + [base]:
            if d not in out:
                out.append(d)
    return out


def find_files(names, dirs, reject=None, notes=None):
    """The first folder of ``dirs`` that holds every file in ``names``, as ``{name: path}``, or None.

    ``names`` are the compressed names (``*.gz``); the uncompressed file (the name without ``.gz``)
    is accepted as well, since people often unpack them. ``reject(path)`` may return a reason to pass
    over a folder whose file is the wrong one (the reason is appended to ``notes``).
    """
    for d in dirs:
        found = {}
        for name in names:
            for cand in (name, name[:-3] if name.endswith(".gz") else None):
                if cand is not None and os.path.isfile(os.path.join(d, cand)):
                    found[name] = os.path.join(d, cand)
                    break
            else:
                break
        if len(found) != len(names):
            continue
        reasons = [r for r in (reject(p) for p in found.values()) if r] if reject is not None else []
        if not reasons:
            return found
        if notes is not None:
            notes.extend(reasons)
    return None


def download_file(url, dest, md5=None, progress=True, timeout=30):
    """Download ``url`` to the file ``dest``, checking its md5 when ``md5`` is given.

    The bytes arrive through ``npgrad.vision.datasets.utils``' fetcher (into ``dest + '.part'``, renamed
    once complete), and a file whose checksum is wrong is deleted, so an interrupted or corrupt download
    never leaves a file that looks valid. Raises ``OSError`` (``urllib.error.URLError``) for network
    failures and ``RuntimeError`` for a checksum mismatch.
    """
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    _fetch(url, dest, progress=progress, timeout=timeout)
    got = md5sum(dest)
    if md5 is not None and got != md5:
        _remove(dest)
        raise RuntimeError(f"checksum mismatch for {url}: md5 {got}, expected {md5}")
    return dest


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def fetch_files(dataset, resources, mirrors, root=None, subdirs=(), download=True, extra_help="", reject=None):
    """Locate the files of a dataset, downloading them if needed; returns ``{name: path}``.

    ``resources``: ``[(file name, md5), ...]``; ``mirrors``: base URLs tried in order for each file.
    When the files can be neither found nor downloaded, raises ``DatasetNotFoundError`` naming every
    folder searched, every download tried, and how to provide the files by hand.
    """
    names = [name for name, _ in resources]
    dirs = candidate_dirs(root, subdirs)
    failures = []
    found = find_files(names, dirs, reject, failures)
    if found is not None:
        return found
    if download and mirrors:
        target = os.path.join(os.path.expanduser(os.fspath(root)) if root is not None else cache_dir(),
                              subdirs[0] if subdirs else "")
        target = os.path.normpath(target)
        try:
            return _download_all(resources, mirrors, target, failures)
        except _AllMirrorsFailed:
            pass
    raise DatasetNotFoundError(_not_found_message(dataset, names, dirs, download, failures, subdirs,
                                                  extra_help))


class _AllMirrorsFailed(Exception):
    pass


def _download_all(resources, mirrors, target, failures):
    paths = {}
    for name, md5 in resources:
        dest = os.path.join(target, name)
        if os.path.isfile(dest) and (md5 is None or md5sum(dest) == md5):  # got by an earlier, partial run
            paths[name] = dest
            continue
        for base in mirrors:
            url = base.rstrip("/") + "/" + name
            try:
                print(f"Downloading {url} to {dest}", file=sys.stderr)
                download_file(url, dest, md5)
                paths[name] = dest
                break
            except (OSError, RuntimeError, ValueError) as e:
                failures.append(f"{url}: {_reason(e)}")
        else:
            raise _AllMirrorsFailed()
    return paths


def _reason(e):
    if isinstance(e, urllib.error.HTTPError):
        return f"HTTP {e.code} {e.reason}"
    if isinstance(e, urllib.error.URLError):
        return str(e.reason)
    return str(e)


def _not_found_message(dataset, names, dirs, download, failures, subdirs, extra_help):
    gz = " (or the same names without .gz)" if any(n.endswith(".gz") for n in names) else ""
    lines = [f"{dataset} not found. Looked for {', '.join(names)}{gz} in:"]
    lines += [f"  - {d}" for d in dirs]
    if not download:
        lines.append("Downloading is disabled (download=False).")
    if failures:
        lines.append("Problems:")
        lines += [f"  - {f}" for f in failures]
    sub = subdirs[0] if subdirs else ""
    lines.append(f"To provide the files by hand, put them in one of the folders above, e.g. "
                 f"{os.path.join(cache_dir(), sub)}, or point the environment variable NPGRAD_DATA at a "
                 f"folder holding them (directly or in a '{sub}' subfolder), or pass root=<folder>.")
    if extra_help:
        lines.append(extra_help)
    return "\n".join(lines)
