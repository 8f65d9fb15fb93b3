"""``panelot-host uninstall``: remove what the install record lists, and nothing else.

A file is removed only while it still holds what the installer wrote (its SHA-256 in the
record); a registry key only while its value is the one written; a folder only if the
installer created it and it is empty now. What is left is reported with the reason (for a
manifest, what it starts now: the user's own, put in place of Panelot's). A manifest that
``install`` refused to replace is not in the record, so it is never touched.
"""

from __future__ import annotations

from pathlib import Path

from panelot_host.install.extension import remove_copy
from panelot_host.install.machine import Machine
from panelot_host.install.ownership import describe
from panelot_host.install.plan import Change
from panelot_host.install.record import InstallRecord, load_record, save_record, sha256
from panelot_host.install.registry import Hive


def uninstall(machine: Machine, *, system: bool, dry_run: bool = False) -> list[Change]:
    """Remove what the record in the install folder lists; the record goes last.

    Raises ``RecordError`` for an unreadable record, ``OSError`` when a removal is refused.
    """
    install_dir = machine.install_dir(system)
    record = load_record(install_dir)
    changes = [_remove_file(Path(e.path), e.sha256, e.kind, dry_run) for e in record.files]
    for entry in record.keys:
        hive: Hive = "HKLM" if entry.hive == "HKLM" else "HKCU"
        changes.append(_remove_key(machine, hive, entry.key, entry.value, dry_run))
    if not system:  # the extension's copy is in this user's data folder
        changes.extend(remove_copy(machine.panelot_home, dry_run=dry_run))
    if not dry_run:
        save_record(install_dir, InstallRecord())  # before the folders: it is in one
    for folder in sorted(record.dirs, key=lambda d: len(Path(d).parts), reverse=True):
        changes.extend(_remove_dir(Path(folder), dry_run))
    return changes


def _remove_file(path: Path, digest: str, kind: str, dry_run: bool) -> Change:
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return Change("already gone", kind, str(path))
    if sha256(content) != digest:
        why = f": {describe(content)}" if kind == "manifest" else ""
        return Change(f"left (changed since install{why})", kind, str(path))
    if not dry_run:
        path.unlink()
    return Change("removed", kind, str(path))


def _remove_key(machine: Machine, hive: Hive, key: str, value: str, dry_run: bool) -> Change:
    where = f"{hive}\\{key}"
    current = machine.registry.get_default(hive, key)
    if current is None:
        return Change("already gone", "registry key", where)
    if current != value:
        return Change(f"left (now points to {current})", "registry key", where)
    if not dry_run:
        machine.registry.delete_key(hive, key)
    return Change("removed", "registry key", where)


def _remove_dir(folder: Path, dry_run: bool) -> list[Change]:
    if not folder.is_dir() or any(folder.iterdir()):
        return []  # gone already, or holds something the installer did not write
    if not dry_run:
        folder.rmdir()
    return [Change("removed", "folder", str(folder))]
