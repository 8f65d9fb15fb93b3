"""The extension the host carries, and its copy under the user's data folder.

A wheel carries the extension in ``panelot_host/extension/`` (the build hook puts it
there); a clone of the repository has it in ``extension-shim/``. A browser loads the copy
``PANELOT_HOME/extension/``: its path stays the same across upgrades, so Chrome's "Load
unpacked" survives them, and it is refreshed whenever the host carries other files.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path, PurePosixPath

import msgspec

import panelot_host
from panelot_host.install.diagnose import Finding
from panelot_host.install.extension_files import ExtensionIncomplete, extension_files
from panelot_host.install.plan import Change
from panelot_host.private_files import private_dir, private_file, tighten_existing

COPY_FOLDER = "extension"
"""The copy's folder under ``PANELOT_HOME``."""
STAMP_FILE = "extension.json"
"""Beside the copy: what the copy holds (a file inside would be part of the extension)."""


class ExtensionStamp(msgspec.Struct, frozen=True):
    """What a copy of the extension holds: its manifest's version and a digest of its files."""

    version: str
    digest: str


class CopiedExtension(msgspec.Struct, frozen=True):
    path: Path
    stamp: ExtensionStamp
    refreshed: bool  # False: the copy already held these files


def bundled_extension(package: Path | None = None) -> Path:
    """The extension's folder that came with this host (wheel, else the clone), or with the
    package in the folder ``package``.

    Raises:
        ExtensionIncomplete: neither has one.
    """
    package = package or Path(panelot_host.__file__).resolve().parent
    for folder in (package / "extension", package.parents[1] / "extension-shim"):
        if (folder / "manifest.json").is_file():
            return folder
    raise ExtensionIncomplete(
        f"this panelot-host ({package}) carries no extension: install the wheel, which "
        "holds it, or load extension-shim/ from a clone of the repository"
    )


def stamp_of(source: Path) -> ExtensionStamp:
    """The version and file digest of the extension in ``source``.

    Raises:
        ExtensionIncomplete: ``source`` lacks a file the extension needs.
    """
    digest = hashlib.sha256()
    for relative in extension_files(source):
        digest.update(relative.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256((source / relative).read_bytes()).digest())
    return ExtensionStamp(version=manifest_version(source), digest=digest.hexdigest())


def manifest_version(folder: Path) -> str:
    """The ``version`` of ``folder/manifest.json`` ("unknown" when unreadable)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        return "unknown"
    version = manifest.get("version") if isinstance(manifest, dict) else None
    return version if isinstance(version, str) else "unknown"


def copied_stamp(home: Path) -> ExtensionStamp | None:
    """What the copy under ``home`` holds, or None when there is no readable copy."""
    try:
        raw = (home / STAMP_FILE).read_bytes()
        stamp = msgspec.json.decode(raw, type=ExtensionStamp)
    except (OSError, msgspec.ValidationError, msgspec.DecodeError):
        return None
    return stamp if (home / COPY_FOLDER / "manifest.json").is_file() else None


def copy_extension(source: Path, home: Path) -> CopiedExtension:
    """Make ``home/extension`` hold exactly the extension in ``source``.

    The new files are written beside the copy and swapped in, so a failure leaves the
    previous copy whole. Nothing is written when the copy already matches.

    Raises:
        ExtensionIncomplete: ``source`` lacks a file the extension needs.
        OSError: the copy cannot be written.
    """
    stamp = stamp_of(source)
    target = home / COPY_FOLDER
    if copied_stamp(home) == stamp and _holds(target, stamp):
        return CopiedExtension(path=target, stamp=stamp, refreshed=False)
    private_dir(home)
    fresh = home / f"{COPY_FOLDER}.new"
    stale = home / f"{COPY_FOLDER}.old"
    for leftover in (fresh, stale):
        shutil.rmtree(leftover, ignore_errors=True)
    private_dir(fresh)  # the data folder is the user's only: the copy too
    for relative in extension_files(source):
        _copy_file(source, fresh, relative)
    if target.exists():
        target.rename(stale)
    fresh.rename(target)
    shutil.rmtree(stale, ignore_errors=True)
    private_file(home / STAMP_FILE).write_bytes(msgspec.json.encode(stamp))
    return CopiedExtension(path=target, stamp=stamp, refreshed=True)


def _holds(folder: Path, stamp: ExtensionStamp) -> bool:
    """Whether ``folder`` holds exactly the files ``stamp`` names (none changed by hand)."""
    try:
        return stamp_of(folder).digest == stamp.digest
    except (ExtensionIncomplete, OSError):
        return False


def _copy_file(source: Path, target: Path, relative: PurePosixPath) -> None:
    destination = target.joinpath(*relative.parts)
    private_dir(destination.parent)
    shutil.copyfile(source.joinpath(*relative.parts), destination)
    tighten_existing(destination)


def remove_copy(home: Path, *, dry_run: bool = False) -> list[Change]:
    """Remove the copy under ``home`` while it holds the files its stamp names (one changed
    by hand is left, and said)."""
    stamp = copied_stamp(home)
    target = home / COPY_FOLDER
    if stamp is None:
        return []
    if not _holds(target, stamp):
        return [Change("left (changed since install)", "extension", str(target))]
    if not dry_run:
        shutil.rmtree(target)
        (home / STAMP_FILE).unlink()
    return [Change("removed", "extension", str(target))]


def diagnose_copy(home: Path, source: Path | None = None) -> list[Finding]:
    """``doctor``'s finding on the extension's folder under ``home``: current, missing (a
    note: a clone loads ``extension-shim/``), or older than the extension this host carries
    (``source``, by default ``bundled_extension()``)."""
    reload = "press the extension's reload button in chrome://extensions"
    try:
        carried = stamp_of(source or bundled_extension())
    except (ExtensionIncomplete, OSError) as exc:
        return [Finding("extension", "note", f"this host carries no usable extension: {exc}")]
    target = home / COPY_FOLDER
    copied = copied_stamp(home)
    if copied is None:
        return [
            Finding(
                "extension",
                "note",
                f"no copy in {target} yet (a clone can load extension-shim/ itself)",
                fix="panelot-host extension path, then 'Load unpacked' the folder it prints",
            )
        ]
    if copied == carried and _holds(target, carried):
        return [Finding("extension", "ok", f"{carried.version} in {target}, as this host carries")]
    differs = (
        f"holds extension {copied.version}, this host carries {carried.version}"
        if copied.version != carried.version
        else f"holds other files than the extension {carried.version} this host carries"
    )
    return [
        Finding(
            "extension",
            "problem",
            f"{target} {differs}",
            fix=f"panelot-host extension path, then {reload}",
        )
    ]
