"""How this host was installed, and the one command that upgrades it by the same route.

Told to the client when versions do not meet (``initialize``'s refusal) and printed by
``panelot-host doctor``. Decided from where the package lives and from ``sys.prefix``:

- a clone (the package sits in ``<clone>/host/panelot_host`` beside ``install/install.sh``,
  an editable install): ``cd <clone> && git pull && bash install/install.sh``;
- a pipx venv (``.../pipx/venvs/<name>``): ``pipx upgrade panelot-host``;
- a uv tool (``.../uv/tools/<name>``): ``uv tool upgrade panelot-host``;
- anything else (pip into some environment): ``<python> -m pip install --upgrade panelot-host``.
"""

from __future__ import annotations

import itertools
import shlex
import sys
from pathlib import Path
from typing import Final, Literal

import panelot_host

DISTRIBUTION: Final = "panelot-host"
"""The package's name on the index, as pipx and uv name the tool."""

Route = Literal["clone", "pipx", "uv", "pip"]


def install_route(prefix: Path, package_dir: Path) -> Route:
    """The way the host at ``package_dir``, run by the Python at ``prefix``, was installed."""
    if clone_root(package_dir) is not None:
        return "clone"
    parts = prefix.parts
    if _follows(parts, "pipx", "venvs"):
        return "pipx"
    if _follows(parts, "uv", "tools"):
        return "uv"
    return "pip"


def upgrade_command(
    prefix: Path | None = None, package_dir: Path | None = None, python: str | None = None
) -> str:
    """The command that upgrades this host the way it was installed (defaults: this process)."""
    prefix = prefix if prefix is not None else Path(sys.prefix)
    package_dir = package_dir if package_dir is not None else Path(panelot_host.__file__).parent
    match install_route(prefix, package_dir):
        case "clone":
            root = clone_root(package_dir)
            return f"cd {shlex.quote(str(root))} && git pull && bash install/install.sh"
        case "pipx":
            return f"pipx upgrade {DISTRIBUTION}"
        case "uv":
            return f"uv tool upgrade {DISTRIBUTION}"
        case "pip":
            python = python or sys.executable or "python3"
            return f"{shlex.quote(python)} -m pip install --upgrade {DISTRIBUTION}"


def clone_root(package_dir: Path) -> Path | None:
    """The repository the package is run from (an editable install of a clone), or None."""
    if package_dir.parent.name != "host":
        return None
    root = package_dir.parent.parent
    return root if (root / "install" / "install.sh").is_file() else None


def _follows(parts: tuple[str, ...], first: str, second: str) -> bool:
    """Whether ``first`` is directly followed by ``second`` in ``parts``."""
    return any(a == first and b == second for a, b in itertools.pairwise(parts))
