"""What an install wrote, kept so that ``uninstall`` removes exactly that and nothing else.

The record lives beside the wrapper (``install-record.json`` in the install folder). Each
file is kept with the SHA-256 of the content the installer wrote: a file changed since
(by the user, or by another installer) is left in place. Each registry key is kept with
the value written; each folder the installer had to create is kept so that it can be
removed again when it is empty.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import msgspec

RECORD_NAME = "install-record.json"


class FileEntry(msgspec.Struct, frozen=True):
    path: str
    sha256: str
    kind: str  # "wrapper" | "manifest"


class KeyEntry(msgspec.Struct, frozen=True):
    hive: str  # "HKCU" | "HKLM"
    key: str
    value: str


class InstallRecord(msgspec.Struct, frozen=True):
    version: int = 1
    files: list[FileEntry] = msgspec.field(default_factory=list)
    keys: list[KeyEntry] = msgspec.field(default_factory=list)
    dirs: list[str] = msgspec.field(default_factory=list)

    def merged(self, other: InstallRecord) -> InstallRecord:
        """This record updated with ``other`` (a later install wins for the same path/key)."""
        files = {entry.path: entry for entry in self.files}
        files.update((entry.path, entry) for entry in other.files)
        keys = {(entry.hive, entry.key.lower()): entry for entry in self.keys}
        keys.update(((entry.hive, entry.key.lower()), entry) for entry in other.keys)
        dirs = list(dict.fromkeys([*self.dirs, *other.dirs]))
        return InstallRecord(files=list(files.values()), keys=list(keys.values()), dirs=dirs)

    @property
    def empty(self) -> bool:
        return not (self.files or self.keys or self.dirs)


class RecordError(ValueError):
    """The install record cannot be read (the message says where it is)."""


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def load_record(install_dir: Path) -> InstallRecord:
    """The record in ``install_dir``; an empty one when there is none.

    Raises:
        RecordError: the file exists but is not a record.
    """
    path = install_dir / RECORD_NAME
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return InstallRecord()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc}") from exc
    try:
        return msgspec.json.decode(content, type=InstallRecord)
    except msgspec.DecodeError as exc:
        raise RecordError(f"{path} is not an install record: {exc}") from exc


def save_record(install_dir: Path, record: InstallRecord) -> Path:
    """Write the record atomically (owner-only); remove the file for an empty record."""
    path = install_dir / RECORD_NAME
    if record.empty:
        path.unlink(missing_ok=True)
        return path
    install_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode(record), indent=2) + b"\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path
