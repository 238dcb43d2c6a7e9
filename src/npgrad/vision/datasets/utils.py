"""Downloading, checksumming and unpacking dataset files (torchvision.datasets.utils' helpers).

Nothing here needs network access to be imported; a failed download raises ``DownloadError``, which is
both a ``RuntimeError`` (what npgrad promises) and a ``urllib.error.URLError`` (what code written for
torchvision catches to try the next mirror), and names the URL and the file it was meant to become.
"""
import bz2
import gzip
import hashlib
import lzma
import os
import shutil
import sys
import tarfile
import urllib.error
import urllib.request
import zipfile

__all__ = ["DownloadError", "calculate_md5", "check_md5", "check_integrity", "download_url",
           "download_and_extract_archive", "extract_archive", "verify_str_arg", "iterable_to_str",
           "list_dir", "list_files"]

USER_AGENT = "pytorch/vision"
_BLOCK = 1 << 20


class DownloadError(RuntimeError, urllib.error.URLError):
    """A file could not be fetched; ``reason`` is what went wrong, ``url`` what was tried."""

    def __init__(self, message, url=None, reason=None):
        RuntimeError.__init__(self, message)
        self.reason = reason if reason is not None else message
        self.url = url
        self._message = message

    def __str__(self):
        return self._message


def calculate_md5(fpath, chunk_size=1024 * 1024):
    digest = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        while True:
            block = f.read(chunk_size)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    """True when ``fpath`` is a file and, if ``md5`` is given, has that checksum."""
    if not os.path.isfile(fpath):
        return False
    return True if md5 is None else check_md5(fpath, md5)


def iterable_to_str(iterable):
    return ", ".join(f"'{item}'" for item in iterable)


def verify_str_arg(value, arg=None, valid_values=None, custom_msg=None):
    if not isinstance(value, str):
        where = "" if arg is None else f" for argument {arg}"
        raise ValueError(f"Expected type str{where}, but got type {type(value)}.")
    if valid_values is not None and value not in valid_values:
        if custom_msg is None:
            custom_msg = (f"Unknown value '{value}' for argument {arg}. "
                          f"Valid values are {{{iterable_to_str(valid_values)}}}.")
        raise ValueError(custom_msg)
    return value


def list_dir(root, prefix=False):
    root = os.path.expanduser(root)
    names = [n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n))]
    return [os.path.join(root, n) for n in names] if prefix else names


def list_files(root, suffix, prefix=False):
    root = os.path.expanduser(root)
    names = [n for n in os.listdir(root) if os.path.isfile(os.path.join(root, n)) and n.endswith(suffix)]
    return [os.path.join(root, n) for n in names] if prefix else names


def _fetch(url, fpath, progress=True, timeout=None):
    """Stream ``url`` into ``fpath`` through ``fpath + '.part'``, renamed only once complete."""
    # urllib.request.urlopen follows redirects itself (up to its own limit of 10 hops), so
    # max_redirect_hops only bounds torchvision's manual resolution and is not needed here.
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    part = fpath + ".part"
    from ...utils._progress import progress_bar
    try:
        opened = urllib.request.urlopen(request) if timeout is None else urllib.request.urlopen(request, timeout=timeout)
        with opened as response, open(part, "wb") as out:
            size = response.headers.get("Content-Length") if getattr(response, "headers", None) else None
            bar = progress_bar(int(size) if size and size.isdigit() else None, os.path.basename(fpath),
                               "auto" if progress else "off", unit="B")
            try:
                for block in iter(lambda: response.read(_BLOCK), b""):
                    out.write(block)
                    bar.update(len(block))
            finally:
                bar.close()
        os.replace(part, fpath)
    finally:
        if os.path.exists(part):
            os.remove(part)


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Fetch ``url`` into ``root/filename`` (the URL's base name by default) unless a verified copy is there.

    Raises ``DownloadError`` when the server cannot be reached, and ``RuntimeError("File not found or
    corrupted.")`` when what arrived does not match ``md5``.
    """
    root = os.path.expanduser(os.fspath(root))
    filename = os.path.basename(url) if not filename else os.fspath(filename)
    fpath = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    print(f"Downloading {url} to {fpath}", file=sys.stderr)
    try:
        _fetch(url, fpath)
    except (urllib.error.URLError, OSError) as e:
        reason = e.reason if isinstance(e, urllib.error.URLError) else e
        if isinstance(e, urllib.error.HTTPError):
            reason = f"HTTP {e.code} {e.reason}"
        expect = f" (md5 {md5})" if md5 else ""
        raise DownloadError(f"Could not download {url} ({reason}). Without network access, place the file "
                            f"{fpath}{expect} there by hand.", url=url, reason=reason) from None
    if not check_integrity(fpath, md5):
        raise RuntimeError("File not found or corrupted.")


# suffix -> how to open a single compressed file
_COMPRESSORS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
# archive suffixes, longest first so ".tar.gz" wins over ".gz"
_ARCHIVES = [(".tar.bz2", "tar"), (".tar.gz", "tar"), (".tar.xz", "tar"), (".tbz2", "tar"), (".tbz", "tar"),
             (".tgz", "tar"), (".tar", "tar"), (".zip", "zip")]


def _kind(path):
    name = os.fspath(path).lower()
    for suffix, kind in _ARCHIVES:
        if name.endswith(suffix):
            return suffix, kind
    for suffix in _COMPRESSORS:
        if name.endswith(suffix):
            return suffix, "compressed"
    known = [s for s, _ in _ARCHIVES] + list(_COMPRESSORS)
    raise RuntimeError(f"Unknown compression or archive type: '{os.path.splitext(name)[1]}'.\n"
                       f"Known suffixes are: {iterable_to_str(sorted(known))}.")


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Unpack a tar/zip archive into ``to_path`` (default: its folder), or decompress a .gz/.bz2/.xz file.

    Returns the folder an archive went into, or the path of the decompressed file.
    """
    from_path = os.fspath(from_path)
    to_path = os.path.dirname(from_path) if to_path is None else os.fspath(to_path)
    suffix, kind = _kind(from_path)
    if kind == "tar":
        with tarfile.open(from_path, "r:*") as tar:
            tar.extractall(to_path, filter="data")
        result = to_path
    elif kind == "zip":
        with zipfile.ZipFile(from_path) as archive:
            archive.extractall(to_path)
        result = to_path
    else:
        result = os.path.join(to_path, os.path.basename(from_path)[:-len(suffix)])
        with _COMPRESSORS[suffix](from_path, "rb") as src, open(result, "wb") as dst:
            shutil.copyfileobj(src, dst, _BLOCK)
    if remove_finished:
        os.remove(from_path)
    return result


def download_and_extract_archive(url, download_root, extract_root=None, filename=None, md5=None,
                                 remove_finished=False):
    download_root = os.path.expanduser(os.fspath(download_root))
    extract_root = download_root if extract_root is None else os.fspath(extract_root)
    filename = os.path.basename(url) if not filename else os.fspath(filename)
    download_url(url, download_root, filename, md5)
    archive = os.path.join(download_root, filename)
    print(f"Extracting {archive} to {extract_root}", file=sys.stderr)
    extract_archive(archive, extract_root, remove_finished)
