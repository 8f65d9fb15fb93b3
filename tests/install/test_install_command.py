"""``panelot-host install``: every file it writes, for each browser and platform."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from tests.e2e.harness import extension_id

from panelot_host.install import HOST_NAME, PINNED_EXTENSION_ID, read_manifest
from panelot_host.install.locations import BROWSERS
from panelot_host.install.record import RECORD_NAME, load_record
from panelot_host.install.registry import RecordingRegistry

from .helpers import install, machine

OURS = f"chrome-extension://{PINNED_EXTENSION_ID}/"
OTHER_ID = "abcdefghijklmnopabcdefghijklmnop"
LINUX_DIRS = {
    "chrome": ".config/google-chrome",
    "chromium": ".config/chromium",
    "edge": ".config/microsoft-edge",
    "brave": ".config/BraveSoftware/Brave-Browser",
    "vivaldi": ".config/vivaldi",
}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_pinned_id_is_the_one_chrome_derives_from_the_extensions_key() -> None:
    assert extension_id() == PINNED_EXTENSION_ID


@pytest.mark.parametrize("browser", sorted(LINUX_DIRS))
def test_linux_install_writes_wrapper_and_manifest_where_the_browser_reads(
    tmp_path: Path, browser: str
) -> None:
    m = machine(tmp_path)
    (m.home / LINUX_DIRS[browser]).mkdir(parents=True)
    status, report = install(m)
    assert status == 0, report
    manifest = m.home / LINUX_DIRS[browser] / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    wrapper = m.panelot_home / "bin" / "panelot-host-chrome"
    assert f"created      manifest ({browser}): {manifest}" in report
    assert f"created      wrapper: {wrapper}" in report
    copy = m.panelot_home / "extension"
    assert f"'Load unpacked' and pick {copy}" in report
    assert json.loads((copy / "manifest.json").read_text("utf-8"))["name"] == "Panelot"
    data = json.loads(manifest.read_text("utf-8"))
    assert data == {
        "name": HOST_NAME,
        "description": data["description"],
        "path": str(wrapper),
        "type": "stdio",
        "allowed_origins": [OURS],
    }
    assert read_manifest(manifest).path == str(wrapper)
    assert mode(manifest) == 0o644
    assert mode(wrapper) == 0o700 and mode(wrapper.parent) == 0o700
    text = wrapper.read_text("utf-8")
    assert text.startswith("#!/bin/sh\n")
    assert f"exec {sys.executable} -I -m panelot_host" in text
    assert f"PANELOT_ALLOWED_ORIGINS={OURS}" in text
    record = m.panelot_home / "bin" / RECORD_NAME
    assert mode(record) == 0o600
    assert {e.path for e in load_record(record.parent).files} == {str(wrapper), str(manifest)}
    others = [b for b in BROWSERS if b != browser]
    assert not any((m.home / LINUX_DIRS[b]).exists() for b in others)


def test_the_installed_wrapper_starts_the_host_for_our_extension_only(tmp_path: Path) -> None:
    import subprocess

    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    wrapper = m.panelot_home / "bin" / "panelot-host-chrome"
    env = {"PATH": os.environ["PATH"], "HOME": str(m.home), "PANELOT_HOME": str(m.panelot_home)}
    ours = subprocess.run(
        [wrapper, OURS], stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60
    )
    assert ours.returncode == 0 and ours.stdout == b"", ours.stderr
    other = subprocess.run(
        [wrapper, f"chrome-extension://{OTHER_ID}/"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert other.returncode == 3 and b"refusing" in other.stderr


def test_a_browser_installed_but_never_started_is_found_by_its_executable(
    tmp_path: Path,
) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    status, report = install(m)
    assert status == 0
    assert "manifest (chromium)" in report and "chrome)" not in report
    assert (m.home / ".config/chromium/NativeMessagingHosts" / f"{HOST_NAME}.json").exists()


def test_no_browser_found_is_an_error_that_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = install(machine(tmp_path))
    assert status == 1
    assert "no supported browser found" in capsys.readouterr().err
    assert not (tmp_path / "home" / "panelot-data").exists()


def test_extension_ids_are_added_to_the_pinned_one(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("google-chrome",))
    install(m, browser=["chrome"], extension_id=[OTHER_ID])
    manifest = m.home / ".config/google-chrome/NativeMessagingHosts" / f"{HOST_NAME}.json"
    origins = json.loads(manifest.read_text("utf-8"))["allowed_origins"]
    assert sorted(origins) == sorted([OURS, f"chrome-extension://{OTHER_ID}/"])
    wrapper = (m.panelot_home / "bin" / "panelot-host-chrome").read_text("utf-8")
    assert f"{OURS},chrome-extension://{OTHER_ID}/" in wrapper


def test_a_malformed_extension_id_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = install(
        machine(tmp_path, on_path=("google-chrome",)),
        browser=["chrome"],
        extension_id=["not-an-id"],
    )
    assert status == 1 and "--extension-id" in capsys.readouterr().err
    assert not (tmp_path / "home" / ".config").exists()


def test_installing_twice_changes_nothing(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium", "microsoft-edge"))
    install(m, browser=["chromium", "edge"])
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns, mode(p)) for p in files}
    status, report = install(m, browser=["chromium", "edge"])
    assert status == 0
    assert report.count("unchanged") == 4 and "already installed: nothing changed" in report
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == files
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns, mode(p)) for p in files} == before


def test_a_changed_file_is_repaired_and_reported_as_updated(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    manifest = m.home / ".config/chromium/NativeMessagingHosts" / f"{HOST_NAME}.json"
    manifest.write_text("{}", "utf-8")
    (m.panelot_home / "bin" / "panelot-host-chrome").chmod(0o600)
    _, report = install(m, browser=["chromium"])
    assert f"updated      manifest (chromium): {manifest}" in report
    assert "updated      wrapper" in report
    assert read_manifest(manifest).allowed_origins == [OURS]


def test_dry_run_reports_and_writes_nothing(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("brave-browser",))
    status, report = install(m, browser=["brave"], dry_run=True)
    assert status == 0
    assert "would be created manifest (brave)" in report
    assert "would be created wrapper" in report
    assert not (m.home / ".config").exists() and not m.panelot_home.exists()


def test_system_install_needs_root_and_writes_the_system_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = install(machine(tmp_path), browser=["chrome"], system=True)
    assert status == 1 and "root" in capsys.readouterr().err
    m = machine(tmp_path, admin=True, on_path=("google-chrome", "chromium"))
    status, report = install(m, browser=["chrome", "chromium"], system=True)
    assert status == 0, report
    wrapper = m.root / "usr/local/lib/panelot/panelot-host-chrome"
    assert mode(wrapper) == 0o755
    for folder in ("etc/opt/chrome/native-messaging-hosts", "etc/chromium/native-messaging-hosts"):
        manifest = m.root / folder / f"{HOST_NAME}.json"
        assert read_manifest(manifest).path == str(wrapper)
    assert (m.root / "usr/local/lib/panelot" / RECORD_NAME).exists()


@pytest.mark.parametrize(
    ("browser", "user_dir", "system_dir"),
    [
        (
            "chrome",
            "Library/Application Support/Google/Chrome",
            "Library/Google/Chrome/NativeMessagingHosts",
        ),
        (
            "chromium",
            "Library/Application Support/Chromium",
            "Library/Application Support/Chromium/NativeMessagingHosts",
        ),
        (
            "edge",
            "Library/Application Support/Microsoft Edge",
            "Library/Microsoft/Edge/NativeMessagingHosts",
        ),
        (
            "brave",
            "Library/Application Support/BraveSoftware/Brave-Browser",
            "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        ),
        (
            "vivaldi",
            "Library/Application Support/Vivaldi",
            "Library/Application Support/Vivaldi/NativeMessagingHosts",
        ),
    ],
)
def test_macos_paths(tmp_path: Path, browser: str, user_dir: str, system_dir: str) -> None:
    m = machine(tmp_path, "darwin")
    (m.home / user_dir).mkdir(parents=True)
    assert install(m)[0] == 0
    assert (m.home / user_dir / "NativeMessagingHosts" / f"{HOST_NAME}.json").exists()
    admin = machine(tmp_path, "darwin", admin=True)
    assert install(admin, system=True)[0] == 0
    manifest = admin.root / system_dir / f"{HOST_NAME}.json"
    assert read_manifest(manifest).path == str(
        admin.root / "Library/Application Support/Panelot/panelot-host-chrome"
    )


def test_macos_finds_an_application_bundle(tmp_path: Path) -> None:
    m = machine(tmp_path, "darwin")
    (m.root / "Applications/Microsoft Edge.app").mkdir(parents=True)
    assert m.present_browsers() == ["edge"]


WINDOWS_KEYS = {
    "chrome": r"Software\Google\Chrome\NativeMessagingHosts\com.panelot.host",
    "chromium": r"Software\Chromium\NativeMessagingHosts\com.panelot.host",
    "edge": r"Software\Microsoft\Edge\NativeMessagingHosts\com.panelot.host",
    "brave": r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.panelot.host",
}


def test_windows_writes_one_manifest_and_a_registry_key_per_browser(tmp_path: Path) -> None:
    registry = RecordingRegistry()
    m = machine(tmp_path, "win32", registry=registry)
    status, report = install(m, browser=[*WINDOWS_KEYS, "vivaldi"])
    assert status == 0, report
    manifest = m.panelot_home / "bin" / f"{HOST_NAME}.json"
    wrapper = m.panelot_home / "bin" / "panelot-host-chrome.bat"
    # Vivaldi reads Chrome's key: written once
    assert registry.writes == [("set", "HKCU", key, str(manifest)) for key in WINDOWS_KEYS.values()]
    data = json.loads(manifest.read_text("utf-8"))
    assert data["path"] == str(wrapper) and data["allowed_origins"] == [OURS]
    text = wrapper.read_bytes().decode()
    assert text.startswith("@echo off\r\n")
    assert f'set "PANELOT_ALLOWED_ORIGINS={OURS}"\r\n' in text
    assert '"C:\\Python311\\python.exe" -I -m panelot_host %*\r\n' in text
    _, again = install(m, browser=[*WINDOWS_KEYS, "vivaldi"])
    assert len(registry.writes) == 4 and "already installed" in again


def test_windows_system_install_writes_hklm_as_administrator(tmp_path: Path) -> None:
    registry = RecordingRegistry()
    m = machine(tmp_path, "win32", admin=True, registry=registry)
    assert install(m, browser=["edge"], system=True)[0] == 0
    manifest = tmp_path / "ProgramData" / "Panelot" / f"{HOST_NAME}.json"
    assert registry.writes == [("set", "HKLM", WINDOWS_KEYS["edge"], str(manifest))]


def test_user_data_dir_installs_into_that_profile_only(tmp_path: Path) -> None:
    m = machine(tmp_path)
    (m.home / ".config/chromium").mkdir(parents=True)
    profile = tmp_path / "profile"
    status, report = install(m, user_data_dir=profile)
    assert status == 0
    assert read_manifest(profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").allowed_origins
    assert not (m.home / ".config/chromium/NativeMessagingHosts").exists()
    assert report.count("created") == 2


def test_an_explicit_panelot_home_is_kept_by_a_per_user_wrapper(tmp_path: Path) -> None:
    import dataclasses
    import subprocess

    m = dataclasses.replace(machine(tmp_path, on_path=("chromium",)), home_is_explicit=True)
    install(m, browser=["chromium"])
    wrapper = m.panelot_home / "bin" / "panelot-host-chrome"
    assert f"PANELOT_HOME={m.panelot_home}\nexport PANELOT_HOME\n" in wrapper.read_text("utf-8")
    # started from an environment without it (a desktop launcher), the host uses it
    env = {"PATH": os.environ["PATH"], "HOME": str(m.home)}
    subprocess.run([wrapper, OURS], stdin=subprocess.DEVNULL, env=env, timeout=60, check=True)
    assert (m.panelot_home / "logs" / "host.log").exists()
    admin = dataclasses.replace(
        machine(tmp_path, admin=True, on_path=("chromium",)), home_is_explicit=True
    )
    install(admin, browser=["chromium"], system=True)
    system_wrapper = admin.root / "usr/local/lib/panelot/panelot-host-chrome"
    assert "PANELOT_HOME" not in system_wrapper.read_text("utf-8")


# Issue 25: a manifest or registry key install did not write is someone else's


def foreign_manifest(folder: Path, host: str = "/opt/mine/host") -> bytes:
    """A user's own ``com.panelot.host.json`` (a development build, another tool's)."""
    folder.mkdir(parents=True, exist_ok=True)
    content = json.dumps(
        {
            "name": HOST_NAME,
            "description": "my own build",
            "path": host,
            "type": "stdio",
            "allowed_origins": [f"chrome-extension://{OTHER_ID}/"],
        }
    ).encode()
    (folder / f"{HOST_NAME}.json").write_bytes(content)
    return content


def test_a_manifest_install_did_not_write_is_refused_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = machine(tmp_path)
    folder = m.home / ".config/chromium/NativeMessagingHosts"
    theirs = foreign_manifest(folder)
    manifest = folder / f"{HOST_NAME}.json"
    status, report = install(m)
    assert status == 1 and report == ""
    error = capsys.readouterr().err
    assert f"refusing to replace {manifest}" in error
    assert "it starts /opt/mine/host" in error and "--force" in error
    assert manifest.read_bytes() == theirs
    assert not m.panelot_home.exists()  # nothing at all was written
    status, report = install(m, force=True)
    assert status == 0, report
    assert f"updated      manifest (chromium): {manifest}" in report
    assert read_manifest(manifest).path == str(m.panelot_home / "bin" / "panelot-host-chrome")


def test_dry_run_reports_the_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = machine(tmp_path)
    folder = m.home / ".config/chromium/NativeMessagingHosts"
    theirs = foreign_manifest(folder)
    status, report = install(m, dry_run=True)
    assert status == 1
    manifest = folder / f"{HOST_NAME}.json"
    assert f"refused      manifest (chromium): {manifest} (it starts /opt/mine/host)" in report
    assert "would be created wrapper" in report
    assert "--force" in capsys.readouterr().err
    assert manifest.read_bytes() == theirs and not m.panelot_home.exists()


def test_a_file_that_is_no_manifest_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = machine(tmp_path)
    folder = m.home / ".config/chromium/NativeMessagingHosts"
    folder.mkdir(parents=True)
    (folder / f"{HOST_NAME}.json").write_text("{not json", "utf-8")
    assert install(m)[0] == 1
    assert "it is not a host manifest" in capsys.readouterr().err
    assert (folder / f"{HOST_NAME}.json").read_text("utf-8") == "{not json"


def test_a_manifest_identical_to_ours_is_kept_and_one_starting_our_wrapper_updated(
    tmp_path: Path,
) -> None:
    from panelot_host.install.manifest import build_manifest, manifest_bytes

    m = machine(tmp_path)
    wrapper = m.panelot_home / "bin" / "panelot-host-chrome"
    chromium = m.home / ".config/chromium/NativeMessagingHosts" / f"{HOST_NAME}.json"
    edge = m.home / ".config/microsoft-edge/NativeMessagingHosts" / f"{HOST_NAME}.json"
    for manifest in (chromium, edge):
        manifest.parent.mkdir(parents=True)
    chromium.write_bytes(manifest_bytes(build_manifest(wrapper, [OURS])))
    chromium.chmod(0o644)
    edge.write_bytes(manifest_bytes(build_manifest(wrapper, [f"chrome-extension://{OTHER_ID}/"])))
    status, report = install(m)
    assert status == 0, report
    assert f"unchanged    manifest (chromium): {chromium}" in report
    assert f"updated      manifest (edge): {edge}" in report
    assert read_manifest(edge).allowed_origins == [OURS]


def test_windows_a_registry_key_naming_another_manifest_is_refused_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = RecordingRegistry()
    registry.values[("HKCU", WINDOWS_KEYS["edge"].lower())] = r"D:\mine\host.json"
    m = machine(tmp_path, "win32", registry=registry)
    status, _ = install(m, browser=["edge", "chrome"])
    assert status == 1
    error = capsys.readouterr().err
    assert f"refusing to replace HKCU\\{WINDOWS_KEYS['edge']}" in error
    assert "it names D:\\mine\\host.json" in error and "--force" in error
    assert registry.writes == [] and not m.panelot_home.exists()
    status, _ = install(m, browser=["edge", "chrome"], force=True)
    assert status == 0
    manifest = str(m.panelot_home / "bin" / f"{HOST_NAME}.json")
    assert registry.get_default("HKCU", WINDOWS_KEYS["edge"]) == manifest


# Issue 25: folders are made only for browsers found, owner-only as the browser makes them


def test_a_named_browser_that_is_not_found_is_refused_and_nothing_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    status, _ = install(m, browser=["chromium", "vivaldi"])
    assert status == 1
    error = capsys.readouterr().err
    assert "--browser vivaldi: not found on this machine" in error
    assert str(m.home / ".config/vivaldi") in error and "vivaldi-stable" in error
    assert not (m.home / ".config").exists() and not m.panelot_home.exists()


def test_a_browser_never_started_gets_its_folders_owner_only(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    assert install(m)[0] == 0
    for folder in (".config", ".config/chromium", ".config/chromium/NativeMessagingHosts"):
        assert mode(m.home / folder) == 0o700, folder


def test_the_manifest_folder_made_in_a_browsers_folder_is_owner_only(tmp_path: Path) -> None:
    m = machine(tmp_path)
    (m.home / ".config/google-chrome").mkdir(parents=True, mode=0o700)
    (m.home / ".config/google-chrome").chmod(0o700)
    (m.home / ".config/chromium").mkdir(parents=True)
    (m.home / ".config/chromium").chmod(0o755)
    assert install(m)[0] == 0
    assert mode(m.home / ".config/google-chrome/NativeMessagingHosts") == 0o700
    assert mode(m.home / ".config/chromium/NativeMessagingHosts") == 0o700
    # the browsers' own folders are as they were
    assert mode(m.home / ".config/google-chrome") == 0o700
    assert mode(m.home / ".config/chromium") == 0o755


def test_user_data_dir_folders_are_owner_only_and_system_folders_readable_by_all(
    tmp_path: Path,
) -> None:
    m = machine(tmp_path)
    profile = tmp_path / "profiles" / "e2e"
    assert install(m, user_data_dir=profile)[0] == 0
    for folder in (profile.parent, profile, profile / "NativeMessagingHosts"):
        assert mode(folder) == 0o700, folder
    admin = machine(tmp_path, admin=True, on_path=("chromium",))
    assert install(admin, system=True)[0] == 0
    for folder in ("etc", "etc/chromium", "etc/chromium/native-messaging-hosts"):
        assert mode(admin.root / folder) == 0o755, folder
    assert mode(admin.root / "usr/local/lib/panelot") == 0o755
