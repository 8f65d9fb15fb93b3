"""A full turn through panel -> worker -> host -> fake model and back, streamed."""

from __future__ import annotations

from playwright.sync_api import expect

from .fake_model import FakeAnthropic, text_reply
from .harness import Browser, screenshot
from .panel_kit import thread_list


def test_a_turn_streams_the_answer_into_the_panel(browser: Browser, model: FakeAnthropic) -> None:
    model.plan(
        text_reply(["The sky ", "is blue ", "because of ", "Rayleigh scattering."], delay_s=0.05)
    )
    panel = browser.open_panel()
    expect(panel.get_by_role("status").first).to_have_text("Connected")
    panel.get_by_role("textbox", name="Message").fill("Why is the sky blue?")
    panel.get_by_role("button", name="Send").click()
    conversation = panel.get_by_role("list", name="Conversation")
    expect(conversation.get_by_role("listitem").nth(0)).to_have_text("Why is the sky blue?")
    expect(conversation.get_by_role("listitem").nth(1)).to_have_text(
        "The sky is blue because of Rayleigh scattering."
    )
    # the thread is listed under its fallback title (the first line of the message)
    threads = thread_list(panel)
    expect(threads.get_by_role("button", name="Why is the sky blue?")).to_be_visible()
    # the model saw the user's text; the worker holds no pending work afterwards
    assert "Why is the sky blue?" in str(model.bodies[-1]["messages"])
    stats = browser.stats()
    assert stats["pending"] == 0 and stats["inflight"] == 0 and stats["status"] == "connected"
    panel.emulate_media(color_scheme="dark")
    screenshot(panel, "turn-dark")
    panel.emulate_media(color_scheme="light")
