"""``panelot-host doctor``'s version lines: the host's version and the protocol versions
it speaks (with the command that upgrades it), and the version of the extension shipped
beside it (``install.extension.bundled_extension``: the wheel's, or a clone's
``extension-shim/``) when there is one, with the protocol versions that extension speaks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import panelot_host
from panelot_host.install.diagnose import Finding
from panelot_host.install.extension import bundled_extension
from panelot_host.install.extension_files import ExtensionIncomplete
from panelot_host.protocol.common import HOST_PROTOCOL_VERSIONS, ProtocolVersions
from panelot_host.upgrade_route import upgrade_command

_SPOKEN = re.compile(
    r"PROTOCOL_VERSIONS\s*=\s*Object\.freeze\(\{\s*oldest:\s*(\d+),\s*newest:\s*(\d+)"
)


def check_versions(package_dir: Path | None = None) -> list[Finding]:
    """The host's line, then the bundled extension's (none when there is no folder)."""
    package_dir = package_dir or Path(panelot_host.__file__).parent
    findings = [_host_finding()]
    try:
        folder = bundled_extension(package_dir)
    except ExtensionIncomplete:
        return findings
    findings.append(_extension_finding(folder))
    return findings


def _host_finding() -> Finding:
    return Finding(
        "host version",
        "ok",
        f"panelot-host {panelot_host.__version__}, {span(HOST_PROTOCOL_VERSIONS)}"
        f" (upgrade: {upgrade_command()})",
    )


def _extension_finding(folder: Path) -> Finding:
    try:
        version = str(json.loads((folder / "manifest.json").read_text("utf-8"))["version"])
    except (OSError, ValueError, KeyError) as exc:
        return Finding("extension version", "note", f"{folder}/manifest.json unreadable: {exc}")
    spoken = extension_versions(folder)
    said = f", {span(spoken)}" if spoken else ""
    message = f"{version} in {folder}{said}"
    if spoken and not _meet(spoken, HOST_PROTOCOL_VERSIONS):
        fix = "install a host and an extension of the same release"
        return Finding("extension version", "problem", f"{message}: no version in common", fix)
    return Finding("extension version", "ok", message)


def extension_versions(folder: Path) -> ProtocolVersions | None:
    """The protocol versions the extension in ``folder`` speaks (``src/versions.js``)."""
    try:
        found = _SPOKEN.search((folder / "src" / "versions.js").read_text("utf-8"))
    except OSError:
        return None
    return ProtocolVersions(oldest=int(found[1]), newest=int(found[2])) if found else None


def span(versions: ProtocolVersions) -> str:
    if versions.oldest == versions.newest:
        return f"protocol version {versions.newest}"
    return f"protocol versions {versions.oldest} to {versions.newest}"


def _meet(a: ProtocolVersions, b: ProtocolVersions) -> bool:
    return max(a.oldest, b.oldest) <= min(a.newest, b.newest)
