"""A scripted provider: a real ``Provider`` whose model calls follow scripts.

Each HTTP attempt of a real provider consumes one script here, so a script that fails
before its first event is retried (with ``RetryNotice``) by the same retry loop the real
adapters use, and the next script answers the retry. Every ``ModelRequest`` received is
recorded in ``requests`` (engine tests check invariants on them) unless ``keep_requests``
is off: a long-running session (demo mode, benchmarks) must not hold every request.

    provider = ScriptedProvider([
        [Text("Let me look."), ToolCall("browser_read", {"tabId": 1}, call_id="")],
        [Fail(ProviderHTTPError(529, "overloaded"))],          # retried: next script answers
        [Thinking("hm", signature="sig"), Text("Done."), Stop(usage=Usage(10, 5))],
        [Text("partial"), Hang()],                             # waits until cancelled
    ])
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from typing import Any

import anyio
import msgspec
from anyio.lowlevel import checkpoint

from panelot_host.errors import ProviderError, ProviderStreamError
from panelot_host.providers.retry import RetryPolicy, Sleep, stream_with_retries
from panelot_host.providers.scripted_summary import scripted_summary
from panelot_host.providers.toolargs import finish_tool_call
from panelot_host.providers.types import (
    MessageStop,
    ModelRequest,
    ProviderEvent,
    StopReason,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ToolCallArgsDelta,
    ToolCallStart,
    Usage,
    UserMessage,
)


class Text(msgspec.Struct, frozen=True):
    """Streams ``text``, split into ``chunks`` deltas."""

    text: str
    chunks: int = 1


class Thinking(msgspec.Struct, frozen=True):
    text: str
    signature: str | None = None
    redacted_data: str | None = None


class ToolCall(msgspec.Struct, frozen=True):
    """A tool call; ``raw_args`` (any text, e.g. broken JSON) replaces ``args`` on the wire."""

    name: str
    args: dict[str, Any] = {}
    call_id: str = ""
    raw_args: str | None = None


class Stop(msgspec.Struct, frozen=True):
    """Ends the message; without one a script ends with tool_use or end_turn by itself."""

    reason: StopReason | None = None
    usage: Usage = Usage()
    usage_reported: bool = True


class Fail(msgspec.Struct, frozen=True):
    """Raises ``error`` here: before the first event it is retried if retryable."""

    error: ProviderError


class Hang(msgspec.Struct, frozen=True):
    """Waits until the iteration is cancelled or closed (an interrupt test's stream)."""


class Pause(msgspec.Struct, frozen=True):
    seconds: float


Step = Text | Thinking | ToolCall | Stop | Fail | Hang | Pause
Script = Sequence[Step]
Responder = Callable[[ModelRequest], Script]


class ScriptedProvider:
    """A ``Provider`` answering each attempt with the next script, then with ``responder``.

    When both are used up, ``stream`` raises ``ProviderStreamError`` (not retryable).
    ``sleep`` defaults to not waiting, so retries cost no time in tests.
    """

    def __init__(
        self,
        scripts: Iterable[Script] = (),
        *,
        responder: Responder | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
        model: str = "scripted",
        keep_requests: bool = True,
    ) -> None:
        self._scripts = list(scripts)
        self._keep_requests = keep_requests
        self._responder = responder
        self._retry = retry or RetryPolicy()
        self._sleep = sleep or _no_wait
        self.model = model
        self.requests: list[ModelRequest] = []
        self.attempts = 0
        self.cancelled = 0  # streams that were cancelled or closed before they ended

    @classmethod
    def echo(cls) -> ScriptedProvider:
        """Demo mode: answers every call with the text of the last user message."""
        return cls(responder=_echo, keep_requests=False)

    @property
    def remaining(self) -> int:
        return len(self._scripts)

    def add(self, *scripts: Script) -> None:
        self._scripts.extend(scripts)

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Events of the next script(s); raises the scripted ``ProviderError``s."""
        if self._keep_requests:
            self.requests.append(request)
        return stream_with_retries(
            lambda: self._attempt(request), self._retry, sleep=self._sleep, rand=lambda: 0.5
        )

    async def _attempt(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        self.attempts += 1
        script = self._next_script(request)
        finished = False
        try:
            async for event in _play(script, request.model or self.model):
                yield event
            finished = True
        finally:
            if not finished:
                self.cancelled += 1

    def _next_script(self, request: ModelRequest) -> Script:
        if self._scripts:
            return self._scripts.pop(0)
        if self._responder is not None:
            return self._responder(request)
        raise ProviderStreamError("the scripted provider has no script left for this call")


async def _play(script: Script, model: str) -> AsyncGenerator[ProviderEvent, None]:
    tool_calls = 0
    for step in script:
        match step:
            case Stop():
                reason = step.reason or ("tool_use" if tool_calls else "end_turn")
                usage = step.usage
                yield MessageStop(reason, usage, model, usage_reported=step.usage_reported)
                return
            case ToolCall():
                for event in _tool_call_events(step, tool_calls):
                    yield event
                tool_calls += 1
            case Fail(error=error):
                raise error
            case Hang():
                await anyio.Event().wait()
            case Pause(seconds=seconds):
                await anyio.sleep(seconds)
            case _:
                for event in _content_events(step):
                    yield event
    yield MessageStop("tool_use" if tool_calls else "end_turn", Usage(), model)


def _content_events(step: Text | Thinking) -> list[ProviderEvent]:
    if isinstance(step, Thinking):
        events: list[ProviderEvent] = []
        if step.redacted_data is not None:
            events.append(ThinkingDelta(redacted_data=step.redacted_data))
        if step.text:
            events.append(ThinkingDelta(text=step.text))
        if step.signature is not None:
            events.append(ThinkingDelta(signature=step.signature))
        return events
    return [TextDelta(text=piece) for piece in _split(step.text, step.chunks)]


def _tool_call_events(step: ToolCall, index: int) -> list[ProviderEvent]:
    raw = step.raw_args if step.raw_args is not None else msgspec.json.encode(step.args).decode()
    start = ToolCallStart(index=index, call_id=step.call_id, name=step.name)
    fragments = [ToolCallArgsDelta(index=index, fragment=f) for f in _split(raw, 2) if f]
    return [start, *fragments, finish_tool_call(index, step.name, raw)]


def _split(text: str, parts: int) -> list[str]:
    if parts <= 1 or len(text) < 2:
        return [text]
    size = -(-len(text) // parts)
    return [text[i : i + size] for i in range(0, len(text), size)]


async def _no_wait(seconds: float) -> None:
    await checkpoint()


def _echo(request: ModelRequest) -> Script:
    if request.purpose == "summary":
        return [Text(scripted_summary(request))]
    users = [m for m in request.messages if isinstance(m, UserMessage)]
    said = " ".join(p.text for p in users[-1].content if isinstance(p, TextPart)) if users else ""
    return [Text(f"You said: {said}" if said else "Hello from the scripted provider.", chunks=3)]
