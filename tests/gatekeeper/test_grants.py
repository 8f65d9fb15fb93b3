"""Grants: made from approvals with provenance, listed, revoked, exported."""

from __future__ import annotations

import json
from datetime import timedelta

import msgspec
import pytest

from panelot_host.errors import Conflict, InvalidParams, NotFound
from panelot_host.gatekeeper import (
    Gatekeeper,
    Grant,
    GrantLedger,
    GrantProvenance,
    Target,
    export_grant_ledger,
    grants_from_approval,
    list_grants,
    revoke_grant,
)
from panelot_host.tools import RunCatalog

from .conftest import T0, bind, grant

SHOP = Target(tab_id=4, url="https://shop.example/a", origin="https://shop.example")


def _ids() -> object:
    counter = iter(range(100))
    return lambda: f"g{next(counter)}"


@pytest.mark.parametrize(
    "scope, level, decision, expected",
    [
        ("once", "L1", "allow", []),
        ("once", "L1", "deny", []),
        ("thread", "L1", "allow", [("thread", "browser_click", "allow", None, "t1", "tool")]),
        ("thread", "L1", "deny", [("thread", "browser_click", "deny", None, "t1", "tool")]),
        (
            "origin",
            "L1",
            "allow",
            [("origin", "browser_click", "allow", "https://shop.example", None, "tool")],
        ),
        (
            "origin",
            "L1",
            "deny",
            [("origin", "browser_click", "deny", "https://shop.example", None, "tool")],
        ),
        (
            "once",
            "L2",
            "allow",
            [("thread", "*", "allow", "https://shop.example", "t1", "l2_attach")],
        ),
        ("once", "L2", "deny", []),
        (
            "origin",
            "L2",
            "allow",
            [
                ("origin", "browser_click", "allow", "https://shop.example", None, "tool"),
                ("thread", "*", "allow", "https://shop.example", "t1", "l2_attach"),
            ],
        ),
    ],
)
def test_approval_decisions_become_grants(
    scope: str, level: str, decision: str, expected: list[tuple[object, ...]]
) -> None:
    made = grants_from_approval(
        request_id="req-9",
        thread_id="t1",
        tool="browser_click",
        level=level,  # type: ignore[arg-type]
        target=SHOP,
        decision=decision,  # type: ignore[arg-type]
        scope=scope,  # type: ignore[arg-type]
        decided_at=T0,
        tool_call_id="call-3",
        new_id=_ids(),  # type: ignore[arg-type]
    )
    assert [(g.scope, g.tool, g.decision, g.origin, g.thread_id, g.kind) for g in made] == expected
    for g in made:
        assert g.provenance == GrantProvenance(
            approval_request_id="req-9",
            decided_at=T0,
            scope=scope,  # type: ignore[arg-type]
            tool="browser_click",
            thread_id="t1",
            origin="https://shop.example",
            tool_call_id="call-3",
        )
        assert g.created_at == T0 and g.active


def test_origin_scope_needs_an_origin() -> None:
    with pytest.raises(InvalidParams) as info:
        grants_from_approval(
            request_id="r",
            thread_id="t1",
            tool="fetch_url",
            level="L0",
            target=None,
            decision="allow",
            scope="origin",
            decided_at=T0,
        )
    assert info.value.errors[0]["path"] == "$.scope"


def test_grant_scopes_need_their_anchor() -> None:
    with pytest.raises(ValueError, match="thread_id"):
        Grant(id="x", scope="thread", tool="t", decision="allow", created_at=T0)
    with pytest.raises(ValueError, match="origin"):
        Grant(id="x", scope="origin", tool="t", decision="allow", created_at=T0)


def test_a_revoked_grant_stops_applying(catalog: RunCatalog) -> None:
    ledger = GrantLedger([grant("thread", "browser_click", gid="g1")])
    call = bind(catalog, "browser_click", {"ref": "e"})
    gatekeeper = Gatekeeper()
    assert gatekeeper.decide(call, SHOP, thread_id="t1", grants=ledger.active()).action == "allow"
    revoked = ledger.revoke("g1", T0 + timedelta(hours=1))
    assert revoked.revoked_at == T0 + timedelta(hours=1) and not revoked.active
    assert gatekeeper.decide(call, SHOP, thread_id="t1", grants=ledger.active()).action == "ask"
    assert ledger.list() == [] and ledger.list(include_revoked=True) == [revoked]
    again = ledger.revoke("g1", T0 + timedelta(days=3))  # idempotent: first time kept
    assert again.revoked_at == revoked.revoked_at


def test_ledger_refuses_duplicates_and_unknown_ids() -> None:
    ledger = GrantLedger([grant("global", "x", gid="g1")])
    with pytest.raises(Conflict):
        ledger.add(grant("global", "y", gid="g1"))
    with pytest.raises(NotFound):
        ledger.revoke("nope", T0)
    with pytest.raises(NotFound):
        revoke_grant([], "nope", T0)


def test_listing_filters_by_thread_and_orders_oldest_first() -> None:
    late = msgspec.structs.replace(grant("global", "a", gid="late"), created_at=T0 + timedelta(1))
    mine = grant("thread", "b", gid="mine", thread="t1")
    theirs = grant("thread", "c", gid="theirs", thread="t2")
    origin = grant("origin", "d", gid="origin", origin="https://x.example")
    everything = [late, mine, theirs, origin]
    assert [g.id for g in list_grants(everything, thread_id="t1")] == ["mine", "origin", "late"]
    assert [g.id for g in list_grants(everything)] == ["mine", "origin", "theirs", "late"]


def test_the_ledger_exports_as_json_that_decodes_back() -> None:
    made = grants_from_approval(
        request_id="req-1",
        thread_id="t1",
        tool="browser_click",
        level="L1",
        target=SHOP,
        decision="allow",
        scope="origin",
        decided_at=T0,
        new_id=lambda: "g-1",
    )
    ledger = GrantLedger(made)
    ledger.add(grant("global", "fetch_url", "deny", gid="g-0"))
    ledger.revoke("g-0", T0)
    data = ledger.export()
    assert data == export_grant_ledger(ledger.list(include_revoked=True))
    doc = json.loads(data)
    assert doc["version"] == 1
    assert [g["id"] for g in doc["grants"]] == ["g-0", "g-1"]
    first = doc["grants"][1]
    assert first["provenance"]["approvalRequestId"] == "req-1"
    assert first["scope"] == "origin" and first["origin"] == "https://shop.example"
    assert doc["grants"][0]["revokedAt"] == "2025-01-01T00:00:00.000Z"  # milliseconds
    decoded = msgspec.json.decode(json.dumps(doc["grants"]), type=list[Grant])
    assert decoded == ledger.list(include_revoked=True)


def test_exported_times_have_the_documented_millisecond_precision() -> None:
    """As every timestamp on the wire: UTC, milliseconds, ``Z`` (``permissions export``
    printed microseconds, and a float on the way from stored milliseconds gave 122999 µs)."""
    made = grant("global", "fetch_url", "allow", gid="g-9")
    made = msgspec.structs.replace(made, created_at=T0 + timedelta(microseconds=122_999))
    doc = json.loads(export_grant_ledger([made]))
    assert doc["grants"][0]["createdAt"] == T0.strftime("%Y-%m-%dT%H:%M:%S") + ".123Z"
