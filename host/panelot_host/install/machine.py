"""The machine an install happens on: platform, folders, privileges, the registry.

Everything the installer and ``doctor`` would otherwise read from globals (``sys.platform``,
``Path.home()``, ``os.geteuid()``, ``shutil.which``, ``winreg``) is a field here, so tests run
a macOS or Windows install on Linux in a temporary home with a recording registry.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from panelot_host.home import panelot_home
from panelot_host.install.locations import (
    BROWSERS,
    EXECUTABLES,
    Platform,
    system_native_hosts_dir,
    user_data_dir,
    user_native_hosts_dir,
)
from panelot_host.install.registry import Hive, RecordingRegistry, Registry, default_registry


def _no_executable(_: str) -> str | None:
    return None


@dataclass(frozen=True)
class Machine:
    platform: Platform
    home: Path
    panelot_home: Path
    python: Path
    root: Path = Path("/")
    program_data: Path = Path("C:/ProgramData")
    is_admin: bool = False
    home_is_explicit: bool = False  # PANELOT_HOME was set (a per-user wrapper keeps it)
    which: Callable[[str], str | None] = _no_executable
    registry: Registry = field(default_factory=RecordingRegistry)

    @classmethod
    def current(cls, environ: Mapping[str, str]) -> Machine:
        """This machine, with ``PANELOT_HOME`` and ``HOME`` taken from ``environ``."""

        platform = _platform()
        home = Path(environ.get("HOME") or Path.home()) if platform != "win32" else Path.home()
        return cls(
            platform=platform,
            home=home,
            panelot_home=panelot_home(environ),
            python=Path(os.path.abspath(sys.executable)),
            program_data=Path(environ.get("PROGRAMDATA", "C:/ProgramData")),
            is_admin=_is_admin(platform),
            home_is_explicit=bool(environ.get("PANELOT_HOME")),
            which=lambda name: shutil.which(name, path=environ.get("PATH")),
            registry=default_registry(platform),
        )

    @property
    def windows(self) -> bool:
        return self.platform == "win32"

    def hive(self, system: bool) -> Hive:
        return "HKLM" if system else "HKCU"

    def install_dir(self, system: bool) -> Path:
        """Where the wrapper (and on Windows the manifest) and the install record live:
        only the user (or root/administrators) can write there."""
        if not system:
            return self.panelot_home / "bin"
        if self.platform == "win32":
            return self.program_data / "Panelot"
        if self.platform == "darwin":
            return self.root / "Library/Application Support/Panelot"
        return self.root / "usr/local/lib/panelot"

    def manifest_dir(self, browser: str, system: bool) -> Path:
        """The folder ``browser`` reads the manifest from (POSIX)."""
        if system:
            return system_native_hosts_dir(browser, self.platform, self.root)
        return user_native_hosts_dir(browser, self.platform, self.home)

    def present(self, browser: str) -> bool:
        """Whether ``browser`` is on this machine: its user-data directory exists (it has
        run), or it is installed but has not run yet (its executable or app bundle)."""
        if user_data_dir(browser, self.platform, self.home).is_dir():
            return True
        for name in EXECUTABLES[browser][self.platform]:
            if name.startswith("/"):
                if (self.root / name.lstrip("/")).exists():
                    return True
            elif self.which(name):
                return True
        return False

    def looked_for(self, browser: str) -> str:
        """Where ``present`` looked, for a message: ``no ~/.config/vivaldi, no vivaldi or
        vivaldi-stable on PATH``."""
        names = EXECUTABLES[browser][self.platform]
        bundles = [str(self.root / n.lstrip("/")) for n in names if n.startswith("/")]
        commands = [n for n in names if not n.startswith("/")]
        looked = [f"no {user_data_dir(browser, self.platform, self.home)}"]
        looked += [f"no {' or '.join(bundles)}"] if bundles else []
        looked += [f"no {' or '.join(commands)} on PATH"] if commands else []
        return ", ".join(looked)

    def present_browsers(self) -> list[str]:
        return [browser for browser in BROWSERS if self.present(browser)]


def _platform() -> Platform:
    if sys.platform == "win32":
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def _is_admin(platform: Platform) -> bool:
    if platform == "win32":  # pragma: no cover - Windows only
        # lazy: ctypes.windll exists on Windows only
        import ctypes

        return bool(getattr(ctypes, "windll").shell32.IsUserAnAdmin())  # noqa: B009
    return os.geteuid() == 0
