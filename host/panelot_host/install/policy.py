"""Enterprise policies that stop a native host, where a non-admin can read them.

``NativeMessagingUserLevelHosts=false`` makes the browser ignore per-user manifests;
``NativeMessagingBlocklist`` (``*`` or the host's name) blocks the host unless
``NativeMessagingAllowlist`` lists it. Linux keeps managed policies as JSON files, macOS as
property lists under ``/Library/Managed Preferences``.
"""

from __future__ import annotations

import json
import plistlib
from pathlib import Path
from typing import Any

import msgspec

from panelot_host.install.locations import Platform
from panelot_host.install.registry import Hive, Registry

LINUX_POLICY_DIRS = {
    "chrome": "etc/opt/chrome/policies/managed",
    "chromium": "etc/chromium/policies/managed",
    "edge": "etc/opt/edge/policies/managed",
    "brave": "etc/brave/policies/managed",
    "vivaldi": "etc/opt/vivaldi/policies/managed",
}
WINDOWS_POLICY_KEYS = {
    "chrome": r"SOFTWARE\Policies\Google\Chrome",
    "chromium": r"SOFTWARE\Policies\Chromium",
    "edge": r"SOFTWARE\Policies\Microsoft\Edge",
    "brave": r"SOFTWARE\Policies\BraveSoftware\Brave",
    "vivaldi": r"SOFTWARE\Policies\Google\Chrome",
}
"""Windows: a DWORD ``NativeMessagingUserLevelHosts``, and subkeys ``NativeMessagingBlocklist``
/ ``NativeMessagingAllowlist`` whose values ("1", "2", ...) are the entries; HKLM, then HKCU."""
MAC_POLICY_DOMAINS = {
    "chrome": "com.google.Chrome",
    "chromium": "org.chromium.Chromium",
    "edge": "com.microsoft.Edge",
    "brave": "com.brave.Browser",
    "vivaldi": "com.vivaldi.Vivaldi",
}


class HostPolicy(msgspec.Struct, frozen=True):
    user_level_hosts: bool = True
    blocked: bool = False
    source: str = ""


def read_policy(
    browser: str,
    platform: Platform,
    root: Path,
    host_name: str,
    registry: Registry | None = None,
) -> HostPolicy:
    """The policies that concern ``host_name`` in ``browser`` (defaults when none are set);
    on Windows read from ``registry``."""
    values: dict[str, Any] = {}
    sources: list[str] = []
    if platform == "win32" and registry is not None:
        values, sources = _windows_policy(registry, WINDOWS_POLICY_KEYS[browser])
    for path in _policy_files(browser, platform, root):
        loaded = _load(path)
        if loaded:
            values.update(loaded)
            sources.append(str(path))
    allow = values.get("NativeMessagingAllowlist") or []
    block = values.get("NativeMessagingBlocklist") or []
    blocked = isinstance(block, list) and ("*" in block or host_name in block)
    if isinstance(allow, list) and host_name in allow:
        blocked = False
    return HostPolicy(
        user_level_hosts=values.get("NativeMessagingUserLevelHosts") is not False,
        blocked=blocked,
        source=", ".join(sources),
    )


def _windows_policy(registry: Registry, key: str) -> tuple[dict[str, Any], list[str]]:
    values: dict[str, Any] = {}
    sources: list[str] = []
    hives: tuple[Hive, ...] = ("HKCU", "HKLM")  # HKLM last: machine policy wins
    for hive in hives:
        found = registry.named_values(hive, key)
        if "NativeMessagingUserLevelHosts" in found:
            values["NativeMessagingUserLevelHosts"] = bool(found["NativeMessagingUserLevelHosts"])
        for name in ("NativeMessagingBlocklist", "NativeMessagingAllowlist"):
            entries = registry.named_values(hive, f"{key}\\{name}")
            if entries:
                values[name] = [str(v) for v in entries.values()]
        if found or values:
            sources.append(f"{hive}\\{key}")
    return values, sorted(set(sources))


def _policy_files(browser: str, platform: Platform, root: Path) -> list[Path]:
    if platform == "linux":
        return sorted((root / LINUX_POLICY_DIRS[browser]).glob("*.json"))
    if platform == "darwin":
        domain = MAC_POLICY_DOMAINS[browser]
        return [root / "Library/Managed Preferences" / f"{domain}.plist"]
    return []


def _load(path: Path) -> dict[str, Any]:
    try:
        content = path.read_bytes()
    except OSError:
        return {}
    try:
        loaded = plistlib.loads(content) if path.suffix == ".plist" else json.loads(content)
    except (ValueError, plistlib.InvalidFileException):
        return {}
    return loaded if isinstance(loaded, dict) else {}
