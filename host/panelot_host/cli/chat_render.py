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
    if usage.get("reasoningTokens", 0):
        tokens += f" ({usage['reasoningTokens']} reasoning)"
    price = "cost unknown" if cost is None else f"${cost:.4f}"
    return f"{tokens} · {price}"


class _Sink:
    """One output stream and whether its last line is unfinished."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.mid_line = False

    def write(self, text: str) -> None:
        if text:
            self.stream.write(text)
            self.mid_line = not text.endswith("\n")
            self.stream.flush()


class Renderer:
    """Writes the conversation; keeps track of half-written lines.

    ``out`` gets the answer (the assistant's text); ``side`` everything else: headers,
    echoes, thinking, tool calls, notices, prompts and turn status lines. Without ``side``
    both go to ``out`` (a terminal); ``panelot-host chat > answer.txt`` passes stderr as
    ``side`` so the file holds only the answer.
    """

    def __init__(
        self,
        out: TextIO,
        *,
        side: TextIO | None = None,
        color: bool = False,
        interactive: bool = False,
        price_known: bool = True,
    ) -> None:
        self._answer = _Sink(out)
        self._side = _Sink(side) if side is not None and side is not out else self._answer
        self._color = color
        self._interactive = interactive  # the user types at a terminal: prompts, no echo
        self.echo_user = not interactive
        self.price_known = price_known  # False: every status line says "cost unknown"
        self._mode: str | None = None  # "text" or "thinking" while an assistant item streams
        self._streamed: set[str] = set()  # assistant items that got deltas
        self._held: list[tuple[str, str]] = []  # side lines waiting for the reply to end
        self._retrying = False  # a provider_retry notice was shown for the current call

    @property
    def interactive(self) -> bool:
        return self._interactive

    # ------------------------------------------------------------ plain output

    def write(self, text: str) -> None:
        """Text on the side stream (prompts, status), after a half-written line there."""
        self._side.write(text)

    def line(self, text: str = "", style: str = "") -> None:
        """A full line of its own on the side stream (ends a half-written one first)."""
        self.end_line()
        self._side.write(self._styled(text, style) + "\n")

    def end_line(self) -> None:
        if self._mode == "thinking" and self._color:
            self._side.write("\x1b[0m")
        self._mode = None
        for sink in {id(s): s for s in (self._answer, self._side)}.values():
            if sink.mid_line:
                sink.write("\n")

    def info(self, text: str) -> None:
        self.line(f"  ({text})", "dim")

    def info_after_reply(self, text: str) -> None:
        """``info``, held back while the reply streams so it never lands inside it."""
        if self._mode == "text":
            self._held.append((f"  ({text})", "dim"))
        else:
            self.info(text)

    def error(self, text: str) -> None:
        self.line(f"error: {text}", "bold")

    def prompt(self, label: str) -> None:
        """Show an input prompt when someone types at a terminal (piped input: nothing)."""
        self.end_line()
        if self._interactive:
            self._side.write(self._styled(label, "bold"))
            self._side.mid_line = False  # the Enter that ends the answer ends the line

    def _release_held(self) -> None:
        held, self._held = self._held, []
        for text, style in held:
            self.line(text, style)

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
                "Ctrl-C interrupts · Ctrl-D or /quit exits · /help",
                "dim",
            )

    def recap(self, items: Sequence[Mapping[str, Any]], limit: int = 6) -> None:
        """The end of an opened thread's conversation (on the side stream: it is not
        this chat's answer)."""
        if len(items) > limit:
            self.info(f"{len(items) - limit} earlier items not shown")
        echo, self.echo_user = self.echo_user, True
        answer, self._answer = self._answer, self._side
        try:
            for item in items[-limit:]:
                self._item_started(item)
                self._item_completed(item)
        finally:
            self.echo_user, self._answer = echo, answer

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
                self._side.write("\x1b[2mthinking: " if self._color else "thinking: ")
        (self._answer if mode == "text" else self._side).write(text)

    def _item_started(self, item: Mapping[str, Any]) -> None:
        if item["kind"] == "assistant":
            self._retrying = False  # a new model call: its retries are news
        elif item["kind"] == "toolCall":
            label = item.get("name", "?")
            self.line(f"  - {label} {compact_args(item.get('args', {}))}")

    def _item_completed(self, item: Mapping[str, Any]) -> None:
        if self._repeated_retry(item):
            return  # one line for a series of retries of the same model call
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
                self.info_after_reply(
                    f"steering reached the model: {one_line(item.get('text', ''), 80)}"
                )
            case "user" if self.echo_user:
                self.line(f"you> {item.get('text', '')}", "bold")

    def _repeated_retry(self, item: Mapping[str, Any]) -> bool:
        if item["kind"] != "notice" or item.get("code") != "provider_retry":
            return False
        repeated, self._retrying = self._retrying, True
        return repeated

    def _assistant_done(self, item: Mapping[str, Any]) -> None:
        if item["id"] not in self._streamed:
            if item.get("thinking"):
                self._stream(item["id"], "thinking", item["thinking"])
            if item.get("text"):
                self._stream(item["id"], "text", item["text"])
        self._streamed.discard(item["id"])
        self.end_line()
        self._release_held()
        if item.get("interrupted"):
            self.info("the reply was cut off")

    def turn_complete(self, params: Mapping[str, Any]) -> None:
        self.end_line()
        self._release_held()
        self._retrying = False
        status = params.get("status", "?")
        details = [params["stopReason"]] if params.get("stopReason") else []
        error = params.get("error")
        if error:
            details.append(f"{error.get('kind')}: {error.get('message')}")
        head = status + (f" ({'; '.join(details)})" if details else "")
        cost = params.get("costUsd") if self.price_known else None
        usage = usage_text(params.get("usage", {}), cost)
        self.line(f"  = {head} · {usage}", "bold" if status == "failed" else "dim")
