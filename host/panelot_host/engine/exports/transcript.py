"""What the readable formats (Markdown, the HTML report) say about a thread: the branch
they show, a tool call in one line, approvals by call, costs and durations in words."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import msgspec

from panelot_host.protocol.common import ToolResult
from panelot_host.protocol.items import Item, ToolCallItem
from panelot_host.protocol.thread_export import ExportApproval, ExportTurn, ThreadExportDocument

SHORT: Final = 200
"""Characters of a tool result shown."""
ARGUMENT: Final = 80
"""Characters of an argument's value shown."""


def branch(document: ThreadExportDocument) -> list[Item]:
    """The selected branch (the one ending at ``headItemId``), oldest first; the items of
    the document when it has no head."""
    by_id = {item.id: item for item in document.items}
    path: list[Item] = []
    current = document.head_item_id
    while current is not None and current in by_id:
        path.append(by_id[current])
        current = by_id[current].parent_id
    path.reverse()
    return path or list(document.items)


def turns_by_id(document: ThreadExportDocument) -> dict[str, ExportTurn]:
    return {turn.id: turn for turn in document.turns}


def approvals_by_call(document: ThreadExportDocument) -> dict[str, list[ExportApproval]]:
    found: dict[str, list[ExportApproval]] = {}
    for approval in document.approvals:
        found.setdefault(approval.tool_call_id, []).append(approval)
    return found


def shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def arguments(call: ToolCallItem) -> str:
    """The call's arguments as ``key=value`` pairs, each value shortened."""
    shown = []
    for key, value in call.args.items():
        text = value if isinstance(value, str) else msgspec.json.encode(value).decode()
        shown.append(f"{key}={shorten(text, ARGUMENT)}")
    return ", ".join(shown)


def result_text(result: ToolResult | None) -> str:
    """A settled call's result, shortened (images named, not shown)."""
    if result is None:
        return ""
    content: Any = result.content
    if isinstance(content, str):
        return shorten(content, SHORT)
    parts = [getattr(block, "text", "[image]") for block in content]
    return shorten(" ".join(parts), SHORT)


def decision_text(approval: ExportApproval) -> str:
    """``allowed by the user (once)``, ``denied by a policy rule``, ``cancelled``..."""
    if approval.decision is None:
        return "withdrawn" if approval.state == "cancelled" else "waiting for the user"
    verb = "allowed" if approval.decision == "allow" else "denied"
    by = {"user": "the user", "grant": "a standing grant", "policy": "a policy rule"}
    who = by.get(approval.decided_by or "", "the user")
    scope = f" ({approval.scope})" if approval.scope else ""
    said = f': "{approval.message}"' if approval.message else ""
    because = f" ({approval.reason})" if approval.reason and not approval.message else ""
    return f"{verb} by {who}{scope}{said}{because}"


def cost_text(cost: float | None) -> str:
    return "unknown cost" if cost is None else f"${cost:.4f}"


def seconds_between(start: str | None, end: str | None) -> str:
    """``1.2 s`` between two timestamps, or empty when either is missing."""
    if not start or not end:
        return ""
    began = datetime.fromisoformat(start.replace("Z", "+00:00"))
    ended = datetime.fromisoformat(end.replace("Z", "+00:00"))
    return f"{(ended - began).total_seconds():.1f} s"


def usage_text(turn: ExportTurn) -> str:
    usage = turn.usage
    tokens = f"{usage.input_tokens} in, {usage.output_tokens} out"
    if usage.reasoning_tokens:
        tokens += f" ({usage.reasoning_tokens} of them reasoning)"
    if usage.cache_read_tokens or usage.cache_write_tokens:
        tokens += f", cache {usage.cache_read_tokens} read / {usage.cache_write_tokens} written"
    model = f"{turn.model}, " if turn.model else ""
    took = seconds_between(turn.started_at, turn.ended_at)
    return f"{model}{tokens} tokens, {cost_text(turn.cost_usd)}" + (f", {took}" if took else "")


def call_label(call: ToolCallItem) -> str:
    return call.label or call.name
