"""A real Chromium session started through ``panelot-host install --user-data-dir``
answers a turn; doctor agrees beforehand, uninstall leaves the profile as it found it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Playwright, expect

from panelot_host.install import HOST_NAME, PINNED_EXTENSION_ID

from .fake_model import FakeAnthropic, text_reply
from .harness import Profile, extension_id

PANELOT_HOST = str(Path(sys.executable).with_name("panelot-host"))


def _run(profile: Profile, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(profile.root / "home"),
        "PANELOT_HOME": str(profile.panelot_home),
    }
    return subprocess.run(
        [PANELOT_HOST, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_browser_started_through_install_answers_a_turn(
    playwright: Playwright, model: FakeAnthropic, tmp_path: Path
) -> None:
    assert extension_id() == PINNED_EXTENSION_ID
    profile = Profile(root=tmp_path, model_url=model.url)
    browser = profile.launch(playwright)  # runs panelot-host install --user-data-dir
    try:
        manifest = profile.user_data / "NativeMessagingHosts" / f"{HOST_NAME}.json"
        written = json.loads(manifest.read_text("utf-8"))
        assert written["allowed_origins"] == [f"chrome-extension://{PINNED_EXTENSION_ID}/"]
        assert Path(written["path"]).parent == profile.panelot_home / "bin"
        doctor = _run(profile, "doctor", "--user-data-dir", str(profile.user_data), "--offline")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert doctor.stdout.strip().endswith("all is well")

        model.plan(text_reply(["Installed ", "and answering."]))
        panel = browser.open_panel()
        expect(panel.get_by_role("status").first).to_have_text("Connected")
        panel.get_by_role("textbox", name="Message").fill("Are you there?")
        panel.get_by_role("button", name="Send").click()
        conversation = panel.get_by_role("list", name="Conversation")
        expect(conversation.get_by_role("listitem").nth(1)).to_have_text("Installed and answering.")
    finally:
        browser.close()

    again = _run(profile, "install", "--user-data-dir", str(profile.user_data))
    assert again.returncode == 0 and "already installed: nothing changed" in again.stdout
    removed = _run(profile, "uninstall")
    assert removed.returncode == 0, removed.stderr
    assert not manifest.exists()
    assert not (profile.panelot_home / "bin").exists()
    assert (profile.panelot_home / "profiles").is_dir()  # the conversation is kept
