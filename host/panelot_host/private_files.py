"""Folders and files only the user can read: the data directory holds every conversation.

Directories are made 0700 and files 0600 whatever the umask, and existing ones are
tightened (an older install may have left them world-readable). SQLite creates a
database's ``-wal`` and ``-shm`` files with the database file's own permissions, so a
database created here keeps its companions private too. On Windows the user profile's
ACLs already keep the data private; ``chmod`` there only sets the read-only flag, so
nothing is changed.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
_POSIX = sys.platform != "win32"


def private_dir(path: Path, top: Path | None = None) -> Path:
    """Create ``path`` (and its parents) and make it, and each folder between ``top`` and
    it, private. Returns ``path``.

    Raises:
        OSError: a folder cannot be created.
    """
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    if not _POSIX:
        return path
    folder = path
    while True:
        _tighten(folder, DIR_MODE)
        if top is None or folder == top or folder.parent == folder:
            break
        if top not in folder.parents:
            break
        folder = folder.parent
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty if it is missing, and make it private. Returns ``path``.

    Raises:
        OSError: the file cannot be created.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    os.close(fd)
    if _POSIX:
        _tighten(path, FILE_MODE)
    return path


def tighten_existing(path: Path) -> None:
    """Make an existing file private; a missing one is not an error."""
    if _POSIX:
        with contextlib.suppress(FileNotFoundError):
            _tighten(path, FILE_MODE)


def _tighten(path: Path, mode: int) -> None:
    if path.stat().st_mode & 0o777 != mode:
        os.chmod(path, mode)
