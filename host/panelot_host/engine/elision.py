"""Superseded page state, elided from the context sent to a model (never from the store).

A ``browser_snapshot`` or ``browser_read`` result describes a tab as it was; once a later
snapshot or read of the same tab exists, the model needs only the newer one, and the older
result becomes a one-line note. Only the last few tool results with images (screenshots)
keep their images. Every tool call keeps its result message, in its place: only the
content of a result changes, so tool_use / tool_result pairing and order never do.

``elide`` is a pure function of the message list (itself a pure function of the stored
branch): recovery and prompt caching see the same bytes every time. To keep the prompt
cache useful, results are elided in blocks: the elision frontier moves only every
``PAGE_BLOCK`` page reads (``IMAGE_BLOCK`` screenshots), so most requests extend the
previous request's bytes instead of rewriting a result just before the end.

Tabs: a call's ``tabId`` argument names its tab; a call without one reads the active tab,
which ``browser_tab_select`` (with its ``tabId``) or ``browser_tab_new`` may change: a
read without ``tabId`` after such a call is another tab's than one before it.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserContent,
)

PAGE_STATE_TOOLS = frozenset({"browser_snapshot", "browser_read"})
ACTIVE_TAB_TOOLS = frozenset({"browser_tab_select", "browser_tab_new", "browser_tab_close"})
KEEP_PAGE_STATES = 2  # the newest page reads are never elided
PAGE_BLOCK = 4
KEEP_IMAGES = 3  # only the newest image results keep their images
IMAGE_BLOCK = 4

SUPERSEDED_NOTE = (
    "[{tool} result elided: a later snapshot or read of the same tab supersedes it. "
    "Use the latest one.]"
)
IMAGE_NOTE = "[image elided from the context: only the latest screenshots keep their images]"

TabKey = tuple[str, object]


class _Result(msgspec.Struct):
    index: int  # position in the message list
    tab: TabKey | None  # page-state results only


def elide(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with superseded page state and old images replaced by notes."""
    calls = _call_tabs(messages)
    page_states: list[_Result] = []
    images: list[_Result] = []
    for index, message in enumerate(messages):
        if not isinstance(message, ToolResultMessage) or message.is_error:
            continue
        if message.name in PAGE_STATE_TOOLS and message.call_id in calls:
            page_states.append(_Result(index, calls[message.call_id]))
        if any(isinstance(part, ImagePart) for part in message.content):
            images.append(_Result(index, None))
    replaced: dict[int, Message] = {}
    for index in _superseded(page_states):
        message = messages[index]
        assert isinstance(message, ToolResultMessage)
        replaced[index] = _with_content(
            message, [TextPart(SUPERSEDED_NOTE.format(tool=message.name))]
        )
    for result in images[: _frontier(len(images), KEEP_IMAGES, IMAGE_BLOCK)]:
        message = replaced.get(result.index, messages[result.index])
        assert isinstance(message, ToolResultMessage)
        replaced[result.index] = _without_images(message)
    if not replaced:
        return list(messages)
    return [replaced.get(index, message) for index, message in enumerate(messages)]


def _frontier(count: int, keep: int, block: int) -> int:
    """How many of the oldest ``count`` results may be elided: a multiple of ``block``
    that always leaves at least ``keep`` results untouched."""
    return max(0, (count - keep) // block * block)


def _superseded(results: list[_Result]) -> list[int]:
    frontier = _frontier(len(results), KEEP_PAGE_STATES, PAGE_BLOCK)
    later_tabs: set[TabKey | None] = set()
    elided: list[int] = []
    for position in range(len(results) - 1, -1, -1):
        result = results[position]
        if position < frontier and result.tab in later_tabs:
            elided.append(result.index)
        later_tabs.add(result.tab)
    return elided


def _call_tabs(messages: Sequence[Message]) -> dict[str, TabKey]:
    """Each page-state call's tab, from the calls in order (see the module's docstring)."""
    tabs: dict[str, TabKey] = {}
    active: TabKey = ("active", 0)
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for part in message.content:
            if not isinstance(part, ToolCallPart):
                continue
            tab_id = part.args.get("tabId")
            if part.name in PAGE_STATE_TOOLS:
                tabs[part.call_id] = ("tab", tab_id) if tab_id is not None else active
            elif part.name in ACTIVE_TAB_TOOLS:
                if part.name == "browser_tab_select" and tab_id is not None:
                    active = ("tab", tab_id)
                else:
                    active = ("active", part.call_id)
    return tabs


def _with_content(message: ToolResultMessage, content: list[UserContent]) -> ToolResultMessage:
    return ToolResultMessage(
        call_id=message.call_id, name=message.name, content=content, is_error=message.is_error
    )


def _without_images(message: ToolResultMessage) -> ToolResultMessage:
    content: list[UserContent] = []
    for part in message.content:
        if not isinstance(part, ImagePart):
            content.append(part)
        elif not content or content[-1] != TextPart(IMAGE_NOTE):
            content.append(TextPart(IMAGE_NOTE))
    return _with_content(message, content)
