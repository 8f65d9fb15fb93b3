"""Whose is a manifest or registry key already where ``install`` would write its own.

``com.panelot.host.json`` in a browser's folder (or the Windows key naming one) may be the
user's: a development build, another tool's. ``install`` replaces only what is its own:

- a file identical to what it writes, or one still holding what the install record says
  it wrote there (the SHA-256);
- a manifest whose ``path`` is this install's wrapper (it starts our host: another
  ``--extension-id``, a hand edit of ours);
- a file at a path the record lists that is no manifest at all (ours, damaged);
- a registry key whose value is the one the record says it wrote.

Anything else is foreign: ``install`` refuses it unless ``--force``, and says what it
starts (``describe``).
"""

from __future__ import annotations

from pathlib import PureWindowsPath

import msgspec

from panelot_host.install.record import sha256


class _Target(msgspec.Struct, frozen=True):
    """The one field of a manifest that says whose it is (the rest is ignored)."""

    path: str


def started_by(content: bytes) -> str | None:
    """The program a manifest's content starts, or None when it is no host manifest."""
    try:
        return msgspec.json.decode(content, type=_Target).path or None
    except msgspec.DecodeError:  # not JSON, no string ``path``
        return None


def describe(content: bytes) -> str:
    """What a manifest points at, for a message: ``it starts /opt/x/host``."""
    target = started_by(content)
    return "it is not a host manifest" if target is None else f"it starts {target}"


def manifest_is_ours(
    current: bytes, *, ours: bytes, wrapper: str, recorded: str | None, windows: bool
) -> bool:
    """Whether ``install`` may replace the manifest ``current`` with ``ours``.

    ``wrapper`` is this install's wrapper path; ``recorded`` the SHA-256 the install
    record holds for this path (None when it lists none).
    """
    if current == ours or (recorded is not None and sha256(current) == recorded):
        return True
    target = started_by(current)
    if target is None:
        return recorded is not None
    if windows:
        return PureWindowsPath(target) == PureWindowsPath(wrapper)
    return target == wrapper


def key_is_ours(current: str, *, ours: str, recorded: str | None) -> bool:
    """Whether ``install`` may set a registry key holding ``current`` to ``ours``."""
    if PureWindowsPath(current) == PureWindowsPath(ours):
        return True
    return recorded is not None and PureWindowsPath(current) == PureWindowsPath(recorded)
