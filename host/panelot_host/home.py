"""Where the host keeps its data: ``PANELOT_HOME``, else the platform's user data directory.

A leaf module: the command line and the installer (``install.machine``) both need it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def panelot_home(environ: Mapping[str, str]) -> Path:
    """``PANELOT_HOME``, else the platform's user data directory for Panelot."""
    configured = environ.get("PANELOT_HOME")
    if configured:
        return Path(configured).expanduser()
    # lazy: platformdirs stays off the host's start (Chrome's launch sets PANELOT_HOME)
    import platformdirs

    return Path(platformdirs.user_data_dir("panelot", appauthor=False))
