"""User and policy denials are results for the model, not failures for the streak."""

from __future__ import annotations

import pytest

from panelot_host.gatekeeper import Gatekeeper, PolicyRule, decision_denial, user_denial
from panelot_host.tools import RunCatalog, ToolResult

from .conftest import bind, grant


def _is_denial(result: ToolResult) -> None:
    assert result.is_error and result.denied and not result.counts_as_failure
    assert "nothing was executed" in str(result.content)


def test_a_policy_denial_is_a_denial_not_a_failure(catalog: RunCatalog) -> None:
    call = bind(catalog, "fetch_url")
    decision = Gatekeeper([PolicyRule(decision="deny", tool="fetch_*", id="no-net")]).decide(
        call, None, thread_id="t1", grants=[]
    )
    result = decision_denial(call.name, decision)
    _is_denial(result)
    assert "denied by policy (policy rule 'no-net' (tool fetch_*: deny))" in str(result.content)
    assert result.details == {"deniedBy": "policy"}


def test_a_standing_user_denial_says_so(catalog: RunCatalog) -> None:
    call = bind(catalog, "fetch_url")
    decision = Gatekeeper().decide(
        call, None, thread_id="t1", grants=[grant("global", "fetch_url", "deny")]
    )
    result = decision_denial(call.name, decision)
    _is_denial(result)
    assert "denied by the user's standing decision" in str(result.content)
    assert result.details == {"deniedBy": "user"}


def test_a_user_denial_carries_the_users_message() -> None:
    result = user_denial("browser_click", "not that button")
    _is_denial(result)
    assert 'The user said: "not that button"' in str(result.content)
    assert result.details == {"deniedBy": "user"}
    _is_denial(user_denial("browser_click"))


def test_only_deny_decisions_make_denials(catalog: RunCatalog) -> None:
    call = bind(catalog, "note_read")
    allowed = Gatekeeper().decide(call, None, thread_id="t1", grants=[])
    with pytest.raises(ValueError, match="not a denial"):
        decision_denial(call.name, allowed)
