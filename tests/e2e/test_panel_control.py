"""Control while a turn runs (issue 13, item 3): steering lands before the next model call,
the queue is edited and emptied from the panel, Esc stops the turn as `interrupted`."""

from __future__ import annotations

from playwright.sync_api import expect

from .fake_model import HANG, FakeAnthropic, Reply, text_events, text_reply
from .harness import Browser
from .panel_kit import both_schemes, connected, log, send, snapshot


def test_steer_queue_edit_remove_and_escape_stops(browser: Browser, model: FakeAnthropic) -> None:
    start, block, delta, *_ = text_events(["Working on it"])
    model.plan(
        text_reply(["Slow ", "first ", "answer ", "goes ", "on"], delay_s=0.6),
        Reply(body=[start, block, delta, HANG]),  # the steered call hangs until Esc
    )
    panel = browser.open_panel()
    connected(panel)
    send(panel, "Start working")
    stop = panel.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    # while the turn runs an empty box offers only Stop; typed text offers Send and Queue
    expect(panel.get_by_role("button", name="Send", exact=True)).to_be_hidden()
    expect(panel.get_by_role("button", name="Queue", exact=True)).to_be_hidden()
    # steer: shown as pending, then read by the model's next call
    send(panel, "Use metric units")
    # queue two messages, edit the first, remove the second
    box = panel.get_by_role("textbox", name="Message")
    box.fill("queued one")
    panel.get_by_role("button", name="Queue", exact=True).click()
    box.fill("queued two")
    panel.get_by_role("button", name="Queue", exact=True).click()
    queue = panel.get_by_role("region", name="Queued messages")
    expect(queue.get_by_role("listitem")).to_have_count(2)
    expect(queue).to_contain_text("2 queued (max 8)")
    both_schemes(panel, "running")
    queue.get_by_role("button", name="Edit queued message 1").click()
    editing = queue.get_by_role("textbox", name="Queued message 1")
    editing.press("Escape")  # Esc outside the composer does not stop the turn
    expect(stop).to_be_visible()
    editing.fill("queued one, edited")
    queue.get_by_role("button", name="Save").click()
    queue.get_by_role("button", name="Remove queued message 2").click()
    expect(queue.get_by_role("listitem")).to_have_count(1)
    expect(queue).to_contain_text("queued one, edited")
    stored = snapshot(panel)
    assert [e["text"] for e in stored["queue"]] == ["queued one, edited"]
    # the steering reached the second model call
    expect(log(panel).get_by_role("listitem").filter(has_text="Working on it")).to_be_visible(
        timeout=15_000
    )
    assert "Use metric units" in str(model.bodies[1]["messages"])
    kinds = [(i["kind"], i.get("text")) for i in snapshot(panel)["items"]]
    assert ("steering", "Use metric units") in kinds
    # Esc stops: the turn ends interrupted, then the queued message runs as the next turn
    first_turn = snapshot(panel)["turn"]["id"]
    box.press("Escape")
    queued_answer = log(panel).get_by_role("listitem").filter(has_text="Echo: queued one, edited")
    expect(queued_answer).to_be_visible(timeout=15_000)
    turns = [i for i in snapshot(panel)["items"] if i["turnId"] == first_turn]
    assert any(i["kind"] == "assistant" and i.get("interrupted") for i in turns)
    assert "queued two" not in str(model.bodies)
