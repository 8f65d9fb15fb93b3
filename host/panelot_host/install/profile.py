"""Manifest + wrapper for one browser user-data directory."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import msgspec

from panelot_host.install.locations import native_hosts_dir
from panelot_host.install.manifest import HOST_NAME, build_manifest, write_manifest
from panelot_host.install.wrapper import write_wrapper


class Installed(msgspec.Struct, frozen=True):
    manifest: Path
    wrapper: Path


def install_into_user_data_dir(
    user_data_dir: Path,
    origins: Iterable[str],
    *,
    bin_dir: Path,
    python: Path | None = None,
    name: str = HOST_NAME,
) -> Installed:
    """Write the wrapper into ``bin_dir`` and the manifest allowing ``origins`` into
    ``<user_data_dir>/NativeMessagingHosts``, both before the browser starts (it reads
    the manifest on every ``connectNative``, so later edits apply to the next Port too).

    Raises ``ManifestError`` for a manifest Chrome would refuse, ``OSError`` when a
    folder cannot be written.
    """
    wrapper = write_wrapper(bin_dir, python)
    manifest = build_manifest(wrapper, origins, name=name)
    return Installed(
        manifest=write_manifest(native_hosts_dir(user_data_dir), manifest), wrapper=wrapper
    )
