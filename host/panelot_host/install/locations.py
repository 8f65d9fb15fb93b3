"""Where browsers read native-messaging host manifests (Chrome's native-messaging
documentation, and each browser's own folders).

Per-user and system-wide folders on Linux and macOS for each Chromium-based browser we
support, the folder of an explicit ``--user-data-dir`` (which replaces the per-user folder:
Chromium then reads ``<user-data-dir>/NativeMessagingHosts``), the registry keys Windows
uses instead, and how a browser is recognised as present (its user-data directory exists,
or its executable is on ``PATH``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

Platform = Literal["linux", "darwin", "win32"]
NATIVE_HOSTS = "NativeMessagingHosts"

BROWSERS: dict[str, dict[Platform, str]] = {
    "chrome": {
        "linux": ".config/google-chrome",
        "darwin": "Library/Application Support/Google/Chrome",
        "win32": "AppData/Local/Google/Chrome/User Data",
    },
    "chromium": {
        "linux": ".config/chromium",
        "darwin": "Library/Application Support/Chromium",
        "win32": "AppData/Local/Chromium/User Data",
    },
    "edge": {
        "linux": ".config/microsoft-edge",
        "darwin": "Library/Application Support/Microsoft Edge",
        "win32": "AppData/Local/Microsoft/Edge/User Data",
    },
    "brave": {
        "linux": ".config/BraveSoftware/Brave-Browser",
        "darwin": "Library/Application Support/BraveSoftware/Brave-Browser",
        "win32": "AppData/Local/BraveSoftware/Brave-Browser/User Data",
    },
    "vivaldi": {
        "linux": ".config/vivaldi",
        "darwin": "Library/Application Support/Vivaldi",
        "win32": "AppData/Local/Vivaldi/User Data",
    },
}
"""Each browser's default user-data directory, relative to the home directory."""

SYSTEM_DIRS: dict[str, dict[Platform, str]] = {
    "chrome": {
        "linux": "etc/opt/chrome/native-messaging-hosts",
        "darwin": "Library/Google/Chrome/NativeMessagingHosts",
    },
    "chromium": {
        "linux": "etc/chromium/native-messaging-hosts",
        "darwin": "Library/Application Support/Chromium/NativeMessagingHosts",
    },
    "edge": {
        "linux": "etc/opt/edge/native-messaging-hosts",
        "darwin": "Library/Microsoft/Edge/NativeMessagingHosts",
    },
    "brave": {
        "linux": "etc/opt/brave/native-messaging-hosts",
        "darwin": "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    },
    "vivaldi": {
        "linux": "etc/opt/vivaldi/native-messaging-hosts",
        "darwin": "Library/Application Support/Vivaldi/NativeMessagingHosts",
    },
}
"""System-wide manifest folders, relative to the file-system root (POSIX only)."""

EXECUTABLES: dict[str, dict[Platform, tuple[str, ...]]] = {
    "chrome": {
        "linux": ("google-chrome", "google-chrome-stable"),
        "darwin": ("/Applications/Google Chrome.app",),
        "win32": (),
    },
    "chromium": {
        "linux": ("chromium", "chromium-browser"),
        "darwin": ("/Applications/Chromium.app",),
        "win32": (),
    },
    "edge": {
        "linux": ("microsoft-edge", "microsoft-edge-stable"),
        "darwin": ("/Applications/Microsoft Edge.app",),
        "win32": (),
    },
    "brave": {
        "linux": ("brave-browser", "brave"),
        "darwin": ("/Applications/Brave Browser.app",),
        "win32": (),
    },
    "vivaldi": {
        "linux": ("vivaldi", "vivaldi-stable"),
        "darwin": ("/Applications/Vivaldi.app",),
        "win32": (),
    },
}
"""How an installed browser that has never run (no user-data directory yet) is found:
command names on ``PATH`` (Linux) or application bundles (macOS)."""

REGISTRY_KEYS: dict[str, str] = {
    "chrome": r"Software\Google\Chrome\NativeMessagingHosts",
    "chromium": r"Software\Chromium\NativeMessagingHosts",
    "edge": r"Software\Microsoft\Edge\NativeMessagingHosts",
    "brave": r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
    "vivaldi": r"Software\Google\Chrome\NativeMessagingHosts",
}
"""Windows (HKCU or HKLM): the key whose ``<host name>`` subkey names the manifest file."""


def native_hosts_dir(user_data_dir: Path) -> Path:
    """The manifest folder of a browser started with ``--user-data-dir=user_data_dir``."""
    return user_data_dir / NATIVE_HOSTS


def user_data_dir(browser: str, platform: Platform, home: Path) -> Path:
    """The default user-data directory of ``browser`` (a key of ``BROWSERS``).

    Raises:
        KeyError: an unknown browser.
    """
    return home / BROWSERS[browser][platform]


def user_native_hosts_dir(browser: str, platform: Platform, home: Path) -> Path:
    """The per-user manifest folder of ``browser`` (a key of ``BROWSERS``; POSIX).

    Raises:
        KeyError: an unknown browser.
    """
    return native_hosts_dir(user_data_dir(browser, platform, home))


def system_native_hosts_dir(browser: str, platform: Platform, root: Path) -> Path:
    """The system-wide manifest folder of ``browser`` under the file-system ``root`` (POSIX).

    Raises:
        KeyError: an unknown browser, or Windows (it uses HKLM instead).
    """
    return root / SYSTEM_DIRS[browser][platform]


def registry_key(browser: str, name: str) -> str:
    """The Windows registry key (under HKCU or HKLM) whose default value is the manifest path."""
    return f"{REGISTRY_KEYS[browser]}\\{name}"
