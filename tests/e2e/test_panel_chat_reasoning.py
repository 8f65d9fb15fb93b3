"""A reasoning model over the OpenAI Responses API (issue 31): its reasoning summary streams
into the panel as a folded "Thinking" section of the step it belongs to, and the step's
reasoning item goes back to the model in the Turn's next request. The model's streams are
recorded ones (``tests/providers/recorded``)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import expect
from tests.providers.recorded_streams import done_items, recorded

from .fake_model import FakeAnthropic, Reply
from .harness import Browser
from .panel_kit import both_schemes, connected, log, rpc, send, settings_for_model, snapshot

MODEL = "gpt-5.1-codex-max"


def test_reasoning_summary_is_a_folded_thinking_section_of_its_step(
    launch_profile: Callable[..., Browser], model: FakeAnthropic
) -> None:
    browser = launch_profile()
    panel = browser.open_panel()
    connected(panel)
    rpc(
        panel,
        "settings.update",
        {
            "commandId": "e2e-responses",
            "provider": "openai",
            "baseUrl": model.url + "/v1",
            "model": MODEL,
            "modelOptions": {MODEL: {"api": "responses", "reasoningEffort": "high"}},
        },
    )
    model.plan(
        Reply(body=[recorded("responses_reasoning_call")]),
        Reply(body=[recorded("responses_reasoning_call_step2")]),
        Reply(body=[recorded("responses_text")]),
    )
    send(panel, "Compute (12 + 7) x 3 x 10")
    conversation = log(panel)
    expect(conversation).to_contain_text("The capital of France is Paris.")
    (reasoning,) = done_items("responses_reasoning_call", "reasoning")
    summary = reasoning["summary"][0]["text"]
    thinking = conversation.get_by_role("group").filter(has_text="Thinking").first
    expect(thinking).to_be_visible()
    expect(thinking.locator(".thinking-text")).not_to_be_visible()  # folded
    thinking.locator("summary").click()
    expect(thinking).to_contain_text("Calculating step-by-step using calculator")
    # the summary's Markdown is drawn (sanitised, as an answer's), not shown as asterisks
    expect(thinking.locator(".thinking-text strong").first).to_have_text(
        "Calculating step-by-step using calculator"
    )
    expect(thinking).not_to_contain_text("**")
    both_schemes(panel, "thinking")
    stored = [i for i in snapshot(panel)["items"] if i["kind"] == "assistant"]
    assert stored[0]["thinking"] == summary
    assert not [i for i in model.bodies[0]["input"] if i.get("type") == "reasoning"]
    sent = [i for i in model.bodies[1]["input"] if i.get("type") == "reasoning"]
    assert [(i["id"], i["encrypted_content"]) for i in sent] == [
        (reasoning["id"], reasoning["encrypted_content"])
    ]
    assert all(seen.path == "/v1/responses" for seen in model.requests)


def test_reasoning_options_are_set_per_model_in_settings_and_used(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel, settings = settings_for_model(browser, "claude-sonnet-4-5")
    settings.get_by_text("Advanced", exact=True).click()
    expect(settings.get_by_role("heading", name="Reasoning")).to_be_visible()
    settings.get_by_role("spinbutton", name="Thinking budget").fill("500")
    settings.get_by_role("button", name="Save reasoning").click()
    expect(settings.get_by_role("status")).to_have_text(
        "The thinking budget must be between 1,024 and 128,000 tokens."
    )
    settings.get_by_role("spinbutton", name="Thinking budget").fill("2048")
    settings.get_by_role("combobox", name="Reasoning effort").select_option("high")
    settings.get_by_role("button", name="Save reasoning").click()
    expect(settings.get_by_role("status")).to_have_text("Reasoning saved.")
    settings.get_by_role("heading", name="Reasoning").scroll_into_view_if_needed()
    both_schemes(panel, "settings-reasoning")
    stored = rpc(panel, "settings.get", {})["settings"]["modelOptions"]
    assert stored == {"claude-sonnet-4-5": {"reasoningEffort": "high", "thinkingBudget": 2048}}
    panel.get_by_role("button", name="Back to chat").click()
    send(panel, "Think about it")
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: Think")).to_be_visible()
    asked = [b for b in model.bodies if b.get("thinking")]
    assert asked and asked[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    # emptied: the model's entry is removed
    panel.get_by_role("button", name="Settings").click()
    settings.get_by_role("spinbutton", name="Thinking budget").fill("")
    settings.get_by_role("combobox", name="Reasoning effort").select_option("")
    settings.get_by_role("button", name="Save reasoning").click()
    expect(settings.get_by_role("status")).to_have_text("Reasoning saved.")
    assert rpc(panel, "settings.get", {})["settings"]["modelOptions"] == {}
