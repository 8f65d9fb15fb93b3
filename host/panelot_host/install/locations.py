"""Where browsers read native-messaging host manifests (design/native-messaging.md).

Per-user folders on Linux and macOS for each Chromium-based browser we support, and the
folder of an explicit ``--user-data-dir`` (which replaces the per-user folder: Chromium
then reads ``<user-data-dir>/NativeMessagingHosts``). Windows uses registry keys instead
(``REGISTRY_KEYS``); writing them is the installer's job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

Platform = Literal["linux", "darwin"]
NATIVE_HOSTS = "NativeMessagingHosts"

BROWSERS: dict[str, dict[Platform, str]] = {
    "chrome": {
        "linux": ".config/google-chrome",
        "darwin": "Library/Application Support/Google/Chrome",
    },
    "chromium": {"linux": ".config/chromium", "darwin": "Library/Application Support/Chromium"},
    "edge": {
        "linux": ".config/microsoft-edge",
        "darwin": "Library/Application Support/Microsoft Edge",
    },
    "brave": {
        "linux": ".config/BraveSoftware/Brave-Browser",
        "darwin": "Library/Application Support/BraveSoftware/Brave-Browser",
    },
    "vivaldi": {"linux": ".config/vivaldi", "darwin": "Library/Application Support/Vivaldi"},
}
"""Each browser's default user-data directory, relative to the home directory."""

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


def user_native_hosts_dir(browser: str, platform: Platform, home: Path) -> Path:
    """The per-user manifest folder of ``browser`` (a key of ``BROWSERS``).

    Raises:
        KeyError: an unknown browser.
    """
    return native_hosts_dir(home / BROWSERS[browser][platform])
