"""``panelot-host doctor`` says the host's version and protocol versions, and the version of
the extension shipped beside it."""

from __future__ import annotations

import json
from pathlib import Path

import panelot_host
from panelot_host.cli.doctor_versions import check_versions, extension_versions
from panelot_host.protocol.common import ProtocolVersions

REPO = Path(__file__).resolve().parents[2]


def _package_with_extension(tmp_path: Path, version: str, versions_js: str) -> Path:
    package = tmp_path / "site-packages" / "panelot_host"
    folder = package / "extension"
    (folder / "src").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"version": version}))
    (folder / "src" / "versions.js").write_text(versions_js)
    return package


def test_the_host_line_says_its_version_and_protocol_versions(tmp_path: Path) -> None:
    [host] = check_versions(tmp_path / "lib" / "panelot_host")  # no extension beside it
    assert host.check == "host version" and host.status == "ok"
    assert host.message.startswith(f"panelot-host {panelot_host.__version__}, protocol version 1")
    assert "(upgrade: " in host.message


def test_a_clone_reports_its_extension_and_the_protocol_it_speaks() -> None:
    _, extension = check_versions(REPO / "host" / "panelot_host")
    manifest = json.loads((REPO / "extension-shim" / "manifest.json").read_text())
    assert extension.status == "ok"
    assert extension.message.startswith(f"{manifest['version']} in ")
    assert extension_versions(REPO / "extension-shim") == ProtocolVersions(oldest=1, newest=1)


def test_a_bundled_extension_that_shares_no_version_is_a_problem(tmp_path: Path) -> None:
    js = "export const PROTOCOL_VERSIONS = Object.freeze({ oldest: 3, newest: 4 });"
    _, extension = check_versions(_package_with_extension(tmp_path, "0.9.0", js))
    assert extension.status == "problem"
    assert "0.9.0" in extension.message and "protocol versions 3 to 4" in extension.message


def test_an_unreadable_manifest_is_a_note(tmp_path: Path) -> None:
    package = _package_with_extension(tmp_path, "0.1.0", "")
    (package / "extension" / "manifest.json").write_text("{")
    _, extension = check_versions(package)
    assert extension.status == "note"
