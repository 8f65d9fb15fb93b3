"""How the conversation looks in a terminal: plain lines, ANSI dim/bold only on a TTY."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

ONE_LINE = 120  # characters of a tool's arguments or result shown
_FENCE = re.compile(r"<([a-z][a-z-]*)>\s*(.*?)\s*</\1>", re.DOTALL)


def wants_color(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """ANSI styling only on a terminal, and not when ``NO_COLOR`` or ``TERM=dumb`` says no."""
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()):
        return False
    return "NO_COLOR" not in environ and environ.get("TERM") != "dumb"


def one_line(text: str, limit: int = ONE_LINE) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def compact_args(args: Any) -> str:
    return one_line(json.dumps(args, ensure_ascii=False, separators=(", ", ": ")))


def result_text(result: Mapping[str, Any] | None) -> str:
    """A tool result's content as one line (images shown as ``[image]``)."""
    if not result:
        return ""
    content = result.get("content", "")
    if not isinstance(content, str):
        parts = [b.get("text", "") if b.get("type") == "text" else "[image]" for b in content]
        content = " ".join(parts)
    return one_line(_unwrap(content))


def _unwrap(text: str) -> str:
    """Page text without the ``<untrusted-page-content>`` fence meant for the model."""
    fenced = _FENCE.fullmatch(text.strip())
    return fenced.group(2) if fenced else text


def usage_text(usage: Mapping[str, int], cost: float | None) -> str:
    cached = usage.get("cacheReadTokens", 0) + usage.get("cacheWriteTokens", 0)
    tokens = f"{usage.get('inputTokens', 0) + cached} in"
    if cached:
        tokens += f" ({cached} cached)"
    tokens += f", {usage.get('outputTokens', 0)} out"
    price = "cost unknown" if cost is None else f"${cost:.4f}"
    return f"{tokens} · {price}"


class Renderer:
    """Writes the conversation to ``out``; keeps track of a half-written line."""

    def __init__(self, out: TextIO, *, color: bool = False, interactive: bool = False) -> None:
        self._out = out
        self._color = color
        self._interactive = interactive  # the user types at a terminal: prompts, no echo
        self.echo_user = not interactive
        self._mid_line = False
        self._mode: str | None = None  # "text" or "thinking" while an assistant item streams
        self._streamed: set[str] = set()  # assistant items that got deltas

    # ------------------------------------------------------------ plain output

    def write(self, text: str) -> None:
        if text:
            self._out.write(text)
            self._mid_line = not text.endswith("\n")
            self._out.flush()

    def line(self, text: str = "", style: str = "") -> None:
        """A full line of its own (ends a half-written one first)."""
        self.end_line()
        self.write(self._styled(text, style) + "\n")

    def end_line(self) -> None:
        if self._mode == "thinking" and self._color:
            self.write("\x1b[0m")
        self._mode = None
        if self._mid_line:
            self.write("\n")

    def info(self, text: str) -> None:
        self.line(f"  ({text})", "dim")

    def error(self, text: str) -> None:
        self.line(f"error: {text}", "bold")

    def prompt(self, label: str) -> None:
        """Show an input prompt when someone types at a terminal (piped input: nothing)."""
        self.end_line()
        if self._interactive:
            self.write(self._styled(label, "bold"))
            self._mid_line = False  # the Enter that ends the answer ends the line

    def _styled(self, text: str, style: str) -> str:
        codes = {"dim": "\x1b[2m", "bold": "\x1b[1m"}
        if not self._color or style not in codes or not text:
            return text
        return f"{codes[style]}{text}\x1b[0m"

    # ------------------------------------------------------------ events

    def header(self, model: str, thread: Mapping[str, Any], *, hints: bool) -> None:
        title = thread.get("title") or "new thread"
        self.line(f"panelot · {model} · thread {thread['id']} · {one_line(title, 60)}", "bold")
        self.line(f"resume with: panelot-host chat --thread {thread['id']}", "dim")
        if hints:
            self.line(
                "Enter sends · typing while the agent works steers it · "
                "Ctrl-C interrupts · Ctrl-D or /quit exits",
                "dim",
            )

    def recap(self, items: Sequence[Mapping[str, Any]], limit: int = 6) -> None:
        """The end of an opened thread's conversation."""
        if len(items) > limit:
            self.info(f"{len(items) - limit} earlier items not shown")
        echo, self.echo_user = self.echo_user, True
        for item in items[-limit:]:
            self._item_started(item)
            self._item_completed(item)
        self.echo_user = echo

    def event(self, method: str, params: Mapping[str, Any]) -> None:
        """Show one engine event (the ones a conversation view cares about)."""
        match method:
            case "item.delta":
                self._delta(params["itemId"], params.get("delta", {}))
            case "item.started":
                self._item_started(params["item"])
            case "item.completed":
                self._item_completed(params["item"])
            case "turn.complete":
                self.turn_complete(params)

    def _delta(self, item_id: str, delta: Mapping[str, Any]) -> None:
        if "text" in delta:
            self._stream(item_id, "text", delta["text"])
        elif "thinking" in delta:
            self._stream(item_id, "thinking", delta["thinking"])
        elif "progress" in delta:
            progress = delta["progress"]
            text = progress if isinstance(progress, str) else compact_args(progress)
            self.line(f"    … {one_line(text)}", "dim")

    def _stream(self, item_id: str, mode: str, text: str) -> None:
        self._streamed.add(item_id)
        if self._mode != mode:
            self.end_line()
            self._mode = mode
            if mode == "thinking":
                self.write("\x1b[2mthinking: " if self._color else "thinking: ")
        self.write(text)

    def _item_started(self, item: Mapping[str, Any]) -> None:
        if item["kind"] == "toolCall":
            label = item.get("name", "?")
            self.line(f"  - {label} {compact_args(item.get('args', {}))}")

    def _item_completed(self, item: Mapping[str, Any]) -> None:
        match item["kind"]:
            case "assistant":
                self._assistant_done(item)
            case "toolCall":
                status = item.get("status", "?")
                summary = result_text(item.get("result"))
                self.line(f"    {status}" + (f": {summary}" if summary else ""), "dim")
            case "notice":
                self.line(f"  ! {item.get('text', '')}", "bold")
            case "compaction":
                covered = item.get("coveredItems", 0)
                self.line(f"  ── {covered} older items summarized to fit the context ──", "dim")
            case "steering":
                self.info(f"steering reached the model: {one_line(item.get('text', ''), 80)}")
            case "user" if self.echo_user:
                self.line(f"you> {item.get('text', '')}", "bold")

    def _assistant_done(self, item: Mapping[str, Any]) -> None:
        if item["id"] not in self._streamed:
            if item.get("thinking"):
                self._stream(item["id"], "thinking", item["thinking"])
            if item.get("text"):
                self._stream(item["id"], "text", item["text"])
        self._streamed.discard(item["id"])
        self.end_line()
        if item.get("interrupted"):
            self.info("the reply was cut off")

    def turn_complete(self, params: Mapping[str, Any]) -> None:
        status = params.get("status", "?")
        details = [params["stopReason"]] if params.get("stopReason") else []
        error = params.get("error")
        if error:
            details.append(f"{error.get('kind')}: {error.get('message')}")
        head = status + (f" ({'; '.join(details)})" if details else "")
        usage = usage_text(params.get("usage", {}), params.get("costUsd"))
        self.line(f"  = {head} · {usage}", "bold" if status == "failed" else "dim")
