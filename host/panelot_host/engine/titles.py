"""Thread titles (`docs/engine.md`, "Agent loop"): the first-line fallback is written at
admission; then a best-effort task-model call may replace it. A failure keeps the fallback.
The call's answer is read only as far as a title needs (``TITLE_READ``). A fork's title
is its source's marked as a copy (``copy_title``)."""

from __future__ import annotations

import logging
import re
from contextlib import aclosing

import anyio

from panelot_host.engine.context import EngineContext
from panelot_host.engine.prompts import TITLE_REQUEST
from panelot_host.providers.types import MessageStop, ModelRequest, TextDelta, TextPart, UserMessage
from panelot_host.store import threads

log = logging.getLogger(__name__)

TITLE_TIMEOUT_S = 30.0
MAX_TITLE = 80
_COPY = re.compile(r" \(copy(?: \d+)?\)$")  # what copy_title adds
TITLE_READ = 4096  # characters of the answer read at most: a title is its first line


async def generate_title(ctx: EngineContext, thread_id: str, first_message: str) -> None:
    """Ask the task model for a title; keep the fallback on any failure or user rename."""
    try:
        model = ctx.models.task_model()
    except Exception as exc:  # a misconfigured task model must not disturb the turn
        log.info("no task model for titles: %s", exc)
        return
    if model is None:
        return
    request = ModelRequest(
        model=model.model,
        system="You write short, specific titles for conversations.",
        messages=[UserMessage(content=[TextPart(TITLE_REQUEST.format(text=first_message[:4000]))])],
        max_tokens=40,
    )
    text = ""
    try:
        with anyio.fail_after(TITLE_TIMEOUT_S):
            async with aclosing(model.provider.stream(request)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        text += event.text
                        if len(text) >= TITLE_READ:
                            break
                    elif isinstance(event, MessageStop):
                        break
    except Exception as exc:
        log.info("title generation failed, keeping the fallback: %s", exc)
        return
    _store(ctx, thread_id, _clean(text))


def copy_title(title: str, taken: set[str]) -> str:
    """A fork's title: its source's, marked as a copy and told apart from the other copies
    (``first`` -> ``first (copy)``, then ``first (copy 2)``; a copy's copy counts on)."""
    base = _COPY.sub("", title)[: MAX_TITLE - len(" (copy 99)")]
    candidate, n = f"{base} (copy)", 2
    while candidate in taken:
        candidate, n = f"{base} (copy {n})", n + 1
    return candidate


def copy_base(title: str) -> str:
    """The title a copy was made from (``first (copy 2)`` -> ``first``)."""
    return _COPY.sub("", title)


def _clean(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line.strip("\"' \u201c\u201d\u2018\u2019").rstrip(".")[:MAX_TITLE]


def _store(ctx: EngineContext, thread_id: str, title: str) -> None:
    if not title:
        return
    with ctx.db.transaction() as conn:
        if not threads.exists(conn, thread_id):
            return
        if threads.get(conn, thread_id).title_source != "fallback":
            return  # the user renamed it meanwhile: theirs wins
        record = threads.rename(conn, thread_id, title, "model")
    ctx.publish.thread_updated(record)
