"""The log file's rotation (``host.log`` -> ``host.log.1`` ...), each new file 0600.

Its own module: ``logging.handlers`` imports socket and pickle (~5 ms), which the host's
first answers do not wait for (``logs.rotate_log_file``).
"""

from __future__ import annotations

import logging.handlers
from pathlib import Path

from panelot_host.private_files import private_file

MAX_BYTES = 5_000_000


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Each new log file (the first, and the one after every rollover) is created 0600;
    ``backups`` rotated files are kept (``logs.BACKUPS``: ``logs`` owns the file's names)."""

    def __init__(self, path: Path, backups: int) -> None:
        super().__init__(path, maxBytes=MAX_BYTES, backupCount=backups, encoding="utf-8")

    def _open(self):  # type: ignore[no-untyped-def]
        private_file(Path(self.baseFilename))
        return super()._open()
