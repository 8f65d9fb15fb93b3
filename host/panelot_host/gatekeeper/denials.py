"""Denials as tool results: errors for the model, never failures for the streak."""

from __future__ import annotations

from panelot_host.gatekeeper.models import Decision
from panelot_host.tools.result import ToolResult, denial_result

ADVICE = "Do not repeat it; choose another approach or ask the user."
"""What a denial tells the model to do next (a workflow's replay, which ends instead,
leaves it out)."""


def user_denial(tool: str, message: str | None = None) -> ToolResult:
    """The result of a call the user denied in the approval prompt."""
    said = f' The user said: "{message.strip()}"' if message and message.strip() else ""
    return denial_result(
        f"The user denied the call to `{tool}`; nothing was executed.{said} {ADVICE}",
        details={"deniedBy": "user"},
    )


def decision_denial(tool: str, decision: Decision) -> ToolResult:
    """The result of a call a policy rule or a standing user denial refused.

    Raises:
        ValueError: ``decision`` is not a deny.
    """
    if decision.action != "deny":
        raise ValueError(f"not a denial: {decision.action}")
    by_user = decision.source == "grant"
    by = "the user's standing decision" if by_user else "policy"
    return denial_result(
        f"The call to `{tool}` was denied by {by} ({decision.reason}); nothing was executed. "
        + ADVICE,
        details={"deniedBy": "user" if by_user else "policy"},
    )
