"""A machine in a temporary folder: home, PANELOT_HOME and file-system root."""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import Any

from panelot_host.cli.install import run_install
from panelot_host.install.locations import Platform
from panelot_host.install.machine import Machine
from panelot_host.install.registry import RecordingRegistry

WINDOWS_PYTHON = Path("C:/Python311/python.exe")


def machine(
    tmp: Path,
    platform: Platform = "linux",
    *,
    admin: bool = False,
    on_path: tuple[str, ...] = (),
    python: Path | None = None,
    registry: RecordingRegistry | None = None,
) -> Machine:
    import sys

    (tmp / "home").mkdir(exist_ok=True)
    (tmp / "root").mkdir(exist_ok=True)
    return Machine(
        platform=platform,
        home=tmp / "home",
        panelot_home=tmp / "home" / "panelot-data",
        python=python or (WINDOWS_PYTHON if platform == "win32" else Path(sys.executable)),
        root=tmp / "root",
        program_data=tmp / "ProgramData",
        is_admin=admin,
        which=lambda name: f"/usr/bin/{name}" if name in on_path else None,
        registry=registry if registry is not None else RecordingRegistry(),
    )


def install_options(**given: Any) -> argparse.Namespace:
    values: dict[str, Any] = {
        "browser": None,
        "system": False,
        "user_data_dir": None,
        "extension_id": [],
        "dry_run": False,
        "doctor": False,
        "force": False,
    }
    values.update(given)
    return argparse.Namespace(**values)


def install(m: Machine, **given: Any) -> tuple[int, str]:
    out = io.StringIO()
    status = run_install(install_options(**given), machine=m, out=out, environ={})
    return status, out.getvalue()
