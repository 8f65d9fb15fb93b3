"""Workflow replays in real Chromium (issue 29) on the loopback shop: a task recorded once
(search, add the desk lamp to the cart) replays without the model after the shop changed
cosmetically (ids, classes, order, wrappers, a cookie banner), and hands over to the model
with the plan and the divergence when the button it needs is gone."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page
from tests.support.shop import Look, ShopState

from .fake_model import FakeAnthropic, text_reply
from .harness import Browser
from .panel_kit import rpc, snapshot
from .tool_driver import allow_for_the_site_until, by_ref, open_tab, plan_calls, start_turn


def _saved_workflow(browser: Browser, model: FakeAnthropic, base: str) -> tuple[Page, str]:
    """Record the task in a real turn, then save the host's draft of it; returns the panel
    and the workflow's id."""
    _, tab = open_tab(browser, f"{base}/help")
    plan_calls(
        model,
        [
            ("browser_navigate", {"tabId": tab, "url": f"{base}/"}),
            ("browser_snapshot", {"tabId": tab}),
            ("browser_type", by_ref(tab, "searchbox", "Search products", text="lamp")),
            ("browser_click", by_ref(tab, "button", "Search")),
            ("browser_snapshot", {"tabId": tab}),
            ("browser_click", by_ref(tab, "button", "Add to cart")),  # the first: Desk lamp
        ],
        "Added the desk lamp.",
    )
    panel = start_turn(browser, "Put the desk lamp in my cart")
    done = panel.get_by_role("list", name="Conversation").get_by_role("listitem")
    added = done.filter(has_text="Added the desk lamp.")
    allow_for_the_site_until(panel, lambda: added.count() > 0, "the recording did not end")
    opened = snapshot(panel)
    draft = rpc(
        panel,
        "workflow.propose",
        {"threadId": opened["thread"]["id"], "turnId": opened["turn"]["id"]},
    )["draft"]
    saved = rpc(panel, "workflow.save", {"commandId": f"save-{time.time()}", "workflow": draft})
    return panel, saved["workflow"]["id"]


def _run(panel: Page, workflow_id: str) -> dict[str, Any]:
    """Run the workflow in a new thread, answering its approvals; returns its snapshot once
    its turn has ended."""
    started = rpc(
        panel, "workflow.run", {"commandId": f"run-{time.time()}", "workflowId": workflow_id}
    )
    panel.evaluate("(id) => panelot.controller.open(id)", started["threadId"])

    def ended() -> bool:
        turn = snapshot(panel, started["threadId"])["turn"]
        return bool(turn and turn["id"] == started["turnId"] and turn["status"] != "running")

    allow_for_the_site_until(panel, ended, "the run did not end", timeout_s=90)
    return snapshot(panel, started["threadId"])


def _calls(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in run["items"] if i["kind"] == "toolCall"]


@pytest.mark.parametrize("seed", [3, 11])
def test_a_replay_after_cosmetic_changes_completes_without_the_model(
    browser: Browser, model: FakeAnthropic, shop: tuple[str, ShopState], seed: int
) -> None:
    base, state = shop
    panel, workflow_id = _saved_workflow(browser, model, base)
    asked = len(model.bodies)
    state.cart.clear()
    state.look = Look(seed=seed)  # ids, classes, order, wrappers, maybe a cookie banner
    run = _run(panel, workflow_id)
    assert run["turn"]["status"] == "completed", run["turn"]
    record = run["turn"]["workflow"]
    assert record["divergedAt"] is None and not record["handedOver"], record
    assert {c["decidedBy"] for c in _calls(run)} == {"workflow"}
    assert len(model.bodies) == asked  # 0 model tokens: the model was asked nothing
    assert state.cart == {"Desk lamp": 1}  # the desk lamp, wherever the shuffle put it


def test_a_removed_button_hands_over_to_the_model_with_the_plan(
    browser: Browser, model: FakeAnthropic, shop: tuple[str, ShopState]
) -> None:
    base, state = shop
    panel, workflow_id = _saved_workflow(browser, model, base)
    asked = len(model.bodies)
    state.cart.clear()
    state.look = Look(seed=5, sold_out="Desk lamp")
    model.plan(text_reply(["The desk lamp is sold out; I added nothing."]))
    run = _run(panel, workflow_id)
    record = run["turn"]["workflow"]
    assert record["handedOver"] and record["divergedAt"] is not None, record
    assert "Add to cart" in (record["divergence"] or "")
    assert len(model.bodies) == asked + 1  # handed over once
    told = str(model.bodies[-1]["messages"])
    assert "The workflow stopped at step" in told or "plan" in told.lower()
    assert state.cart == {}
    notices = [i for i in run["items"] if i["kind"] == "notice"]
    assert any(n.get("code") == "workflow_diverged" for n in notices), notices
    replayed = [c for c in _calls(run) if c["decidedBy"] == "workflow"]
    assert replayed and record["replayedSteps"], record
