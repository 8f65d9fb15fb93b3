"""The host manifest and wrapper writers: what Chrome requires of them, on real files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path, PureWindowsPath

import pytest

from panelot_host.install import (
    HOST_NAME,
    ManifestError,
    build_manifest,
    extension_origin,
    install_into_user_data_dir,
    read_manifest,
    user_native_hosts_dir,
    wrapper_text,
    write_manifest,
    write_wrapper,
)

REPO = Path(__file__).resolve().parents[2]
EXT_ID = "abcdefghijklmnopabcdefghijklmnop"
ORIGIN = f"chrome-extension://{EXT_ID}/"


def test_origin_of_an_extension_id_has_the_trailing_slash() -> None:
    assert extension_origin(EXT_ID) == ORIGIN
    with pytest.raises(ManifestError):
        extension_origin("ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP")
    with pytest.raises(ManifestError):
        extension_origin("abcdefghijklmnopabcdefghijklmnoq")  # q is not a hex letter a-p


@pytest.mark.parametrize(
    "origin",
    [
        f"chrome-extension://{EXT_ID}",  # no trailing slash: Chrome ignores it
        "chrome-extension://*/",
        "https://example.com/",
        f"chrome-extension://{EXT_ID}/sidepanel.html",
    ],
)
def test_an_origin_chrome_would_not_match_is_refused(origin: str, tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="chrome-extension://"):
        build_manifest(tmp_path / "host", [origin])


@pytest.mark.parametrize("name", ["Com.panelot", ".com.panelot", "com..panelot", "com-panelot"])
def test_a_name_chrome_would_not_accept_is_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="host name"):
        build_manifest(tmp_path / "host", [ORIGIN], name=name)


def test_relative_path_and_empty_origins_are_refused() -> None:
    with pytest.raises(ManifestError, match="absolute"):
        build_manifest(Path("bin/host"), [ORIGIN])
    with pytest.raises(ManifestError, match="at least one"):
        build_manifest(Path("/bin/host"), [])


def test_written_manifest_matches_the_template_in_manifest_folder(tmp_path: Path) -> None:
    path = write_manifest(tmp_path / "hosts", build_manifest(Path("/opt/p/host"), [ORIGIN]))
    assert path.name == f"{HOST_NAME}.json"
    template = (REPO / "manifest" / f"{HOST_NAME}.json.template").read_text("utf-8")
    filled = template.replace("@HOST_PATH@", "/opt/p/host").replace(
        "@ALLOWED_ORIGINS@", json.dumps([ORIGIN])
    )
    assert json.loads(path.read_text("utf-8")) == json.loads(filled)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert read_manifest(path).allowed_origins == [ORIGIN]
    assert not list((tmp_path / "hosts").glob(".*.tmp"))


def test_read_manifest_checks_file_stem_and_fields(tmp_path: Path) -> None:
    good = build_manifest(Path("/opt/p/host"), [ORIGIN])
    written = write_manifest(tmp_path, good)
    renamed = written.rename(tmp_path / "other.json")
    with pytest.raises(ManifestError, match="must be named"):
        read_manifest(renamed)
    (tmp_path / f"{HOST_NAME}.json").write_text('{"name": "com.panelot.host"}', "utf-8")
    with pytest.raises(ManifestError):
        read_manifest(tmp_path / f"{HOST_NAME}.json")


def test_wrapper_runs_this_interpreter_isolated_and_forwards_arguments(tmp_path: Path) -> None:
    wrapper = write_wrapper(tmp_path / "bin")
    assert os.access(wrapper, os.X_OK)
    assert stat.S_IMODE(wrapper.stat().st_mode) == 0o755
    text = wrapper.read_text("utf-8")
    assert text.startswith("#!/bin/sh\n")
    assert f"exec {os.path.abspath(sys.executable)} -I -m panelot_host" in text
    done = subprocess.run([str(wrapper), "version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("panelot-host ")


def test_wrapper_quotes_paths_with_spaces_and_refuses_relative_ones(tmp_path: Path) -> None:
    text = wrapper_text(Path("/opt/my tools/python3"))
    assert "exec '/opt/my tools/python3' -I -m panelot_host \"$@\"" in text
    with pytest.raises(ValueError, match="absolute"):
        wrapper_text(Path("python3"))
    batch = wrapper_text(PureWindowsPath("C:/Python311/python.exe"), windows=True)
    assert batch == '@echo off\r\n"C:\\Python311\\python.exe" -I -m panelot_host %*\r\n'


def test_install_into_a_user_data_dir_puts_the_manifest_where_chromium_reads_it(
    tmp_path: Path,
) -> None:
    installed = install_into_user_data_dir(tmp_path / "profile", [ORIGIN], bin_dir=tmp_path / "b")
    assert installed.manifest == tmp_path / "profile" / "NativeMessagingHosts" / (
        HOST_NAME + ".json"
    )
    manifest = read_manifest(installed.manifest)
    assert manifest.path == str(installed.wrapper)
    assert manifest.type == "stdio"


def test_refused_origin_is_refused_by_the_host_started_through_the_wrapper(
    tmp_path: Path,
) -> None:
    """The wrapper starts the real host as Chrome would: origin first, PANELOT_HOME from env."""
    wrapper = write_wrapper(tmp_path / "bin")
    env = {**os.environ, "PANELOT_HOME": str(tmp_path / "home"), "PANELOT_ALLOWED_ORIGINS": ""}
    done = subprocess.run(
        [str(wrapper), ORIGIN],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 3
    assert "refusing to serve" in done.stderr


def test_per_user_locations_follow_each_browser() -> None:
    home = Path("/home/u")
    assert user_native_hosts_dir("chrome", "linux", home) == Path(
        "/home/u/.config/google-chrome/NativeMessagingHosts"
    )
    assert user_native_hosts_dir("chromium", "darwin", home) == Path(
        "/home/u/Library/Application Support/Chromium/NativeMessagingHosts"
    )
    with pytest.raises(KeyError):
        user_native_hosts_dir("netscape", "linux", home)
