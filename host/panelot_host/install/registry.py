"""The Windows registry, behind a three-method seam.

Chrome finds a native host on Windows through the default value (REG_SZ) of
``HKCU|HKLM\\Software\\<browser>\\NativeMessagingHosts\\<name>``: the manifest's path.
``WindowsRegistry`` writes it with ``winreg``; ``RecordingRegistry`` is a real in-memory
registry with a log of writes, for tests and for dry runs on any platform.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Literal, Protocol

Hive = Literal["HKCU", "HKLM"]


class RegistryError(OSError):
    """The registry refused a read or a write (access denied, for HKLM without admin)."""


class Registry(Protocol):
    def get_default(self, hive: Hive, key: str) -> str | None:
        """The key's default string value, or None when the key (or value) is missing."""
        ...

    def set_default(self, hive: Hive, key: str, value: str) -> None:
        """Create ``key`` if needed and set its default value (REG_SZ)."""
        ...

    def delete_key(self, hive: Hive, key: str) -> bool:
        """Delete ``key`` (it has no subkeys); returns whether it existed."""
        ...

    def named_values(self, hive: Hive, key: str) -> dict[str, object]:
        """The key's named values (policies are kept so); empty when the key is missing."""
        ...


class RecordingRegistry:
    """An in-memory registry; ``writes`` logs each change as ``(op, hive, key, value)``."""

    def __init__(self) -> None:
        self.values: dict[tuple[Hive, str], str] = {}
        self.named: dict[tuple[Hive, str], dict[str, object]] = {}
        self.writes: list[tuple[str, Hive, str, str | None]] = []

    def named_values(self, hive: Hive, key: str) -> dict[str, object]:
        return dict(self.named.get((hive, key.lower()), {}))

    def get_default(self, hive: Hive, key: str) -> str | None:
        return self.values.get((hive, key.lower()))

    def set_default(self, hive: Hive, key: str, value: str) -> None:
        self.values[(hive, key.lower())] = value
        self.writes.append(("set", hive, key, value))

    def delete_key(self, hive: Hive, key: str) -> bool:
        self.writes.append(("delete", hive, key, None))
        return self.values.pop((hive, key.lower()), None) is not None


class WindowsRegistry:  # pragma: no cover - exercised on Windows only
    """The real registry through ``winreg`` (Windows only)."""

    def __init__(self) -> None:
        if sys.platform != "win32":
            raise RegistryError("the Windows registry exists only on Windows")

    def get_default(self, hive: Hive, key: str) -> str | None:
        winreg = _winreg()
        try:
            with winreg.OpenKey(_root(hive), key) as handle:
                value, kind = winreg.QueryValueEx(handle, "")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise RegistryError(f"{hive}\\{key}: {exc}") from exc
        return value if kind == winreg.REG_SZ and isinstance(value, str) else None

    def set_default(self, hive: Hive, key: str, value: str) -> None:
        winreg = _winreg()
        try:
            with winreg.CreateKeyEx(_root(hive), key, 0, winreg.KEY_WRITE) as handle:
                winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, value)
        except OSError as exc:
            raise RegistryError(f"{hive}\\{key}: {exc}") from exc

    def delete_key(self, hive: Hive, key: str) -> bool:
        winreg = _winreg()
        try:
            winreg.DeleteKey(_root(hive), key)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise RegistryError(f"{hive}\\{key}: {exc}") from exc
        return True

    def named_values(self, hive: Hive, key: str) -> dict[str, object]:
        winreg = _winreg()
        values: dict[str, object] = {}
        try:
            with winreg.OpenKey(_root(hive), key) as handle:
                index = 0
                while True:
                    try:
                        name, value, _ = winreg.EnumValue(handle, index)
                    except OSError:  # no more values
                        return values
                    if name:
                        values[name] = value
                    index += 1
        except FileNotFoundError:
            return values
        except OSError as exc:
            raise RegistryError(f"{hive}\\{key}: {exc}") from exc


def _winreg() -> Any:  # pragma: no cover - Windows only
    # imported by name: typeshed declares winreg for Windows only, and this module is
    # type-checked on every platform
    return importlib.import_module("winreg")


def _root(hive: Hive) -> Any:  # pragma: no cover - Windows only
    winreg = _winreg()
    return winreg.HKEY_CURRENT_USER if hive == "HKCU" else winreg.HKEY_LOCAL_MACHINE


def default_registry(platform: str) -> Registry:
    """``WindowsRegistry`` on Windows, else an empty ``RecordingRegistry`` (nothing to do)."""
    if platform == "win32":
        return WindowsRegistry()
    return RecordingRegistry()
