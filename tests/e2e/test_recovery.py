"""Disconnects and restarts: the worker stopped by Chrome, the host killed, a manifest
that does not allow the extension. The panel says why in words and recovers."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from .fake_model import HANG, FakeAnthropic, Reply, text_events
from .harness import Browser, screenshot


def _start_a_hanging_turn(panel: Page, model: FakeAnthropic) -> None:
    """A turn whose model stream sends some text, then hangs until the host goes."""
    start, block, delta, *_ = text_events(["Thinking about it"])
    model.plan(Reply(body=[start, block, delta, HANG]))
    expect(panel.get_by_text("Connected")).to_be_visible()
    panel.get_by_role("textbox", name="Message").fill("A long question")
    panel.get_by_role("button", name="Send").click()
    log = panel.get_by_role("list", name="Conversation")
    expect(log.get_by_role("listitem").nth(1)).to_have_text("Thinking about it")


def _resume_finishes_the_turn(panel: Page) -> None:
    panel.get_by_role("button", name="Resume").click()
    log = panel.get_by_role("list", name="Conversation")
    expect(log.get_by_role("listitem").last).to_have_text("Echo: A long question")


def test_worker_stopped_mid_turn_then_woken_shows_the_hosts_recovery_state(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    _start_a_hanging_turn(panel, model)
    first_host = browser.host_pids()
    browser.stop_service_worker(panel)
    # the panel's Port closed; the panel reconnects, which wakes the worker and a new host,
    # which recovered the cut-off stream: the run is interrupted, offered for resuming
    expect(panel.get_by_role("status").filter(has_text="interrupted")).to_be_visible(timeout=20_000)
    expect(panel.get_by_role("button", name="Resume")).to_be_visible()
    assert browser.host_pids() != first_host
    assert panel.evaluate("panelot.client.connects") == 2
    _resume_finishes_the_turn(panel)


def test_host_killed_mid_turn_the_panel_shows_the_cause_and_recovers(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    _start_a_hanging_turn(panel, model)
    killed = browser.kill_host()
    expect(panel.get_by_role("status").filter(has_text="interrupted")).to_be_visible(timeout=20_000)
    causes = panel.evaluate("panelot.causesShown")
    assert causes[0] == (
        "The host stopped unexpectedly. Panelot tries again on its own; nothing you saved is lost."
    )
    expect(panel.get_by_role("alert")).to_be_hidden()  # reconnected: the banner is gone
    expect(panel.get_by_text("Connected")).to_be_visible()
    assert killed not in browser.host_pids()
    _resume_finishes_the_turn(panel)


def test_forbidden_origin_is_explained_in_words(launch_profile: Callable[..., Browser]) -> None:
    browser = launch_profile(origins=["chrome-extension://" + "a" * 32 + "/"])
    panel = browser.open_panel()
    alert = panel.get_by_role("alert")
    expect(alert).to_contain_text("The host does not allow this extension")
    expect(alert.locator("pre")).to_have_text(
        f"panelot-host install --extension-id {browser.ext_id}"
    )
    expect(alert.locator("#banner-details-text")).to_contain_text(
        f"allowed_origins, and chrome-extension://{browser.ext_id}/ is not among them"
    )
    panel.emulate_media(color_scheme="dark")
    screenshot(panel, "forbidden-dark")
    panel.emulate_media(color_scheme="light")
    # the worker keeps retrying with a capped backoff, and every answer says why
    time.sleep(1.0)
    assert browser.stats()["status"] == "disconnected"
    cause = browser.worker().evaluate("panelot.link.status.cause")
    assert cause["code"] == "forbidden"
    assert "forbidden" in cause["chromeMessage"]


def test_a_host_that_is_not_installed_is_explained_in_words(
    launch_profile: Callable[..., Browser], tmp_path: Path
) -> None:
    browser = launch_profile(host_executable=tmp_path / "no-such-host")
    panel = browser.open_panel()
    alert = panel.get_by_role("alert")
    expect(alert).to_contain_text("The Panelot host is not installed")
    expect(alert).to_contain_text("Install it with the README's first command")
    expect(alert.locator("pre").first).to_have_text("bash install/install.sh")
    # a request the panel makes meanwhile fails at once with the same cause
    error = panel.evaluate(
        "panelot.client.request('thread.list', {}).then(() => null, (e) => e.rpc)"
    )
    assert error["code"] == -32090 and error["data"]["cause"] == "host_not_found"
