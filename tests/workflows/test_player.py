"""The workflow player's decisions from the conversation alone (issue 29): what it calls
next, and why it stops (another site than recorded, an element gone)."""

from __future__ import annotations

from panelot_host.engine.workflow_player import Call, Diverged, Done, WorkflowPlayer, call_prefix
from panelot_host.protocol.workflows import (
    ExpectAppears,
    SemanticTarget,
    WorkflowDefinition,
    WorkflowStep,
)
from panelot_host.providers.types import Message, TextPart, ToolResultMessage

TARGET = SemanticTarget(role="button", name="Pay", origin="https://shop.example", landmark="main")
WORKFLOW = WorkflowDefinition(
    name="Pay",
    steps=[
        WorkflowStep(
            tool="browser_click", target=TARGET, expect=ExpectAppears(role="status", name="Paid")
        )
    ],
)
PREFIX = call_prefix("trn_01abc")


def result(part: str, text: str) -> ToolResultMessage:
    return ToolResultMessage(PREFIX + part, "browser_snapshot", [TextPart(text)])


def page(url: str, *lines: str) -> str:
    return "\n".join([f'Page "Shop" at {url}; scrolled to y=0 of 1 px.', "- main [e1]", *lines])


def player() -> WorkflowPlayer:
    return WorkflowPlayer(WORKFLOW, {}, "trn_01abc", None)


def test_a_step_is_a_snapshot_then_the_action_on_the_resolved_ref_then_its_check() -> None:
    messages: list[Message] = []
    assert player().decide(messages) == Call(0, PREFIX + "0s", "browser_snapshot", {})
    messages.append(result("0s", page("https://shop.example/cart", '  - button "Pay" [e7]')))
    assert player().decide(messages) == Call(0, PREFIX + "0a", "browser_click", {"ref": "e7"})
    messages.append(ToolResultMessage(PREFIX + "0a", "browser_click", [TextPart("Clicked")]))
    assert player().decide(messages) == Call(0, PREFIX + "0c", "browser_snapshot", {})
    messages.append(result("0c", page("https://shop.example/cart", '  - status "Paid" [e9]')))
    done = player()
    assert done.decide(messages) == Done() and done.replayed == [0]


def test_a_look_alike_page_of_another_site_is_never_acted_on() -> None:
    messages: list[Message] = [
        result("0s", page("https://evil.example/cart", '  - button "Pay" [e7]'))
    ]
    decision = player().decide(messages)
    assert isinstance(decision, Diverged)
    assert decision.why == (
        "expected a page of https://shop.example; the tab is at https://evil.example/cart"
    )


def test_an_effect_that_does_not_show_is_a_divergence() -> None:
    messages: list[Message] = [
        result("0s", page("https://shop.example/cart", '  - button "Pay" [e7]')),
        ToolResultMessage(PREFIX + "0a", "browser_click", [TextPart("Clicked")]),
        result("0c", page("https://shop.example/cart", '  - button "Pay" [e7]')),
    ]
    decision = player().decide(messages)
    assert decision == Diverged(0, 'expected status "Paid" to appear; it did not')


def test_a_run_without_a_tab_of_its_own_opens_one_for_its_first_page() -> None:
    """A run in a thread that owns no tab opens its own tab for a first step that loads a
    page (the user's tab is left alone); a thread with a tab loads the page there."""
    go = WorkflowDefinition(
        name="Go",
        steps=[WorkflowStep(tool="browser_navigate", arguments={"url": "https://shop.example/"})],
    )
    fresh = WorkflowPlayer(go, {}, "trn_01abc", None, opens_tab=True)
    assert fresh.decide([]) == Call(
        0, PREFIX + "0a", "browser_tab_new", {"url": "https://shop.example/"}
    )
    owned = WorkflowPlayer(go, {}, "trn_01abc", None, opens_tab=False)
    assert owned.decide([]) == Call(
        0, PREFIX + "0a", "browser_navigate", {"url": "https://shop.example/"}
    )
    opened = ToolResultMessage(PREFIX + "0a", "browser_tab_new", [TextPart("Opened tab 7")])
    assert fresh.decide([opened]) == Done()  # the step is done once its tab is open
