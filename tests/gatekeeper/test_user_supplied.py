"""A call whose input only the user gives on the card, at each call (the files of
``browser_upload_file``), is always asked: no grant, allow rule or default covers it, an
approved ask stands at dispatch, and a deny stays a deny."""

from __future__ import annotations

from panelot_host.gatekeeper import Gatekeeper, PolicyRule
from panelot_host.tools import RunCatalog
from panelot_host.tools.target import Target

from .conftest import bind, grant

SITE = "https://files.example"
TARGET = Target(tab_id=3, url=f"{SITE}/upload", origin=SITE)


def test_the_upload_tool_says_the_user_supplies_its_files(catalog: RunCatalog) -> None:
    call = bind(catalog, "browser_upload_file", {"ref": "e4"})
    assert call.tool.descriptor.user_supplies == "files"
    assert bind(catalog, "browser_click", {"ref": "e4"}).tool.descriptor.user_supplies is None


def test_no_standing_permission_covers_an_upload(catalog: RunCatalog) -> None:
    call = bind(catalog, "browser_upload_file", {"ref": "e4"})
    standing = [
        grant("origin", "browser_upload_file", origin=SITE),
        grant("thread", "browser_upload_file"),
    ]
    for grants in ([], standing):
        decided = Gatekeeper().decide(call, TARGET, thread_id="t1", grants=grants)
        assert decided.action == "ask", decided
        assert "you pick the files for each call" in decided.reason
    allow_rule = PolicyRule(decision="allow", tool="browser_upload_file")
    assert Gatekeeper([allow_rule]).decide(call, TARGET, thread_id="t1", grants=[]).action == "ask"
    deny_rule = PolicyRule(decision="deny", tool="browser_upload_file")
    assert Gatekeeper([deny_rule]).decide(call, TARGET, thread_id="t1", grants=[]).action == "deny"


def test_an_approved_upload_runs_and_a_moved_one_is_asked_again(catalog: RunCatalog) -> None:
    call = bind(catalog, "browser_upload_file", {"ref": "e4"})
    keeper = Gatekeeper()
    asked = keeper.decide(call, TARGET, thread_id="t1", grants=[])
    now = keeper.revalidate(
        asked, call, TARGET, thread_id="t1", grants=[], approval_request_id="a1"
    )
    assert now.action == "allow" and now.source == "approval"
    elsewhere = Target(tab_id=3, url="https://other.example/", origin="https://other.example")
    moved = keeper.revalidate(
        asked, call, elsewhere, thread_id="t1", grants=[], approval_request_id="a1"
    )
    assert moved.action == "ask"
