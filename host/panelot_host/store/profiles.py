"""Where each Chrome profile's database lives: ``PANELOT_HOME/profiles/<profileId>/``."""

from __future__ import annotations

import re
from pathlib import Path

from panelot_host.errors import InvalidParams

DEFAULT_PROFILE = "default"
DATABASE_NAME = "panelot.db"
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def database_path(home: Path, profile_id: str | None) -> Path:
    """The database file for a profile; raises ``InvalidParams`` for an unsafe profile id.

    The id comes from the extension and becomes a folder name, so only a short run of
    letters, digits, ``_`` and ``-`` is accepted (no separators, no ``..``).
    """
    profile = profile_id or DEFAULT_PROFILE
    if not _SAFE_ID.match(profile):
        raise InvalidParams(
            "invalid profileId",
            [
                {
                    "path": "$.client.profileId",
                    "message": "expected 1-64 characters of A-Z, a-z, 0-9, '_' or '-'",
                }
            ],
        )
    return home / "profiles" / profile / DATABASE_NAME
