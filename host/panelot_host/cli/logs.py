"""Logging to ``PANELOT_HOME/logs`` and stderr; never to stdout (it carries frames)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from panelot_host.private_files import private_dir, private_file, tighten_existing
from panelot_host.secret_mask import SecretMask

_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
LOG_FILE = "host.log"
BACKUPS = 3


def configure_logging(
    home: Path, *, verbose: bool = False, mask: SecretMask | None = None, rotate: bool = True
) -> Path | None:
    """Send log records to a rotating file under ``home/logs`` and to stderr, each record
    (traceback included) passed through ``mask``. With ``rotate=False`` the file is not
    rotated until ``rotate_log_file`` is called (the host's serve path: its first answers
    do not wait for ``logging.handlers``)."""
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
        handler = _rotating(path) if rotate else _UnrotatedLogFile(path, encoding="utf-8")
    except OSError as exc:
        root.warning("cannot write the log file under %s: %s", home, exc)
        return None
    handler.setFormatter(formatter)
    root.addHandler(handler)
    return path


def rotate_log_file() -> None:
    """Rotate the log file from now on (after ``configure_logging(rotate=False)``; does
    nothing otherwise)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _UnrotatedLogFile):
            rotating = _rotating(Path(handler.baseFilename))
            rotating.setFormatter(handler.formatter)
            root.addHandler(rotating)
            root.removeHandler(handler)
            handler.close()


def _rotating(path: Path) -> logging.Handler:
    # lazy: keeps logging.handlers (socket, pickle: ~5 ms) off the host's start (see rotate=)
    from panelot_host.cli.log_rotation import PrivateRotatingFileHandler

    return PrivateRotatingFileHandler(path, BACKUPS)


class _UnrotatedLogFile(logging.FileHandler):
    """The log file until ``rotate_log_file`` (it exists already, created 0600)."""


class MaskingFormatter(logging.Formatter):
    """Formats a record, then masks every secret the host knows out of the whole text."""

    def __init__(self, fmt: str, mask: SecretMask) -> None:
        super().__init__(fmt)
        self._mask = mask

    def format(self, record: logging.LogRecord) -> str:
        return self._mask.mask(super().format(record))
