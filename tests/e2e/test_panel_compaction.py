"""A compaction (issue 17) is shown in the panel as a divider that expands to its summary."""

from __future__ import annotations

from playwright.sync_api import expect

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import both_schemes, connected, log, rpc, send, snapshot

LIMITS = {"claude-sonnet-4-5": {"contextWindow": 3000, "maxOutputTokens": 256}}


def test_a_compaction_is_a_divider_that_expands_to_its_summary(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    connected(panel)
    rpc(panel, "settings.update", {"commandId": "limits", "modelLimits": LIMITS})
    compactions: list[dict[str, object]] = []
    for n in range(8):  # each message ~600 tokens: a 3,000-token window fills in a few turns
        send(panel, f"Message {n}: " + "words " * 400)
        expect(log(panel).get_by_role("listitem").last).to_contain_text(f"Echo: Message {n}")
        compactions = [i for i in snapshot(panel)["items"] if i["kind"] == "compaction"]
        if compactions:
            break
    assert compactions, "no compaction after 8 long turns in a 3,000-token window"
    divider = log(panel).get_by_role("group").filter(has_text="Earlier conversation summarized")
    expect(divider).to_be_visible()
    summary = str(compactions[0]["summary"])
    expect(divider.get_by_text(summary[:40])).to_be_hidden()  # folded until asked
    divider.get_by_text("Earlier conversation summarized").click()
    expect(divider).to_contain_text(summary[:40])
    both_schemes(panel, "compaction")
