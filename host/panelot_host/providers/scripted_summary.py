"""The scripted models' answer to a compaction's summary request (``purpose="summary"``).

A scripted model cannot read, but demo mode and the torture harness still compact: the
answer is a deterministic digest of the transcript the engine sent (its ``User:``,
``Assistant:`` and ``Tool call`` lines and an earlier summary, if any), so the same
request always gets the same summary and a compaction works without a real model. It
counts the tool calls it covers, earlier summaries' included (``COVERED_CALLS``): the
directives model reads that back to know how far its Turn got.
"""

from __future__ import annotations

import re
from collections import Counter

from panelot_host.providers.types import ModelRequest, TextPart, UserMessage

SUMMARY_CLIP = 200  # characters quoted from one line
SUMMARY_MARK = "Scripted summary of "
COVERED_CALLS = re.compile(r"and (\d+) tool call\(s\)")  # in a summary: the calls it covers
_CONVERSATION = re.compile(r"<conversation>\n(.*)\n</conversation>", re.DOTALL)
_EARLIER = re.compile(r"<earlier-summary>\n(.*?)\n</earlier-summary>", re.DOTALL)
_TOOL_CALL = re.compile(r"^Tool call (\w+)\(")


def scripted_summary(request: ModelRequest) -> str:
    """A summary of the conversation in ``request`` (the same text for the same request)."""
    text = " ".join(
        part.text
        for message in request.messages
        if isinstance(message, UserMessage)
        for part in message.content
        if isinstance(part, TextPart)
    )
    found = _CONVERSATION.search(text)
    lines = (found.group(1) if found else text).splitlines()
    users = [line[len("User: ") :] for line in lines if line.startswith("User: ")]
    steering = [line for line in lines if line.startswith("User (while the agent worked): ")]
    answers = [line for line in lines if line.startswith("Assistant: ")]
    tools = Counter(m.group(1) for line in lines if (m := _TOOL_CALL.match(line)))
    results = [line.strip() for line in lines if line.startswith("  Result: ")]
    earlier = _EARLIER.search(text)
    before = COVERED_CALLS.search(earlier.group(1)) if earlier else None
    calls = sum(tools.values()) + (int(before.group(1)) if before else 0)
    parts = [
        f"{SUMMARY_MARK}{len(users)} user message(s), {len(steering)} steering "
        f"message(s), {len(answers)} assistant message(s) and {calls} tool "
        f"call(s){_tool_counts(tools)}."
    ]
    if users:
        parts.append(f'The user first asked: "{_clip(users[0])}".')
    if results:
        parts.append(f'The last tool result began: "{_clip(results[-1][len("Result: ") :])}".')
    if earlier:
        parts.append(f'Before that: "{_clip(earlier.group(1).splitlines()[0])}".')
    return " ".join(parts)


def _tool_counts(tools: Counter[str]) -> str:
    if not tools:
        return ""
    return " (" + ", ".join(f"{name} x{count}" for name, count in sorted(tools.items())) + ")"


def _clip(text: str) -> str:
    """A quote: one line, clipped, its ``[[directives]]`` defused (a scripted model reads
    the summary back)."""
    text = " ".join(text.split()).replace("[[", "[ [").replace("]]", "] ]")
    return text if len(text) <= SUMMARY_CLIP else text[:SUMMARY_CLIP] + "..."
