"""Logging to ``PANELOT_HOME/logs`` and stderr; never to stdout (it carries frames)."""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from panelot_host.credentials.mask import SecretMask
from panelot_host.private_files import private_dir, private_file, tighten_existing

_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
LOG_FILE = "host.log"
BACKUPS = 3


def configure_logging(
    home: Path, *, verbose: bool = False, mask: SecretMask | None = None
) -> Path | None:
    """Send log records to a rotating file under ``home/logs`` and to stderr, each record
    (traceback included) passed through ``mask``."""
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    formatter = MaskingFormatter(_FORMAT, mask or SecretMask())
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.DEBUG if verbose else logging.WARNING)
    stderr.setFormatter(formatter)
    root.addHandler(stderr)
    try:
        folder = private_dir(home / "logs", top=home)
        path = private_file(folder / LOG_FILE)
        for rotated in range(1, BACKUPS + 1):
            tighten_existing(folder / f"{LOG_FILE}.{rotated}")
        handler = _PrivateRotatingFileHandler(
            path, maxBytes=5_000_000, backupCount=BACKUPS, encoding="utf-8"
        )
    except OSError as exc:
        root.warning("cannot write the log file under %s: %s", home, exc)
        return None
    handler.setFormatter(formatter)
    root.addHandler(handler)
    return path


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Each new log file (the first, and the one after every rollover) is created 0600."""

    def _open(self):  # type: ignore[no-untyped-def]
        private_file(Path(self.baseFilename))
        return super()._open()


class MaskingFormatter(logging.Formatter):
    """Formats a record, then masks every secret the host knows out of the whole text."""

    def __init__(self, fmt: str, mask: SecretMask) -> None:
        super().__init__(fmt)
        self._mask = mask

    def format(self, record: logging.LogRecord) -> str:
        return self._mask.mask(super().format(record))
