"""The SQLite connection, its durability settings and the one transaction helper.

One ``Database`` per profile database. The host runs a single writer per database (see
``lease.py``), so one connection serves both reads and writes; WAL lets other processes
(``doctor``, a second host waiting for the lease) read meanwhile.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from panelot_host.errors import InvalidState, MigrationFailed, StoreError
from panelot_host.private_files import private_dir, private_file, tighten_existing
from panelot_host.store.backup import take_backup
from panelot_host.store.migrate import (
    Migration,
    apply_migrations,
    load_migrations,
    newest_version,
    refuse_too_new,
    schema_version,
)

BUSY_TIMEOUT_MS = 5000


class Database:
    """A migrated SQLite database in WAL mode with ``synchronous=FULL``.

    Acknowledged commits survive a process kill and a power loss: WAL with FULL syncs the
    log on every commit (and ``fullfsync`` on macOS, where plain fsync does not reach the
    platter).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path | None) -> None:
        self._conn = conn
        self.path = path
        self._in_transaction = False

    @classmethod
    def open(cls, path: Path | str) -> Database:
        """Open (creating if needed) and migrate the database at ``path``; a database that
        holds data is copied beside itself before it migrates (``store.backup``).

        Raises ``SchemaTooNew`` when the file was written by a newer Panelot (its bytes are
        left as they were), ``MigrationFailed`` when a migration fails (the message names
        the copy kept from before).
        """
        target = Path(path)
        private_dir(target.parent)
        migrations = load_migrations()
        if target.exists():
            _refuse_too_new(target, newest_version(migrations))
        private_file(target)  # before SQLite creates -wal and -shm with its mode
        for suffix in ("-wal", "-shm"):
            tighten_existing(Path(f"{target}{suffix}"))
        conn = _connect(str(target))
        try:
            _migrate(conn, target, migrations)
        except BaseException:
            conn.close()
            raise
        return cls(conn, target)

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, for reads; writes go through ``transaction()``."""
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one ``BEGIN IMMEDIATE`` transaction; commit, or roll back on error.

        Raises ``InvalidState`` when nested: every domain change and its receipt share exactly
        one transaction, so a nested call is a bug to be seen, not silently merged. Raises
        ``StoreError`` when COMMIT itself fails (busy, disk full, I/O error, a deferred
        constraint): the transaction is rolled back, nothing of it is stored, and the next
        transaction starts normally.
        """
        if self._in_transaction:
            raise InvalidState("nested store transaction")
        self._in_transaction = True
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._roll_back()
                raise
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._roll_back()
                raise StoreError(
                    f"the change could not be saved ({exc}); nothing of it was stored"
                ) from exc
        finally:
            self._in_transaction = False

    @contextmanager
    def joining(self) -> Iterator[sqlite3.Connection]:
        """Run the block in the transaction already open (its commit or rollback is the
        opener's), else in a new one: for writes that may ride along a command's unit or
        stand alone (caches, the seq ceiling)."""
        if self._in_transaction:
            yield self._conn
        else:
            with self.transaction() as conn:
                yield conn

    def _roll_back(self) -> None:
        """Roll back what is open; SQLite may already have rolled back by itself (a full
        disk or an I/O error ends the transaction), which is not a second error."""
        if self._conn.in_transaction:
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        return self._in_transaction

    def close(self) -> None:
        """Checkpoint the WAL where possible and close."""
        with suppress(sqlite3.Error):
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self._conn.close()


def _refuse_too_new(path: Path, newest: int) -> None:
    """Raise ``SchemaTooNew`` for a database newer than ``newest``. A read-only look: a
    read-write connection would switch the file to WAL, and closing it would checkpoint a
    newer host's WAL into it."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)) as peek:
        refuse_too_new(peek, newest)


def _migrate(conn: sqlite3.Connection, path: Path, migrations: list[Migration]) -> None:
    """Apply the pending migrations, with a copy of the database kept until they commit
    (none for a new, empty database)."""
    current = schema_version(conn)
    if current == 0 or current >= newest_version(migrations):
        apply_migrations(conn, migrations=migrations)
        return
    backup = take_backup(conn, path, current)
    try:
        apply_migrations(conn, migrations=migrations)
    except MigrationFailed as exc:
        raise MigrationFailed(
            f"{exc}. The database was at schema version {current}; a copy of it as it was "
            f"before migrating is kept at {backup}. Keep that copy, and report this error "
            "(panelot-host doctor shows it until it is removed)"
        ) from exc
    backup.unlink()


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    if sys.platform == "darwin":
        conn.execute("PRAGMA fullfsync = ON")
        conn.execute("PRAGMA checkpoint_fullfsync = ON")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn
