"""Real Chromium + the extension + the real host, headless (the recipe is this module;
scripts/test.sh installs what it needs).

``Profile`` is one temporary browser profile: the host installed into its user-data
directory by ``panelot-host install --user-data-dir`` (the real command, as a user runs it),
the host's ``PANELOT_HOME`` and the fake model's URL
passed through the browser's environment, the extension loaded unpacked.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Playwright, Worker

from panelot_host.install import (
    build_manifest,
    extension_origin,
    native_hosts_dir,
    write_manifest,
)

from .isolation import SUITE_MARK, SUITE_VARIABLE, profile_needle, reap

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "extension-shim"
# Debian's Chromium; PANELOT_E2E_CHROMIUM points at another build (e.g. an older package
# unpacked with dpkg -x) to check the suite against the browser another machine gets.
CHROMIUM = Path(os.environ.get("PANELOT_E2E_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
LAUNCH_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
]
REQUEST_TIMEOUT_MS = 20_000
BLOCKS_POLICY_INSTALLS = (  # Playwright's default switches that stop a policy's install
    "--disable-background-networking",
    "--disable-extensions",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
)
TEMP_PREFIX = "panelot-e2e-"  # each browser's TMPDIR in the system's temp directory


def extension_id(manifest: Path = EXTENSION / "manifest.json") -> str:
    """The ID Chrome derives for the unpacked extension: from the manifest's ``key`` (sha256
    of the DER public key), else from the folder's absolute path (a store build has no
    key); the first 32 hex digits mapped 0-f -> a-p."""
    key = json.loads(manifest.read_text("utf-8")).get("key")
    seed = base64.b64decode(key) if key else str(manifest.parent.resolve()).encode()
    digest = hashlib.sha256(seed).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


@dataclass
class Profile:
    root: Path
    model_url: str
    origins: list[str] | None = None  # the host manifest's allowed_origins (default: ours)
    env: dict[str, str] = field(default_factory=dict)
    host_executable: Path | None = None  # another native host (benchmarks' echo host)
    extra_args: list[str] = field(default_factory=list)
    without_model: bool = False  # no provider variables at all: a new user's first run
    # the tests of other features act on tabs the user opened, without the question a
    # thread asks before it acts on a tab it does not own (issue 26's tests turn it on)
    ask_for_unowned_tabs: bool = False
    extension: Path = EXTENSION  # the unpacked extension the browser loads
    # the `panelot-host` that installs the host (another environment's: the built wheel's)
    panelot_host: Path | None = None
    install_args: list[str] = field(default_factory=list)  # e.g. --extension-id ID
    # an extension the browser installs by enterprise policy (ExtensionInstallForcelist,
    # written by the test) instead of loading one unpacked
    policy_extension_id: str | None = None

    @property
    def user_data(self) -> Path:
        return self.root / "user-data"

    @property
    def panelot_home(self) -> Path:
        return self.root / "panelot-home"

    def launch(self, playwright: Playwright) -> Browser:
        ext_id = self.policy_extension_id or extension_id(self.extension / "manifest.json")
        home = self.root / "home"
        home.mkdir(parents=True, exist_ok=True)
        # Chromium keeps its singleton socket under TMPDIR: a socket path has at most 107
        # bytes, so this one is short, outside the profile root; close() removes it.
        tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{SUITE_MARK}-"))
        installed = self.host_executable is None and self.origins is None
        if installed:
            run_install(
                self.user_data, home, self.panelot_home, self.panelot_host, self.install_args
            )
        else:  # a manifest no install would write: another host, or other extensions only
            origins = self.origins if self.origins is not None else [extension_origin(ext_id)]
            manifest = build_manifest(self.host_executable or installed_wrapper(self), origins)
            if self.host_executable is None:
                run_install(self.user_data, home, self.panelot_home)
            write_manifest(native_hosts_dir(self.user_data), manifest)
        env = {
            **os.environ,
            "HOME": str(home),  # Chromium writes ~/.config/chromium/Crash Reports regardless
            "PANELOT_HOME": str(self.panelot_home),
            "ANTHROPIC_BASE_URL": self.model_url,
            "ANTHROPIC_API_KEY": "sk-ant-e2e-not-a-real-key",
            "PANELOT_PROVIDER": "anthropic",
            "PANELOT_MODEL": "claude-sonnet-4-5",
            "TMPDIR": str(tmp),  # whatever Chromium or the host writes to temp stays here
            SUITE_VARIABLE: SUITE_MARK,  # finds every process of the suite afterwards
            "PANELOT_ACT_ON_UNOWNED_TABS": "0" if self.ask_for_unowned_tabs else "1",
            **self.env,
        }
        if not installed:  # the installed wrapper sets it to the origins it was installed for
            env["PANELOT_ALLOWED_ORIGINS"] = extension_origin(ext_id)
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PANELOT_TASK_MODEL"):
            env.pop(name, None)
        if self.without_model:
            for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "PANELOT_PROVIDER"):
                env.pop(name, None)
            env.pop("PANELOT_MODEL", None)
        unpacked = [
            f"--disable-extensions-except={self.extension}",
            f"--load-extension={self.extension}",
            *LAUNCH_ARGS,
        ]
        # by policy: Chromium must fetch the update manifest, which these switches stop
        by_policy = [arg for arg in LAUNCH_ARGS if arg not in BLOCKS_POLICY_INSTALLS]
        context = playwright.chromium.launch_persistent_context(
            str(self.user_data),
            executable_path=str(CHROMIUM),
            headless=True,
            args=[*(by_policy if self.policy_extension_id else unpacked), *self.extra_args],
            ignore_default_args=list(BLOCKS_POLICY_INSTALLS) if self.policy_extension_id else None,
            env=env,
            viewport={"width": 360, "height": 720},
        )
        return Browser(context, ext_id, self, tmp)


def run_install(
    user_data: Path,
    home: Path,
    panelot_home: Path,
    panelot_host: Path | None = None,
    extra: list[str] | None = None,
) -> str:
    """``panelot-host install --user-data-dir`` as a user runs it; returns its report."""
    program = panelot_host or Path(sys.executable).with_name("panelot-host")
    done = subprocess.run(
        [str(program), "install", "--user-data-dir", str(user_data), *(extra or [])],
        env={**os.environ, "HOME": str(home), "PANELOT_HOME": str(panelot_home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"panelot-host install failed: {done.stderr}"
    return done.stdout


def installed_wrapper(profile: Profile) -> Path:
    return profile.panelot_home / "bin" / "panelot-host-chrome"


class Browser:
    def __init__(self, context: BrowserContext, ext_id: str, profile: Profile, tmp: Path) -> None:
        self.tmp = tmp
        self.context = context
        self.ext_id = ext_id
        self.profile = profile

    def worker(self) -> Worker:
        for worker in self.context.service_workers:
            if worker.url.startswith(f"chrome-extension://{self.ext_id}/"):
                return worker
        return self.context.wait_for_event("serviceworker", timeout=15_000)

    def open_panel(self) -> Page:
        page = self.context.new_page()
        page.set_default_timeout(REQUEST_TIMEOUT_MS)
        # ?debug: the panel installs its test hooks (`panelot.*`); Chrome opens it without
        page.goto(f"chrome-extension://{self.ext_id}/sidepanel.html?debug")
        return page

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = self.worker().evaluate("panelot.stats()")
        return result

    def host_pids(self) -> list[int]:
        """The host processes of this profile: those with its PANELOT_HOME in their
        environment (so the test kills exactly its own host)."""
        marker = f"PANELOT_HOME={self.profile.panelot_home}".encode() + b"\0"
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker in environ and b"panelot_host" in cmdline:
                pids.append(int(entry.name))
        return pids

    def kill_host(self) -> int:
        pids = self.host_pids()
        assert len(pids) == 1, f"expected one host process, found {pids}"
        os.kill(pids[0], signal.SIGKILL)
        return pids[0]

    def stop_service_worker(self, page: Page) -> None:
        """What Chrome does to an idle MV3 worker: CDP ServiceWorker.stopAllWorkers."""
        session = self.context.new_cdp_session(page)
        session.send("ServiceWorker.enable")
        session.send("ServiceWorker.stopAllWorkers")
        session.detach()

    def close(self) -> None:
        """Close the browser, then make sure none of this profile's processes (Chromium's,
        the host's) outlives it: the host exits on its stdin's EOF, Chromium's children
        with their parent. One still running after the grace is killed and reported.

        Raises:
            AssertionError: a process of this profile was still running.
        """
        self.context.close()
        left = reap(profile_needle(self.profile.root), grace_s=15)
        shutil.rmtree(self.tmp, ignore_errors=True)
        assert not left, "still running after the browser closed (killed now):\n" + "\n".join(
            map(str, left)
        )


def chromium_version(executable: Path = CHROMIUM) -> str:
    """What ``chromium --version`` prints, e.g. ``Chromium 156.0.8078.114 built on ...``."""
    done = subprocess.run(
        [str(executable), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout.strip() or f"(no version from {executable}: {done.stderr.strip()})"


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
