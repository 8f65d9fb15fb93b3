"""Which extension origins may start the host (where it keeps its data: ``panelot_host.home``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import msgspec

ORIGINS_FILE = "allowed-origins.json"


def allowed_origins(home: Path, environ: Mapping[str, str]) -> frozenset[str]:
    """Origins the installer allowed (``PANELOT_HOME/allowed-origins.json``, a JSON list),
    plus ``PANELOT_ALLOWED_ORIGINS`` (comma-separated) for development."""
    origins: set[str] = set()
    path = home / ORIGINS_FILE
    if path.exists():
        try:
            listed = msgspec.json.decode(path.read_bytes())  # json: not on the start-up path
        except (OSError, msgspec.DecodeError):
            listed = []
        origins.update(o for o in listed if isinstance(o, str))
    extra = environ.get("PANELOT_ALLOWED_ORIGINS", "")
    origins.update(o.strip() for o in extra.split(",") if o.strip())
    return frozenset(origins)
