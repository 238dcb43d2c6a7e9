"""torch.hub's file side: the cache directory, and state dicts fetched once into it.

``load_state_dict_from_url`` looks for the URL's file name in ``<hub dir>/checkpoints`` first, so a file
placed there by hand (or by PyTorch on another machine) is used without a network; only a missing file is
downloaded. Offline, the error names the URL tried and the exact path to put the file at.
"""
import hashlib
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
from urllib.parse import urlparse

__all__ = ["get_dir", "set_dir", "load_state_dict_from_url", "download_url_to_file"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
# torchvision names its files <name>-<first hex digits of the SHA-256>.pth
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_hub_dir = None


def _torch_home():
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(
        os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``$XDG_CACHE_HOME/torch`` or
    ``~/.cache/torch`` when TORCH_HOME is unset)."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_torch_home(), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to ``dst`` through a temporary file beside it, so an interrupted download never leaves
    a partial file under the final name; ``hash_prefix`` must start the file's SHA-256 hex digest."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(dst) + ".", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(
                urllib.request.Request(url, headers={"User-Agent": "npgrad.hub"})) as response:
            total = response.headers.get("Content-Length")
            bar = _progress(int(total) if total else None) if progress else None
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                out.write(chunk)
                digest.update(chunk)
                if bar is not None:
                    bar(len(chunk))
        if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _progress(total):
    import sys
    seen = [0]

    def step(n):
        seen[0] += n
        done = f"{seen[0] / 2**20:.1f} MiB" + (f" / {total / 2**20:.1f} MiB" if total else "")
        sys.stderr.write("\r" + done)
        if total and seen[0] >= total:
            sys.stderr.write("\n")
    return step


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The object saved in the file at ``url``, read from the hub cache (downloaded there first if missing)."""
    from .serialization import load
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        import sys
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        found = HASH_REGEX.search(filename) if check_hash else None
        try:
            download_url_to_file(url, cached, found.group(1) if found else None, progress=progress)
        except urllib.error.URLError as e:
            raise RuntimeError(f"could not download {url} ({e.reason}); without a network, place that file at "
                               f"{cached} (or set TORCH_HOME / npgrad.hub.set_dir to the folder holding "
                               f"hub/checkpoints/{filename})") from e
    return load(cached, map_location=map_location, weights_only=weights_only)
