"""A deterministic scripted model that follows directives written in the user's message.

Selected with ``PANELOT_PROVIDER=scripted PANELOT_SCRIPTED=directives`` (the kill -9
torture harness drives the real host with it). The Turn's message (the last user message
holding a ``[[...]]`` directive; steering and nudges hold none) lists what the model does,
one model call at a time::

    [[pace 0.02]] [[browser_read {"tabId": 1}]] [[browser_click {"ref": "e1"}]] [[text hi]]

- a tool directive (``[[<tool> <json args>]]``) is one model call making that tool call;
  the next one is played once the history holds the previous call (and its result);
- ``[[text ...]]`` adds words to the final answer, ``[[pace <seconds>]]`` pauses inside
  every model call (so a kill can land mid-stream);
- when no tool directive remains (or tools are not offered), a final answer that lists
  the steering texts the model saw: ``... | steering seen: ["a", "b"]``;
- a compaction's summary request gets a deterministic digest of its transcript
  (``providers.scripted_summary``); when the Turn message is only in a summary (quoted
  verbatim), the tool calls the summary says it covers count as played.

The responder is stateless (a restarted host replays from the history alone), and every
``Stop`` carries usage derived from the call's position, so usage sums can be checked.
``PANELOT_SCRIPTED_LOG=<path>`` appends every ``ModelRequest`` as one JSON line.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import msgspec

from panelot_host.providers.scripted import Pause, Script, ScriptedProvider, Step, Stop, Text
from panelot_host.providers.scripted import ToolCall as ScriptedCall
from panelot_host.providers.scripted_summary import COVERED_CALLS, SUMMARY_MARK, scripted_summary
from panelot_host.providers.types import (
    AssistantMessage,
    Message,
    ModelRequest,
    TextPart,
    ToolCallPart,
    Usage,
    UserMessage,
)

DIRECTIVE = re.compile(r"\[\[(\w+)(?:\s+(.*?))?\]\]", re.DOTALL)
STEERING_SEEN = "steering seen: "


class Directive(msgspec.Struct, frozen=True):
    verb: str
    argument: str = ""


def parse_directives(text: str) -> list[Directive]:
    """The directives of ``text``, in order."""
    return [Directive(m.group(1), (m.group(2) or "").strip()) for m in DIRECTIVE.finditer(text)]


def respond(request: ModelRequest) -> Script:
    """The script of the next model call for ``request`` (see the module docstring)."""
    if request.purpose == "summary":  # a compaction: a deterministic digest
        summary = scripted_summary(request)
        read = sum(len(_text(m)) for m in request.messages) // 4
        return [
            Text(summary),
            Stop(usage=Usage(input_tokens=read, output_tokens=len(summary) // 4)),
        ]
    directives, after, covered = _turn(request.messages)
    done = covered + sum(1 for m in after if isinstance(m, AssistantMessage) and _calls(m))
    tools = [d for d in directives if d.verb not in ("text", "pace")]
    pace = _pace(directives)
    usage = Usage(
        input_tokens=100 + 10 * done,
        output_tokens=7 + done,
        cache_read_tokens=3 * done,
        cache_write_tokens=1,
        reasoning_tokens=done,  # of output_tokens, as a reasoning model reports them
    )
    if done < len(tools) and request.tools:
        return [*_paused(pace), _tool_call(tools[done]), *_paused(pace), Stop(usage=usage)]
    return [*_final_text(directives, after, pace), Stop(usage=usage)]


def _turn(messages: list[Message]) -> tuple[list[Directive], list[Message], int]:
    """The Turn message's directives, the messages after it (none: no Turn message) and
    the tool calls a compaction's summary already covers when the Turn message is in it
    (the user's words it quotes verbatim)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        text = _text(message) if isinstance(message, UserMessage) else ""
        directives = parse_directives(text)
        if directives:
            covered = COVERED_CALLS.search(text) if SUMMARY_MARK in text else None
            return directives, messages[index + 1 :], int(covered.group(1)) if covered else 0
    return [], [], 0


def _text(message: Message) -> str:
    if isinstance(message, UserMessage | AssistantMessage):
        return " ".join(p.text for p in message.content if isinstance(p, TextPart))
    return ""


def _calls(message: AssistantMessage) -> list[ToolCallPart]:
    return [p for p in message.content if isinstance(p, ToolCallPart)]


def _pace(directives: list[Directive]) -> float:
    for directive in directives:
        if directive.verb == "pace":
            try:
                return max(0.0, min(float(directive.argument), 5.0))
            except ValueError:
                return 0.0
    return 0.0


def _paused(pace: float) -> list[Step]:
    return [Pause(pace)] if pace > 0 else []


def _tool_call(directive: Directive) -> ScriptedCall:
    try:
        args: Any = json.loads(directive.argument) if directive.argument else {}
    except json.JSONDecodeError:
        args = {}
    return ScriptedCall(directive.verb, args if isinstance(args, dict) else {})


def _final_text(directives: list[Directive], after: list[Message], pace: float) -> list[Step]:
    words = " ".join(d.argument for d in directives if d.verb == "text") or "done"
    seen = [_text(m) for m in after if isinstance(m, UserMessage)]
    return [
        Text(words + " | "),
        *_paused(pace),
        Text(STEERING_SEEN + json.dumps(seen), chunks=2),
    ]


class DirectivesResponder:
    """``respond``, appending each request to ``log_path`` (one JSON line) when given."""

    def __init__(self, log_path: Path | None = None) -> None:
        self._log_path = log_path

    def __call__(self, request: ModelRequest) -> Script:
        if self._log_path is not None:
            _append_line(self._log_path, msgspec.json.encode(request) + b"\n")
        return respond(request)


def _append_line(path: Path, line: bytes) -> None:
    """One ``write`` on an ``O_APPEND`` descriptor: a killed process leaves whole lines."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def directives_provider(log_path: str | None = None) -> ScriptedProvider:
    """The scripted provider playing directives; ``log_path``: the request log."""
    responder = DirectivesResponder(Path(log_path) if log_path else None)
    return ScriptedProvider(responder=responder, keep_requests=False)
