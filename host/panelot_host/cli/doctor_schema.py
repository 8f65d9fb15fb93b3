"""``doctor``'s check of each profile database's schema against this host's: a database
that will migrate at the next start, one written by a newer Panelot (which this host
refuses), and copies left from a migration that did not finish (``store.backup``)."""

from __future__ import annotations

from pathlib import Path

from panelot_host.install.diagnose import Finding
from panelot_host.store.backup import backup_version, leftover_backups
from panelot_host.store.inspect import inspect_database, profile_databases
from panelot_host.store.migrate import newest_version

CHECK = "database schema"


def check_schemas(home: Path) -> list[Finding]:
    """One finding per profile database whose schema is not this host's, and per copy
    kept from an unfinished migration; nothing when all is current."""
    newest = newest_version()
    findings: list[Finding] = []
    for path in profile_databases(home):
        version = inspect_database(path).schema_version
        if version is not None and version != newest:
            findings.append(_version_finding(path, version, newest))
        findings += [_backup_finding(path, backup) for backup in leftover_backups(path)]
    return findings


def _version_finding(path: Path, version: int, newest: int) -> Finding:
    if version > newest:
        return Finding(
            CHECK,
            "problem",
            f"{path} uses schema version {version}, newer than this panelot-host knows "
            f"(up to {newest}): it was written by a newer Panelot, and this host refuses "
            "to open it (it changes nothing in it)",
            "upgrade panelot-host (e.g. 'pipx upgrade panelot-host') to the release that "
            "wrote it; or, to go back to this version, restore a copy made by it",
        )
    return Finding(
        CHECK,
        "note",
        f"{path} uses schema version {version}; this panelot-host uses {newest}: it "
        "migrates the next time the side panel connects, keeping a copy of it beside it "
        "until the migration commits",
    )


def _backup_finding(database: Path, backup: Path) -> Finding:
    version = backup_version(backup)
    was = f" at schema version {version}" if version is not None else ""
    return Finding(
        CHECK,
        "problem",
        f"{backup} is a copy of {database}{was}, kept because a migration did not finish "
        "(or is running now, while the host starts)",
        f"if the side panel opens and shows your threads, delete {backup}; if not, keep "
        "it, look for 'migration' in 'panelot-host logs' and report the error; to go back "
        f"to it, close the browser and copy it over {database} (removing {database}-wal "
        f"and {database}-shm) with the release that wrote it",
    )
