"""Putting the host where a browser finds it (the cli layer; nothing below imports it).

- ``manifest``: the native-messaging host manifest (``com.panelot.host.json``): building and
  validating it from the template in ``manifest/``, writing it atomically.
- ``wrapper``: the executable that Chrome starts, a script with the absolute path of this
  Python interpreter (``-I``: a stray module on the path cannot hijack the host).
- ``locations``: where each browser reads per-user host manifests, and the
  ``NativeMessagingHosts`` folder of a given user-data directory.
- ``profile``: ``install_into_user_data_dir``, manifest + wrapper for one browser profile
  directory (what the end-to-end tests and the installer use).
"""

from panelot_host.install.locations import BROWSERS, native_hosts_dir, user_native_hosts_dir
from panelot_host.install.manifest import (
    HOST_NAME,
    HostManifest,
    ManifestError,
    build_manifest,
    extension_origin,
    read_manifest,
    write_manifest,
)
from panelot_host.install.profile import Installed, install_into_user_data_dir
from panelot_host.install.wrapper import wrapper_text, write_wrapper

__all__ = [
    "BROWSERS",
    "HOST_NAME",
    "HostManifest",
    "Installed",
    "ManifestError",
    "build_manifest",
    "extension_origin",
    "install_into_user_data_dir",
    "native_hosts_dir",
    "read_manifest",
    "user_native_hosts_dir",
    "wrapper_text",
    "write_manifest",
    "write_wrapper",
]
