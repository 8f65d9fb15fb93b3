"""Content read on one origin delivered into another (``gatekeeper.provenance``): which
calls deliver, which origins count, and what the decision does with them."""

from __future__ import annotations

import pytest

from panelot_host.gatekeeper import Gatekeeper, PolicyRule, Target
from panelot_host.gatekeeper.provenance import flow_sentence, foreign_sources
from panelot_host.tools import RunCatalog

from .conftest import bind, grant

A, B, C = "https://a.example", "https://b.example", "https://c.example"
ON_B = Target(tab_id=4, url=f"{B}/form", origin=B)


@pytest.mark.parametrize(
    ("tool", "args", "verb"),
    [
        ("browser_type", {"ref": "e1", "text": "x"}, "types into"),
        ("browser_click", {"ref": "e1"}, "clicks on"),
        ("browser_select_option", {"ref": "e1", "values": ["x"]}, "selects an option on"),
        ("browser_press_key", {"key": "Enter"}, "presses keys on"),
        ("browser_navigate", {"url": f"{B}/x"}, "loads a page of"),
        ("browser_tab_new", {"url": f"{B}/x"}, "opens a page of"),
    ],
)
def test_calls_that_deliver_name_the_other_origins_read(
    catalog: RunCatalog, tool: str, args: dict[str, object], verb: str
) -> None:
    call = bind(catalog, tool, args)
    assert foreign_sources(call, ON_B, [A, B, A, C, "null", ""]) == (A, C)
    sentence = flow_sentence(call, ON_B, (A, C))
    assert sentence == f"this turn read content from {A} and {C}; this call {verb} {B}"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("browser_read", {}),
        ("browser_snapshot", {}),
        ("browser_scroll", {"direction": "down"}),
        ("browser_tab_close", {"tabId": 4}),
        ("browser_tab_select", {"tabId": 4}),
        ("browser_navigate_back", {}),
    ],
)
def test_calls_that_deliver_nothing_are_not_concerned(
    catalog: RunCatalog, tool: str, args: dict[str, object]
) -> None:
    assert foreign_sources(bind(catalog, tool, args), ON_B, [A]) == ()


def test_a_target_without_an_origin_is_not_concerned(catalog: RunCatalog) -> None:
    call = bind(catalog, "browser_type", {"ref": "e1", "text": "x"})
    assert foreign_sources(call, None, [A]) == ()
    assert foreign_sources(call, Target(tab_id=1, url="about:blank", origin="null"), [A]) == ()


def test_other_origins_turn_every_allow_into_an_ask_and_keep_a_deny(catalog: RunCatalog) -> None:
    call = bind(catalog, "browser_type", {"ref": "e1", "text": "x"})
    granted = [grant("origin", "browser_type", origin=B)]
    keeper = Gatekeeper()
    assert keeper.decide(call, ON_B, thread_id="t1", grants=granted, read_from=[B]).action == (
        "allow"
    )
    asked = keeper.decide(call, ON_B, thread_id="t1", grants=granted, read_from=[A, B])
    assert asked.action == "ask" and asked.basis.read_from == (A,)
    assert asked.reason == (
        f"this turn read content from {A}; this call types into {B}: "
        "a standing permission never covers that"
    )
    everywhere = [grant("global", "*", thread=None)]
    assert keeper.decide(call, ON_B, thread_id="t1", grants=everywhere, read_from=[A]).action == (
        "ask"
    )
    allow_rule = Gatekeeper([PolicyRule(decision="allow", tool="browser_type")])
    assert allow_rule.decide(call, ON_B, thread_id="t1", grants=[], read_from=[A]).action == "ask"
    deny_rule = Gatekeeper([PolicyRule(decision="deny", tool="browser_type")])
    assert deny_rule.decide(call, ON_B, thread_id="t1", grants=[], read_from=[A]).action == "deny"


def test_an_ask_keeps_its_reason_and_adds_the_flow(catalog: RunCatalog) -> None:
    call = bind(catalog, "browser_click", {"ref": "e1"})
    asked = Gatekeeper().decide(call, ON_B, thread_id="t1", grants=[], read_from=[A])
    assert asked.action == "ask"
    assert asked.reason == (
        f"it can change the page or your data; this turn read content from {A}; "
        f"this call clicks on {B}"
    )
