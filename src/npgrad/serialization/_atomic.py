"""Atomic replacement of a file: write a temporary beside it, fsync, rename over it.

Temporaries are named ``.<name>.npgrad-tmp-<pid>-<random>``, so a save killed before its rename (SIGKILL,
power loss) leaves a file that the next save to the same path recognises and removes, once it is stale:
its writer's process is gone (checked on POSIX, for writers on this machine) or it has not been written
to for ``STALE_AFTER`` seconds. A concurrent writer's live temporary is fresh and its process alive, so
it is left alone.
"""
import os
import secrets
import stat
import time

TMP_MARK = ".npgrad-tmp-"
STALE_AFTER = 60.0  # seconds without a write after which a temporary is abandoned, whoever made it


def temp_prefix(target):
    return f".{os.path.basename(target)}{TMP_MARK}"


def atomic_write(path, write, who="npgrad.save"):
    """Call ``write(binary file)`` on a temporary that then replaces ``path`` (following a symlink)."""
    path = os.fsdecode(path)
    target = os.path.realpath(path)  # write through a symlink, as open() would
    directory = os.path.dirname(target)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{who}: {path} is a directory")
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    remove_stale_temporaries(target)
    tmp = os.path.join(directory, f"{temp_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:  # an overwritten file keeps its permissions
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def remove_stale_temporaries(target, now=None):
    """Delete the abandoned temporaries of saves to ``target``; returns the names removed."""
    directory, prefix = os.path.dirname(target), temp_prefix(target)
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix)]
    except OSError:
        return []
    now = time.time() if now is None else now
    removed = []
    for n in names:
        pid = n[len(prefix):].split("-", 1)[0]
        if not pid.isdigit():
            continue
        p = os.path.join(directory, n)
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and (now - st.st_mtime > STALE_AFTER or _process_gone(int(pid))):
            try:
                os.unlink(p)
                removed.append(n)
            except OSError:
                pass
    return removed


def _process_gone(pid):
    if os.name != "posix" or pid <= 0 or pid == os.getpid():
        return False  # this process's own temporaries may belong to another thread's save: age decides
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # PermissionError: alive, someone else's
        return False
    return False


def _fsync_dir(directory):
    # Make the rename itself durable; not possible (nor needed) on every platform.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
