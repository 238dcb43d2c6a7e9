"""torch.hub: the cache directory, state dicts fetched once into it, and models built by a repository's
``hubconf.py``.

``load_state_dict_from_url`` looks for the URL's file name in ``<hub dir>/checkpoints`` first, so a file
placed there by hand (or by PyTorch on another machine) is used without a network; only a missing file is
downloaded. Offline, the error names the URL tried and the exact path to put the file at.

``list``/``help``/``load`` read a ``hubconf.py``: from a directory (``source="local"``), or from a GitHub
repository cached as ``<hub dir>/<owner>_<name>_<ref>`` (downloaded there first when missing, which needs the
network; offline, the error says where to unpack the repository instead). ``pytorch/vision``, whose hubconf
only re-exports torchvision's model builders, is served from ``npgrad.vision.models`` when not cached.
"""
import builtins
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from urllib.parse import urlparse

__all__ = ["get_dir", "set_dir", "load_state_dict_from_url", "download_url_to_file", "list", "help", "load"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
READ_DATA_CHUNK = 128 * 1024
# repositories of these owners are trusted without asking (PyTorch's list)
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
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
                chunk = response.read(READ_DATA_CHUNK)
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
    if _is_legacy_zip(cached):
        # a checkpoint from before PyTorch 1.6 zipped by hand: one member, the pickle file itself
        import warnings
        warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in favor of default "
                      "zipfile format introduced in 1.6. Please redo torch.save() to save it in the new zipfile "
                      "format.")
        with zipfile.ZipFile(cached) as z:
            member = z.infolist()[0].filename
            z.extractall(model_dir)
        cached = os.path.join(model_dir, member)
    return load(cached, map_location=map_location, weights_only=weights_only)


def _is_legacy_zip(path):
    # PyTorch's own zip format holds several members (data.pkl, data/0, ...): a single file is a zipped legacy one
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:
        members = z.infolist()
    return len(members) == 1 and not members[0].is_dir()


# ---- hubconf.py: entrypoints of a repository ----

@contextlib.contextmanager
def _on_sys_path(folder):
    # hubconf.py imports its repository's own modules by bare name
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        sys.path.remove(folder)


