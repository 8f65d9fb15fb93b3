"""Logging to ``PANELOT_HOME/logs`` and stderr; never to stdout (it carries frames)."""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

LOG_FILE = "host.log"


def configure_logging(home: Path, *, verbose: bool = False) -> Path | None:
    """Send log records to a rotating file under ``home/logs`` and to stderr."""
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s")
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.DEBUG if verbose else logging.WARNING)
    stderr.setFormatter(formatter)
    root.addHandler(stderr)
    try:
        folder = home / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_FILE
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=5_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError as exc:
        root.warning("cannot write the log file under %s: %s", home, exc)
        return None
    handler.setFormatter(formatter)
    root.addHandler(handler)
    return path
