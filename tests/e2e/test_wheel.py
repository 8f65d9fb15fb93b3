"""The product as a user installs it: the built wheel in a clean virtual environment, no
file of the repository used. ``panelot-host install`` registers the host, ``panelot-host
extension path`` gives the extension's folder, and real Chromium loaded from there answers
a streamed turn; so does the store zip ``panelot-host extension pack`` writes, and the
signed .crx Chromium installs from its update.xml by enterprise policy."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Playwright, expect
from tests.support.web import serve_on_loopback

from panelot_host.install import HOST_NAME, PINNED_EXTENSION_ID

from .fake_model import FakeAnthropic, text_reply
from .harness import REPO, Browser, Profile, extension_id

# building, fetching and installing take minutes on a loaded machine (the default is 120 s)
pytestmark = pytest.mark.timeout(900)


@dataclass(frozen=True)
class Installed:
    """The wheel installed into its own environment."""

    wheel: Path
    panelot_host: Path
    python: Path
    wheelhouse: Path  # the wheel's dependencies (and pipx), fetched once

    def run(self, *args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        """``panelot-host ARGS`` from outside the repository, as the user runs it."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL"))}
        env.update({"HOME": str(home / "home"), "PANELOT_HOME": str(home / "panelot-home")})
        return subprocess.run(
            [str(self.panelot_host), *args],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """``python -m build`` (an sdist, then the wheel from it, as a release is built), then
    the wheel alone installed into a fresh virtual environment."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("panelot_host-*-py3-none-any.whl")
    # the dependencies are fetched once, as wheels, for both environments made here (the
    # venv and pipx's); each then installs with no index, from those wheels only
    wheels = root / "wheelhouse"
    # pipx upgrades its shared pip: the newest pip is among them
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(wheels)]
    fetched = subprocess.run(
        [*download, "--only-binary", ":all:", str(wheel), "pipx", "pip"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    offline = ["-m", "pip", "install", "--quiet", "--no-index", "--find-links", str(wheels)]
    pip = subprocess.run(
        [str(venv / "bin" / "python"), *offline, str(wheel)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    yield Installed(wheel, venv / "bin" / "panelot-host", venv / "bin" / "python", wheels)


def test_the_wheel_carries_the_extension_and_no_repository_file_is_used(
    installed: Installed, tmp_path: Path
) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
    for needed in ("manifest.json", "worker.js", "sidepanel.html", "vendor/marked.esm.js"):
        assert f"panelot_host/extension/{needed}" in names
    assert not any(".d.ts" in name or "node_modules" in name for name in names)
    where = subprocess.run(
        [str(installed.python), "-I", "-c", "import panelot_host; print(panelot_host.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(installed.python.parents[1])
    path = installed.run("extension", "path", home=tmp_path, cwd=tmp_path)
    assert path.returncode == 0, path.stderr
    folder = Path(path.stdout.strip())
    assert folder == tmp_path / "panelot-home" / "extension"
    again = installed.run("extension", "path", home=tmp_path, cwd=tmp_path)
    assert again.stdout == path.stdout and again.stderr == ""  # unchanged: not rewritten


def _turn(browser: Browser, model: FakeAnthropic) -> None:
    model.plan(text_reply(["Installed ", "from the ", "wheel."]))
    panel = browser.open_panel()
    expect(panel.get_by_role("status").first).to_have_text("Connected")
    panel.get_by_role("textbox", name="Message").fill("Are you there?")
    panel.get_by_role("button", name="Send").click()
    conversation = panel.get_by_role("list", name="Conversation")
    expect(conversation.get_by_role("listitem").nth(1)).to_have_text("Installed from the wheel.")


def test_chromium_runs_the_extension_from_extension_path_through_a_turn(
    installed: Installed, playwright: Playwright, model: FakeAnthropic, tmp_path: Path
) -> None:
    profile = Profile(root=tmp_path, model_url=model.url, panelot_host=installed.panelot_host)
    path = installed.run("extension", "path", home=tmp_path, cwd=tmp_path)
    assert path.returncode == 0, path.stderr
    profile.extension = Path(path.stdout.strip())
    assert extension_id(profile.extension / "manifest.json") == PINNED_EXTENSION_ID
    browser = profile.launch(playwright)  # the wheel's panelot-host install --user-data-dir
    try:
        manifest = profile.user_data / "NativeMessagingHosts" / f"{HOST_NAME}.json"
        wrapper = Path(json.loads(manifest.read_text("utf-8"))["path"])
        assert str(installed.python.parent) in wrapper.read_text("utf-8")
        _turn(browser, model)
    finally:
        browser.close()


def test_the_packed_store_zip_loads_and_answers_a_turn(
    installed: Installed, playwright: Playwright, model: FakeAnthropic, tmp_path: Path
) -> None:
    packed = installed.run(
        "extension", "pack", "--out", str(tmp_path / "out"), home=tmp_path, cwd=tmp_path
    )
    assert packed.returncode == 0, packed.stderr
    (store_zip,) = (tmp_path / "out").glob("panelot-*.zip")
    unpacked = tmp_path / "from-the-store"
    with zipfile.ZipFile(store_zip) as archive:
        archive.extractall(unpacked)
    manifest = json.loads((unpacked / "manifest.json").read_text("utf-8"))
    assert "key" not in manifest  # the store assigns the ID
    store_id = extension_id(unpacked / "manifest.json")  # Chromium's, from the folder
    assert store_id != PINNED_EXTENSION_ID
    profile = Profile(
        root=tmp_path,
        model_url=model.url,
        panelot_host=installed.panelot_host,
        extension=unpacked,
        install_args=["--extension-id", store_id],
    )
    browser = profile.launch(playwright)
    try:
        assert browser.worker().url.startswith(f"chrome-extension://{store_id}/")
        _turn(browser, model)
    finally:
        browser.close()


POLICIES = Path("/etc/chromium/policies/managed")  # where Debian's Chromium reads policies


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """The files of ``folder`` over loopback HTTP, as an intranet server; yields the
    folder's URL (ending in a slash)."""
    folder.mkdir(parents=True, exist_ok=True)

    class Files(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with serve_on_loopback(Files) as base:
        yield f"{base}/"


@contextlib.contextmanager
def _forced_install(crx_id: str, update_xml_url: str) -> Iterator[None]:
    """``ExtensionInstallForcelist`` for this one extension while the block runs."""
    POLICIES.mkdir(parents=True, exist_ok=True)
    policy = POLICIES / f"panelot-e2e-{crx_id}.json"
    entry = f"{crx_id};{update_xml_url}"
    # DevTools (so Playwright) may inspect a force-installed extension's pages only when
    # DeveloperToolsAvailability allows it (its default, 0, forbids exactly that)
    policies = {"ExtensionInstallForcelist": [entry], "DeveloperToolsAvailability": 1}
    policy.write_text(json.dumps(policies), "utf-8")
    try:
        yield
    finally:
        policy.unlink()


def test_chromium_installs_the_signed_crx_from_update_xml_by_policy(
    installed: Installed,
    playwright: Playwright,
    model: FakeAnthropic,
    tmp_path: Path,
) -> None:
    """The administrator's route: the .crx and update.xml served by a web server, the ID in
    ExtensionInstallForcelist. Chromium checks the CRX3 signature before it installs."""
    assert os.geteuid() == 0, "writing Chromium's managed policy needs root (CI runs as root)"
    served = tmp_path / "served"
    with serve_folder(served) as base_url:
        packed = installed.run(
            "extension",
            "pack",
            "--out",
            str(served),
            "--key",
            str(tmp_path / "signing.pem"),
            "--update-url",
            base_url,
            home=tmp_path,
            cwd=tmp_path,
        )
        assert packed.returncode == 0, packed.stderr
        crx_id = packed.stdout.split("extension ID ")[1][:32]
        profile = Profile(
            root=tmp_path,
            model_url=model.url,
            panelot_host=installed.panelot_host,
            install_args=["--extension-id", crx_id],
            policy_extension_id=crx_id,
        )
        with _forced_install(crx_id, f"{base_url}update.xml"):
            browser = profile.launch(playwright)
            try:
                worker = browser.worker()  # Chromium installed it: its worker starts
                assert worker.url == f"chrome-extension://{crx_id}/worker.js"
                _turn(browser, model)
                installed_from = profile.user_data / "Default" / "Extensions" / crx_id
                (manifest,) = installed_from.glob("*/manifest.json")  # Chromium's unpacking
                assert json.loads(manifest.read_text("utf-8"))["update_url"] == (
                    f"{base_url}update.xml"
                )
            finally:
                browser.close()


def _readme_user_block() -> str:
    readme = (REPO / "README.md").read_text("utf-8")
    match = re.search(r"```sh user\n(.*?)\n```", readme, flags=re.DOTALL)
    assert match, "the README's wheel route has no sh user block"
    return match.group(1)


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if not p.is_dir()}


def test_the_readmes_wheel_route_installs_and_uninstalls_leaving_only_the_data(
    installed: Installed, tmp_path: Path
) -> None:
    """The README's two commands as printed, with pipx, in a home where Chromium has run;
    then uninstall in the order the README gives."""
    block = _readme_user_block()
    wheel_name = re.search(r"\./(panelot_host-\S+\.whl)", block)
    assert wheel_name and wheel_name.group(1) == installed.wheel.name  # the current version
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True, timeout=120)
    offline = ["-m", "pip", "install", "--quiet", "--no-index"]
    subprocess.run(
        [
            str(tools / "bin" / "python"),
            *offline,
            "--find-links",
            str(installed.wheelhouse),
            "pipx",
        ],
        check=True,
        timeout=600,
    )
    home = tmp_path / "home"
    (home / ".config" / "chromium").mkdir(parents=True)  # a browser that has run
    work = tmp_path / "downloads"
    work.mkdir()
    shutil.copy(installed.wheel, work / installed.wheel.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL"))}
    for name in ("PANELOT_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    env.update(
        HOME=str(home),
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx-bin"),
        PATH=f"{tmp_path / 'pipx-bin'}:{tools / 'bin'}:/usr/bin:/bin",
        PANELOT_PROVIDER="scripted",  # doctor checks a model: the offline demo
        # pipx's pip installs from the wheels fetched once (the commands stay as printed)
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(installed.wheelhouse),
    )
    before = _files(home)

    def run(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    done = run(block)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("all is well"), done.stdout[-2000:]
    data = home / ".local" / "share" / "panelot"
    manifest = home / ".config" / "chromium" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    assert manifest.is_file()
    assert f"pick {data / 'extension'}" in done.stdout
    assert (data / "extension" / "manifest.json").is_file()

    removed = run("panelot-host uninstall && pipx uninstall panelot-host")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    left = {p.relative_to(home) for p in _files(home) - before}
    assert {p for p in left if not p.is_relative_to(".local/share/panelot/logs")} == set()
    assert not list((tmp_path / "pipx-bin").iterdir())