def _import_hubconf(folder):
    path = os.path.join(folder, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _module_exists(name):
    if name in sys.modules:  # `torch` aliased to npgrad under `npgrad run`
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _entrypoint(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [dep for dep in getattr(module, VAR_DEPENDENCY, None) or [] if not _module_exists(dep)]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _load_local(hubconf_dir, model, *args, **kwargs):
    hubconf_dir = os.fspath(hubconf_dir)
    with _on_sys_path(hubconf_dir):
        return _entrypoint(_import_hubconf(hubconf_dir), model)(*args, **kwargs)


def _split_repo(github):
    """``owner/name[:ref]`` -> (owner, name, ref or None)."""
    head, _, ref = github.partition(":")
    if "/" not in head:
        raise ValueError(f"Invalid repository spec {github!r}: expected 'repo_owner/repo_name[:ref]'")
    owner, name = head.split("/", 1)
    return owner, name, ref or None


def _check_trusted(owner, name, cache_name, trust_repo):
    """PyTorch's trust rules: a listed, already cached or PyTorch-owned repository is trusted; ``trust_repo=True``
    adds the repository to ``<hub dir>/trusted_list``, ``False`` (or ``"check"`` when untrusted) asks first."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    listing = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(listing):
        open(listing, "a").close()
    with open(listing) as f:
        trusted = {line.strip() for line in f}
    owner_name = f"{owner}_{name}"
    known = (owner_name in trusted or os.path.isdir(os.path.join(hub_dir, cache_name))
             or owner in _TRUSTED_REPO_OWNERS)
    add = trust_repo is True
    if trust_repo is False or (trust_repo == "check" and not known):
        answer = builtins.input(f"The repository {owner_name} does not belong to the list of trusted repositories "
                                "and as such cannot be downloaded. Do you trust this repository and wish to add it "
                                "to the trusted list of repositories (y/N)?").lower()
        if answer in ("y", "yes"):
            if known:
                print("The repository is already trusted.")
            add = not known
        elif answer in ("n", "no", ""):
            raise Exception("Untrusted repository.")
        else:
            raise ValueError(f"Unrecognized response {answer}.")
    if add and owner_name not in trusted:
        with open(listing, "a") as f:
            f.write(owner_name + "\n")


def _github_dir(github, force_reload, trust_repo, verbose):
    """The folder of a GitHub repository's snapshot in the hub cache, downloaded (as GitHub's zip archive of the
    ref) when missing or when ``force_reload``."""
    owner, name, ref = _split_repo(github)
    hub_dir = get_dir()
    guessed = ref is None
    if guessed:  # the default branch: whichever of main/master is cached, else main (then master)
        cached = [r for r in ("main", "master") if os.path.isdir(os.path.join(hub_dir, f"{owner}_{name}_{r}"))]
        ref = cached[0] if cached else "main"
    cache_name = f"{owner}_{name}_{ref.replace('/', '_')}"
    repo_dir = os.path.join(hub_dir, cache_name)
    _check_trusted(owner, name, cache_name, trust_repo)
    if os.path.isdir(repo_dir) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    archive = os.path.join(hub_dir, f"{ref.replace('/', '_')}.zip")
    if verbose:
        sys.stderr.write(f'Downloading: "{url}" to {archive}\n')
    try:
        download_url_to_file(url, archive, progress=False)
    except urllib.error.HTTPError as e:
        if guessed and ref == "main" and e.code == 404:  # an older repository whose default branch is master
            return _github_dir(f"{owner}/{name}:master", force_reload, trust_repo, verbose)
        raise
    except urllib.error.URLError as e:
        raise RuntimeError(
            "It looks like there is no internet connection and the repo could not be found in the cache "
            f"({hub_dir}): downloading {url} failed ({getattr(e, 'reason', e)}). Without a network, unpack the "
            f"repository (with its {MODULE_HUBCONF}) to {repo_dir}, or load it with source='local'.") from e
    try:
        with zipfile.ZipFile(archive) as z:
            top = z.namelist()[0].split("/", 1)[0]  # GitHub's archives hold one folder, <owner>-<name>-<sha>
            for member in z.namelist():
                target = os.path.realpath(os.path.join(hub_dir, member))
                if not target.startswith(os.path.realpath(hub_dir) + os.sep):
                    raise ValueError(f"The zip archive {archive} has a member outside the hub directory: {member}")
            z.extractall(hub_dir)
        if os.path.isdir(repo_dir):
            shutil.rmtree(repo_dir)
        shutil.move(os.path.join(hub_dir, top), repo_dir)
    finally:
        os.remove(archive)
    return repo_dir


# pytorch/vision's entrypoints, as a hubconf.py file in npgrad.vision (read by path like any other)
_VISION_HUBCONF_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vision", "_hub")


def _github_hubconf(github, force_reload, trust_repo, verbose):
    owner, name, ref = _split_repo(github)
    if (owner, name) == ("pytorch", "vision") and not force_reload:
        hub_dir = get_dir()
        refs = [ref] if ref else ["main", "master"]
        if not any(os.path.isdir(os.path.join(hub_dir, f"pytorch_vision_{r.replace('/', '_')}")) for r in refs):
            with _on_sys_path(_VISION_HUBCONF_DIR):
                return _import_hubconf(_VISION_HUBCONF_DIR)
    repo_dir = _github_dir(github, force_reload, trust_repo, verbose)
    with _on_sys_path(repo_dir):
        return _import_hubconf(repo_dir)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The entrypoints (public callables) of a GitHub repository's ``hubconf.py``."""
    module = _github_hubconf(github, force_reload, trust_repo, verbose)
    return [n for n in dir(module) if callable(getattr(module, n)) and not n.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of one entrypoint of a GitHub repository's ``hubconf.py``."""
    return _entrypoint(_github_hubconf(github, force_reload, trust_repo, True), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Call entrypoint ``model`` of a ``hubconf.py`` with ``*args, **kwargs``: ``source="local"`` reads it from
    the directory ``repo_or_dir``; ``"github"`` from the cached snapshot of ``owner/name[:ref]`` (pytorch/vision,
    when not cached, from npgrad.vision.models)."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local":
        return _load_local(repo_or_dir, model, *args, **kwargs)
    module = _github_hubconf(repo_or_dir, force_reload, trust_repo, verbose)
    return _entrypoint(module, model)(*args, **kwargs)
