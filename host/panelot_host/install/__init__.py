"""Putting the host where a browser finds it, taking it away, and diagnosing it (the cli
layer's helpers; nothing below imports them).

- ``manifest``: the native-messaging host manifest (``com.panelot.host.json``): building and
  validating it from the template in ``manifest/``, writing it atomically; the pinned
  extension ID.
- ``wrapper``: the executable that Chrome starts, a script with the absolute path of this
  Python interpreter (``-I``: a stray module on the path cannot hijack the host) and the
  origins it was installed for.
- ``locations``: where each browser reads host manifests (per user, system-wide, a given
  user-data directory, the Windows registry keys) and how a browser is recognised.
- ``machine``: the platform, folders, privileges and registry an install works on (tests
  pass a temporary home, another platform and a recording registry).
- ``registry``: the Windows registry seam (``winreg``, or a recording fake elsewhere).
- ``plan``: ``panelot-host install`` as a plan of writes, applied idempotently (folders
  made only for browsers found, owner-only per user).
- ``record``: what an install wrote; ``uninstall`` removes exactly that.
- ``ownership``: whether a manifest or registry key already where install writes is its
  own (else install refuses to replace it without ``--force``).
- ``policy``: enterprise policies that stop user-level or all native hosts.
- ``diagnose``: ``doctor``'s checks of the install (every cause of Chrome's error table).
- ``extension_files``: which files of ``extension-shim/`` make the extension (the
  standard library only: the wheel's build hook loads it too).
- ``extension``: the extension this host carries (the wheel's, else the clone's) and its
  copy under ``PANELOT_HOME`` that Chrome loads unpacked (``panelot-host extension path``).
- ``extension_pack``: the store zip, a signed CRX3 and its ``update.xml``.
- ``profile``: ``install_into_user_data_dir``, manifest + wrapper for one profile directory
  (a library call; the command is ``panelot-host install --user-data-dir``).
"""

from panelot_host.install.locations import BROWSERS, native_hosts_dir, user_native_hosts_dir
from panelot_host.install.manifest import (
    HOST_NAME,
    PINNED_EXTENSION_ID,
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
    "PINNED_EXTENSION_ID",
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
