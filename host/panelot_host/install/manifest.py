"""The native-messaging host manifest: built, validated, written atomically.

Chrome's rules (its native-messaging documentation): ``name`` of ``[a-z0-9._]`` without a leading,
trailing or doubled dot, equal to the file stem; ``type`` ``stdio``; ``path`` absolute
on POSIX and executable; ``allowed_origins`` exact ``chrome-extension://<id>/`` entries
with the trailing slash. Chrome reports any violation only as "Specified native messaging
host not found", so the writer refuses a manifest Chrome would refuse.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import msgspec

HOST_NAME = "com.panelot.host"
PINNED_EXTENSION_ID = "fgopaapjpackdnagfgbbdlkanlmcoohh"
"""The ID Chrome derives from the ``key`` in ``extension-shim/manifest.json`` (a test checks)."""
DESCRIPTION = "Panelot: the AI agent engine of the Panelot side panel"
_NAME = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)*$")
_EXTENSION_ID = re.compile(r"^[a-p]{32}$")
_ORIGIN = re.compile(r"^chrome-extension://([a-p]{32})/$")


class ManifestError(ValueError):
    """A manifest Chrome would refuse (the message says which rule it breaks)."""


class HostManifest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The JSON Chrome reads, field for field."""

    name: str
    description: str
    path: str
    type: str
    allowed_origins: list[str]


def extension_origin(extension_id: str) -> str:
    """``chrome-extension://<id>/`` for a 32-letter extension id (letters a-p).

    Raises:
        ManifestError: ``extension_id`` is not an extension id.
    """
    if not _EXTENSION_ID.match(extension_id):
        raise ManifestError(f"{extension_id!r} is not an extension id (32 letters a-p)")
    return f"chrome-extension://{extension_id}/"


def build_manifest(
    host_path: Path, origins: Iterable[str], *, name: str = HOST_NAME, windows: bool = False
) -> HostManifest:
    """The manifest for the executable ``host_path``, allowing exactly ``origins``.

    Raises:
        ManifestError: a bad name, a relative path (POSIX), no origin or a malformed one.
    """
    if not _NAME.match(name):
        raise ManifestError(f"host name {name!r}: only a-z, 0-9, _ and single inner dots")
    if not windows and not host_path.is_absolute():
        raise ManifestError(f"host path {host_path} must be absolute")
    allowed = sorted(set(origins))
    if not allowed:
        raise ManifestError("allowed_origins must list at least one extension origin")
    for origin in allowed:
        if not _ORIGIN.match(origin):
            raise ManifestError(f"{origin!r} is not chrome-extension://<32 letters a-p>/")
    return HostManifest(
        name=name,
        description=DESCRIPTION,
        path=str(host_path),
        type="stdio",
        allowed_origins=allowed,
    )


def manifest_bytes(manifest: HostManifest) -> bytes:
    """The file's exact content (indented JSON and a final newline)."""
    return msgspec.json.format(msgspec.json.encode(manifest), indent=2) + b"\n"


def write_manifest(directory: Path, manifest: HostManifest) -> Path:
    """Write ``<directory>/<name>.json`` atomically (readable by all, writable by the owner).

    Returns the file's path. Raises ``OSError`` when the directory cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{manifest.name}.json"
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(manifest_bytes(manifest))
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path


def read_manifest(path: Path) -> HostManifest:
    """Read a manifest written by anyone and check it as Chrome would.

    Raises:
        ManifestError: unreadable, not the expected shape, or breaking one of Chrome's rules.
    """
    try:
        manifest = msgspec.json.decode(path.read_bytes(), type=HostManifest)
    except (OSError, msgspec.DecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from exc
    if path.stem != manifest.name:
        raise ManifestError(f"{path}: the file must be named {manifest.name}.json")
    if manifest.type != "stdio":
        raise ManifestError(f"{path}: type must be 'stdio'")
    build_manifest(
        Path(manifest.path), manifest.allowed_origins, name=manifest.name, windows=os.name == "nt"
    )
    return manifest
