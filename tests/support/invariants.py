"""Request invariants checked on every provider request the engine makes in the suite."""

from __future__ import annotations

from panelot_host.engine import prompts
from panelot_host.providers.types import (
    AssistantMessage,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)


class InvariantViolation(AssertionError):
    pass


def check_request(request: ModelRequest) -> None:
    """No orphan tool results, exactly one result per call, results right after their batch
    (so steering never sits between a call and its result), unique call ids, and no tools
    offered once tools are disabled."""
    messages = request.messages
    seen_ids: set[str] = set()
    index = 0
    while index < len(messages):
        message = messages[index]
        if isinstance(message, ToolResultMessage):
            raise InvariantViolation(f"orphan tool result {message.call_id!r} at {index}")
        index += 1
        if not isinstance(message, AssistantMessage):
            continue
        calls = [part for part in message.content if isinstance(part, ToolCallPart)]
        for call in calls:
            if not call.call_id:
                raise InvariantViolation(f"empty call id for {call.name}")
            if call.call_id in seen_ids:
                raise InvariantViolation(f"duplicate call id {call.call_id!r}")
            seen_ids.add(call.call_id)
        results = messages[index : index + len(calls)]
        expected = [c.call_id for c in calls]
        got = [r.call_id if isinstance(r, ToolResultMessage) else None for r in results]
        if got != expected:
            raise InvariantViolation(
                f"the results after the batch at {index - 1} are {got}, expected {expected}"
            )
        index += len(calls)
    if _tools_disabled(request) and request.tools:
        raise InvariantViolation("tools were offered after they were disabled")


def _tools_disabled(request: ModelRequest) -> bool:
    marker = prompts.TOOLS_DISABLED.split("{")[0]
    last = request.messages[-1] if request.messages else None
    return isinstance(last, UserMessage) and any(
        isinstance(part, TextPart) and part.text.startswith(marker) for part in last.content
    )
