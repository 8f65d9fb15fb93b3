"""A profile's store as a host process holds it: the writer lease, then the database.

Opened without an event loop: synchronously by the prelude (``server.prelude``), in a
worker thread by ``Host.open_profile``; either way the same steps, in the same order.
"""

from __future__ import annotations

import logging
from pathlib import Path

from panelot_host.errors import StartupError
from panelot_host.private_files import private_dir
from panelot_host.store.db import Database
from panelot_host.store.lease import WriterLease
from panelot_host.store.profiles import database_path

log = logging.getLogger(__name__)


class OpenedStore:
    """One profile's database, opened and migrated, under its writer lease."""

    def __init__(self, profile_id: str | None, db: Database, lease: WriterLease) -> None:
        self.profile_id = profile_id
        self.db = db
        self.lease = lease

    def close(self) -> None:
        """Close the database (checkpointing it), then give up the lease."""
        try:
            self.db.close()
        finally:
            self.lease.release()


def open_store(home: Path, profile_id: str | None, *, lease_wait_s: float) -> OpenedStore:
    """Take the profile's writer lease (waiting up to ``lease_wait_s``) and open its
    database, creating or migrating it; nothing stays taken when this raises.

    Raises:
        LeaseUnavailable: another process holds the lease (a ``StartupError``).
        SchemaTooNew: the database was written by a newer Panelot (a ``StartupError``).
        MigrationFailed: a migration failed; the message names the copy kept from before
            (a ``StartupError``).
    """
    path = database_path(home, profile_id)
    private_dir(path.parent, top=home)  # every conversation is in there
    lease = WriterLease(path, wait_s=lease_wait_s)
    lease.acquire()
    try:
        db = Database.open(path)
    except StartupError as exc:  # too new, or a migration failed: kept in the log
        log.error("cannot open the profile store %s: %s", path, exc)
        lease.release()
        raise
    except BaseException:
        lease.release()
        raise
    log.info("opened profile store %s", path)
    return OpenedStore(profile_id, db, lease)
