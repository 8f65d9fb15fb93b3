"""Revalidation right before dispatch: the origin, the policy or the grants changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from tests.support.fake_browser import FakeBrowser, FakePage

from panelot_host.errors import ToolError
from panelot_host.gatekeeper import (
    Gatekeeper,
    Grant,
    GrantLedger,
    PolicyRule,
    Target,
    grants_from_approval,
    resolve_target,
)
from panelot_host.tools import (
    AgentTool,
    ModelCapabilities,
    RunCatalog,
    ToolRegistry,
    new_run_catalog,
)

from .conftest import T0, bind, extra_tools, grant

SHOP, OTHER, BANK = "https://shop.example", "https://other.example", "https://www.bank.example"
PAGES = {
    f"{SHOP}/": FakePage("Shop", "shoes"),
    f"{SHOP}/cart": FakePage("Cart", "1 item"),
    f"{OTHER}/": FakePage("Other", "?"),
    f"{BANK}/": FakePage("Bank", "$"),
}
CLICK: tuple[str, dict[str, Any]] = ("browser_click", {"ref": "e1"})
READ: tuple[str, dict[str, Any]] = ("browser_read", {})

World = dict[str, Any]  # browser, rules, grants: what a change mutates


def _navigate(url: str) -> Callable[[World], None]:
    return lambda w: w["browser"].navigate(url)


def _add_rule(r: PolicyRule) -> Callable[[World], None]:
    return lambda w: w["rules"].append(r)


def _add_grant(g: Grant) -> Callable[[World], None]:
    return lambda w: w["grants"].append(g)


def _nothing(w: World) -> None:
    return None


# (call, start rules, start grants, approved?, change, expected action, reason fragment)
ROWS: list[
    tuple[
        str,
        tuple[str, dict[str, Any]],
        list[PolicyRule],
        list[Grant],
        bool,
        Callable[[World], None],
        str,
        str,
    ]
] = [
    ("approved, nothing changed", CLICK, [], [], True, _nothing, "allow", "you approved it"),
    (
        "approved, tab moved to another origin",
        CLICK,
        [],
        [],
        True,
        _navigate(f"{OTHER}/"),
        "ask",
        f"the tab moved from {SHOP} to {OTHER}",
    ),
    (
        "approved, tab moved within the origin",
        CLICK,
        [],
        [],
        True,
        _navigate(f"{SHOP}/cart"),
        "allow",
        "you approved it",
    ),
    (
        "approved, policy changed",
        CLICK,
        [],
        [],
        True,
        _add_rule(PolicyRule(decision="allow", tool="note_read")),
        "ask",
        "the policy changed",
    ),
    (
        "approved, a deny rule now applies",
        CLICK,
        [],
        [],
        True,
        _add_rule(PolicyRule(decision="deny", effect="write")),
        "deny",
        "policy rule",
    ),
    (
        "approved, the user now denies the tool",
        CLICK,
        [],
        [],
        True,
        _add_grant(grant("global", "browser_click", "deny")),
        "deny",
        "you denied",
    ),
    (
        "approved, a relevant grant appeared",
        CLICK,
        [],
        [],
        True,
        _add_grant(grant("thread", "browser_click", origin=BANK)),
        "ask",
        "permissions changed",
    ),
    (
        "approved, an unrelated grant appeared",
        CLICK,
        [],
        [],
        True,
        _add_grant(grant("thread", "browser_click", thread="t9")),
        "allow",
        "you approved it",
    ),
    (
        "allowed read, tab moved to a denied origin",
        READ,
        [PolicyRule(decision="deny", origin=BANK)],
        [],
        False,
        _navigate(f"{BANK}/"),
        "deny",
        "policy rule",
    ),
    (
        "allowed read, tab moved to an asking origin",
        READ,
        [PolicyRule(decision="ask", origin=BANK)],
        [],
        False,
        _navigate(f"{BANK}/"),
        "ask",
        f"the tab moved from {SHOP} to {BANK}",
    ),
    (
        "origin grant, tab moved elsewhere",
        CLICK,
        [],
        [grant("origin", "browser_click", origin=SHOP)],
        False,
        _navigate(f"{OTHER}/"),
        "ask",
        f"the tab moved from {SHOP} to {OTHER}",
    ),
    (
        "allowed by a grant that was revoked",
        CLICK,
        [],
        [grant("thread", "browser_click", gid="g1")],
        False,
        lambda w: w["grants"].__setitem__(
            0, msgspec.structs.replace(w["grants"][0], revoked_at=T0)
        ),
        "ask",
        "permissions changed",
    ),
    ("not approved, nothing changed", CLICK, [], [], False, _nothing, "ask", "needs your approval"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "call, rules, grants, approved, change, action, fragment",
    [r[1:] for r in ROWS],
    ids=[r[0] for r in ROWS],
)
async def test_revalidation_table(
    catalog: RunCatalog,
    call: tuple[str, dict[str, Any]],
    rules: list[PolicyRule],
    grants: list[Grant],
    approved: bool,
    change: Callable[[World], None],
    action: str,
    fragment: str,
) -> None:
    world: World = {
        "browser": FakeBrowser(PAGES, f"{SHOP}/"),
        "rules": list(rules),
        "grants": list(grants),
    }
    bound = bind(catalog, *call)
    target = await resolve_target(bound, world["browser"])
    prior = Gatekeeper(world["rules"]).decide(bound, target, thread_id="t1", grants=world["grants"])
    change(world)
    again = await resolve_target(bound, world["browser"])
    decision = Gatekeeper(world["rules"]).revalidate(
        prior,
        bound,
        again,
        thread_id="t1",
        grants=world["grants"],
        approval_request_id="req-1" if approved else None,
    )
    assert decision.action == action, decision.reason
    assert fragment in decision.reason
    assert again is not None and decision.basis.origin == again.origin


@pytest.mark.anyio
async def test_origin_change_between_approval_and_dispatch_asks_again(catalog: RunCatalog) -> None:
    browser = FakeBrowser(PAGES, f"{SHOP}/")
    gatekeeper, ledger = Gatekeeper(), GrantLedger()
    call = bind(catalog, *CLICK)
    asked = gatekeeper.decide(
        call, await resolve_target(call, browser), thread_id="t1", grants=ledger.active()
    )
    assert asked.action == "ask" and asked.basis.origin == SHOP
    # the user approves "once"; meanwhile the page redirected to the bank
    browser.navigate(f"{BANK}/")
    moved = await resolve_target(call, browser)
    decision = gatekeeper.revalidate(
        asked, call, moved, thread_id="t1", grants=ledger.active(), approval_request_id="req-1"
    )
    assert decision.action == "ask" and decision.source == "revalidation"
    assert decision.basis.origin == BANK
    assert browser.invocations == []  # nothing dispatched


@pytest.mark.anyio
async def test_a_thread_scoped_approval_becomes_a_grant_that_allows_later_calls(
    catalog: RunCatalog,
) -> None:
    browser, gatekeeper, ledger = FakeBrowser(PAGES, f"{SHOP}/"), Gatekeeper(), GrantLedger()
    call = bind(catalog, *CLICK)
    target = await resolve_target(call, browser)
    asked = gatekeeper.decide(call, target, thread_id="t1", grants=ledger.active())
    for g in grants_from_approval(
        request_id="req-1",
        thread_id="t1",
        tool=call.name,
        level=call.level,
        target=target,
        decision="allow",
        scope="thread",
        decided_at=T0,
    ):
        ledger.add(g)
    final = gatekeeper.revalidate(
        asked, call, target, thread_id="t1", grants=ledger.active(), approval_request_id="req-1"
    )
    assert (final.action, final.source) == ("allow", "grant")
    browser.navigate(f"{OTHER}/")  # thread scope: any origin in this thread
    later = gatekeeper.decide(
        call, await resolve_target(call, browser), thread_id="t1", grants=ledger.active()
    )
    assert later.action == "allow"
    assert gatekeeper.decide(call, target, thread_id="t2", grants=ledger.active()).action == "ask"


@pytest.mark.anyio
async def test_l2_asks_once_per_origin(catalog: RunCatalog) -> None:
    browser, gatekeeper, ledger = FakeBrowser(PAGES, f"{SHOP}/"), Gatekeeper(), GrantLedger()
    full = bind(catalog, "browser_screenshot", {"fullPage": True})
    target = await resolve_target(full, browser)
    asked = gatekeeper.decide(full, target, thread_id="t1", grants=ledger.active())
    assert (asked.action, asked.basis.level) == ("ask", "L2")
    for g in grants_from_approval(
        request_id="r1",
        thread_id="t1",
        tool=full.name,
        level="L2",
        target=target,
        decision="allow",
        scope="once",
        decided_at=T0,
    ):
        ledger.add(g)
    ok = gatekeeper.revalidate(
        asked, full, target, thread_id="t1", grants=ledger.active(), approval_request_id="r1"
    )
    assert ok.action == "allow"
    assert gatekeeper.decide(full, target, thread_id="t1", grants=ledger.active()).action == (
        "allow"
    )
    browser.navigate(f"{OTHER}/")
    elsewhere = await resolve_target(full, browser)
    assert gatekeeper.decide(full, elsewhere, thread_id="t1", grants=ledger.active()).action == (
        "ask"
    )


@pytest.mark.anyio
async def test_an_l2_write_approved_once_is_not_asked_again_for_its_own_attach_grant(
    catalog: RunCatalog,
) -> None:
    browser, gatekeeper, ledger = FakeBrowser(PAGES, f"{SHOP}/"), Gatekeeper(), GrantLedger()
    call = bind(catalog, "trusted_click")
    target = await resolve_target(call, browser)
    asked = gatekeeper.decide(call, target, thread_id="t1", grants=ledger.active())
    made = grants_from_approval(
        request_id="r1",
        thread_id="t1",
        tool=call.name,
        level="L2",
        target=target,
        decision="allow",
        scope="once",
        decided_at=T0,
    )
    assert [g.kind for g in made] == ["l2_attach"]
    ledger.add(made[0])
    ok = gatekeeper.revalidate(
        asked, call, target, thread_id="t1", grants=ledger.active(), approval_request_id="r1"
    )
    assert (ok.action, ok.source) == ("allow", "approval")
    # the next write still asks (effects), but not for attaching
    nxt = gatekeeper.decide(call, target, thread_id="t1", grants=ledger.active())
    assert (nxt.action, nxt.basis.default) == ("ask", "effects")


def test_a_denied_call_stays_denied(catalog: RunCatalog) -> None:
    gatekeeper = Gatekeeper([PolicyRule(decision="deny", tool="note_read")])
    call = bind(catalog, "note_read")
    prior = gatekeeper.decide(call, None, thread_id="t1", grants=[])
    assert prior.action == "deny"
    assert (
        Gatekeeper().revalidate(
            prior, call, None, thread_id="t1", grants=[], approval_request_id="x"
        )
        is prior
    )


@pytest.mark.anyio
async def test_target_resolution(catalog: RunCatalog) -> None:
    browser = FakeBrowser(PAGES, f"{SHOP}/")
    browser.tabs[2] = type(browser.tabs[1])(2, [f"{BANK}/"])
    assert await resolve_target(bind(catalog, "note_read"), browser) is None  # L0: no target
    assert await resolve_target(bind(catalog, "browser_read", {"tabId": 2}), browser) == Target(
        tab_id=2, url=f"{BANK}/", origin=BANK, title="Bank", active=False
    )
    with pytest.raises(ToolError, match="no browser"):
        await resolve_target(bind(catalog, "browser_read"), None)


@pytest.mark.anyio
async def test_a_tools_own_resolver_is_used() -> None:
    async def by_url(args: Any) -> Target:
        return Target(origin="https://api.example")

    base = next(t for t in extra_tools() if t.name == "page_edit")
    tool: AgentTool = msgspec.structs.replace(base, name="resolved", resolve_target=by_url)
    registry = ToolRegistry()
    registry.register(tool)
    catalog = new_run_catalog(registry.current, ModelCapabilities(True, True), ["page_edit"])
    call = bind(catalog, "resolved")
    assert (await resolve_target(call, None)) == Target(origin="https://api.example")
