"""A thread export as a readable Markdown transcript: the title, each Turn with the
user's message, the assistant's text, each tool call in one line (its label, main
arguments, status, result in short, who allowed or denied it) and the Turn's usage."""

from __future__ import annotations

from panelot_host.engine.exports import transcript
from panelot_host.protocol import items
from panelot_host.protocol.thread_export import ExportApproval, ThreadExportDocument


def render(document: ThreadExportDocument) -> str:
    """The transcript of the document's selected branch (its secrets already masked)."""
    thread = document.thread
    lines = [f"# {_inline(thread.title)}", ""]
    lines.append(f"Exported {document.exported_at} by Panelot {document.host.version}.")
    lines.append("")
    turns = transcript.turns_by_id(document)
    asked = transcript.approvals_by_call(document)
    current: str | None = None
    for item in transcript.branch(document):
        if item.turn_id != current and item.turn_id in turns:
            if current in turns:
                lines += _usage(turns[current].id, document)
            current = item.turn_id
            lines += [f"## Turn {list(turns).index(current) + 1}", ""]
        lines += _item(item, asked.get(item.id, []))
    if current in turns:
        lines += _usage(current, document)
    stats = thread.stats
    lines.append(
        f"Thread total: {stats.turns} turns, {stats.input_tokens} input and "
        f"{stats.output_tokens} output tokens, {transcript.cost_text(stats.cost_usd)}."
    )
    return "\n".join(lines) + "\n"


def _usage(turn_id: str, document: ThreadExportDocument) -> list[str]:
    turn = transcript.turns_by_id(document)[turn_id]
    return [f"*{turn.status}: {transcript.usage_text(turn)}*", ""]


def _item(item: items.Item, asked: list[ExportApproval]) -> list[str]:
    match item:
        case items.UserItem():
            return [f"**User:** {_block(item.text)}", ""]
        case items.SteeringItem():
            return [f"**User (while it ran):** {_block(item.text)}", ""]
        case items.AssistantItem():
            cut = " *(interrupted)*" if item.interrupted else ""
            return [f"**Assistant:** {_block(item.text)}{cut}", ""] if item.text or cut else []
        case items.ToolCallItem():
            return _call(item, asked)
        case items.CompactionItem():
            return [f"*Earlier messages summarised ({item.covered_items} items).*", ""]
        case _:
            return [f"> {_inline(item.user_text or item.text)}", ""]


def _call(call: items.ToolCallItem, asked: list[ExportApproval]) -> list[str]:
    took = transcript.seconds_between(call.started_at, call.ended_at)
    line = f"- `{call.name}` {_inline(transcript.call_label(call))}"
    args = transcript.arguments(call)
    if args:
        line += f" ({_inline(args)})"
    line += f": **{call.status}**" + (f" in {took}" if took else "")
    result = transcript.result_text(call.result)
    if result:
        line += f" — {_inline(result)}"
    lines = [line]
    lines += [f"  - {transcript.decision_text(a)}" for a in asked]
    if call.status == "uncertain":
        lines.append("  - outcome unknown: the host stopped while it ran")
    return [*lines, ""]


def _inline(text: str) -> str:
    """One line of text, Markdown's own characters where they would start markup
    escaped."""
    flat = " ".join(text.split())
    for char in "\\`*_[]<>|#":
        flat = flat.replace(char, "\\" + char)
    return flat


def _block(text: str) -> str:
    """A message: its paragraphs kept, indented under its speaker."""
    return text.strip().replace("\n", "\n  ")
