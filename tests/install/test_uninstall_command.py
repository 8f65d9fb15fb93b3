"""``panelot-host uninstall``: exactly what install wrote goes, the user's data stays."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from panelot_host.cli.install import run_uninstall
from panelot_host.install import HOST_NAME
from panelot_host.install.machine import Machine
from panelot_host.install.registry import RecordingRegistry

from .helpers import install, machine


def uninstall(m: Machine, answer: str = "", **given: bool) -> tuple[int, str, list[str]]:
    options = argparse.Namespace(
        system=given.get("system", False),
        purge=given.get("purge", False),
        yes=given.get("yes", False),
        dry_run=given.get("dry_run", False),
    )
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return answer

    out = io.StringIO()
    status = run_uninstall(options, machine=m, out=out, environ={}, ask=ask)
    return status, out.getvalue(), asked


def snapshot(root: Path) -> set[Path]:
    return set(root.rglob("*"))


def test_uninstall_leaves_no_file_it_wrote_and_keeps_the_data(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("google-chrome",))
    (m.home / ".config/chromium/Default").mkdir(parents=True)  # the browser's own profile
    database = m.panelot_home / "profiles" / "p1" / "panelot.db"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"conversations")
    before = snapshot(tmp_path)
    install(m, browser=["chromium", "chrome"])
    status, report, _ = uninstall(m)
    assert status == 0
    assert "removed      manifest" in report and "removed      wrapper" in report
    assert f"kept your data in {m.panelot_home}" in report
    assert snapshot(tmp_path) == before  # folders it created went too; nothing else did
    assert database.read_bytes() == b"conversations"
    again, report, _ = uninstall(m)
    assert again == 0 and "nothing to remove" in report


def test_a_file_changed_since_install_is_left_in_place(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("microsoft-edge",))
    install(m, browser=["edge"])
    manifest = m.home / ".config/microsoft-edge/NativeMessagingHosts" / f"{HOST_NAME}.json"
    manifest.write_text('{"edited": "by hand"}', "utf-8")
    _, report, _ = uninstall(m)
    why = "changed since install: it is not a host manifest"
    assert f"left ({why}) manifest: {manifest}" in report
    assert manifest.exists()


def test_dry_run_removes_nothing(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("microsoft-edge",))
    install(m, browser=["edge"])
    before = snapshot(tmp_path)
    status, report, _ = uninstall(m, dry_run=True)
    assert status == 0 and "would be removed manifest" in report
    assert snapshot(tmp_path) == before


def test_windows_keys_are_removed_unless_they_point_elsewhere_now(tmp_path: Path) -> None:
    registry = RecordingRegistry()
    m = machine(tmp_path, "win32", registry=registry)
    install(m, browser=["chrome", "edge"])
    edge = r"Software\Microsoft\Edge\NativeMessagingHosts\com.panelot.host"
    registry.set_default("HKCU", edge, r"D:\other\host.json")
    _, report, _ = uninstall(m)
    assert "removed      registry key: HKCU\\Software\\Google\\Chrome" in report
    assert "left (now points to D:\\other\\host.json)" in report
    assert registry.values == {("HKCU", edge.lower()): r"D:\other\host.json"}
    assert not (m.panelot_home / "bin").exists()


def test_purge_deletes_the_data_only_when_confirmed(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    (m.panelot_home / "profiles").mkdir()
    status, report, asked = uninstall(m, answer="no", purge=True)
    assert status == 1 and asked and str(m.panelot_home) in asked[0]
    assert "--purge was not confirmed" in report and m.panelot_home.exists()
    status, report, _ = uninstall(m, answer="yes", purge=True)
    assert status == 0 and not m.panelot_home.exists()


def test_purge_with_yes_does_not_ask(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    status, _, asked = uninstall(m, purge=True, yes=True)
    assert status == 0 and asked == [] and not m.panelot_home.exists()


def test_a_record_that_is_not_one_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    (m.panelot_home / "bin" / "install-record.json").write_text("[", "utf-8")
    status, _, _ = uninstall(m)
    assert status == 1 and "is not an install record" in capsys.readouterr().err


def test_a_users_own_manifest_outlives_install_and_uninstall(tmp_path: Path) -> None:
    m = machine(tmp_path)
    theirs = m.home / ".config/chromium/NativeMessagingHosts" / f"{HOST_NAME}.json"
    theirs.parent.mkdir(parents=True)
    content = b'{"name": "com.panelot.host", "path": "/opt/mine/host"}'
    theirs.write_bytes(content)
    (m.home / ".config/google-chrome").mkdir(parents=True)
    assert install(m)[0] == 1  # chromium's manifest is the user's: nothing is written
    assert install(m, browser=["chrome"])[0] == 0
    status, report, _ = uninstall(m)
    assert status == 0 and "removed      manifest" in report
    assert theirs.read_bytes() == content
    assert not (m.home / ".config/google-chrome/NativeMessagingHosts").exists()


def test_a_manifest_replaced_by_the_users_own_is_left_and_named(tmp_path: Path) -> None:
    m = machine(tmp_path)
    (m.home / ".config/microsoft-edge").mkdir(parents=True)
    install(m, browser=["edge"])
    manifest = m.home / ".config/microsoft-edge/NativeMessagingHosts" / f"{HOST_NAME}.json"
    manifest.write_text('{"name": "com.panelot.host", "path": "/opt/mine/host"}', "utf-8")
    _, report, _ = uninstall(m)
    assert f"left (changed since install: it starts /opt/mine/host) manifest: {manifest}" in report
    assert manifest.exists()
