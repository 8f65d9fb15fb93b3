"""Superseded page state, elided from the context sent to a model (never from the store).

A ``browser_snapshot`` or ``browser_read`` result describes a tab as it was; once a later
snapshot or read of the same tab exists, the model needs only the newer one, and the older
result becomes a one-line note. Only the last few tool results with images (screenshots)
keep their images. Every tool call keeps its result message, in its place: only the
content of a result changes, so tool_use / tool_result pairing and order never do.

``elide`` is a pure function of the message list (itself a pure function of the stored
branch) and of the high-water mark (from the model's window): recovery and prompt caching
see the same bytes every time. It changes earlier messages only when it must, because
every change there makes the provider's prompt cache miss from that point on: one pass
over the messages keeps a running size, and only when a tool result takes it past the
high-water mark (or more than ``MAX_IMAGES`` results with images are kept) is everything
then superseded elided at once (a "flush"). Between flushes each request extends the
previous one's bytes, so prompt caching reuses all of it.

Tabs: a call's ``tabId`` argument names its tab; a call without one reads the active tab,
which ``browser_tab_select`` (with its ``tabId``) or ``browser_tab_new`` may change: a
read without ``tabId`` after such a call is another tab's than one before it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
ELIDE_AT = 0.6  # share of the model's input budget (raw estimate) that starts a flush
KEEP_PAGE_STATES = 1  # the newest page read is never elided
KEEP_IMAGES = 3  # a flush leaves the images of the newest three image results
MAX_IMAGES = 8  # more kept images than this cause a flush

SUPERSEDED_NOTE = (
    "[{tool} result elided: a later snapshot or read of the same tab supersedes it. "
    "Use the latest one.]"
)
IMAGE_NOTE = "[image elided from the context: only the latest screenshots keep their images]"

TabKey = tuple[str, object]
Size = Callable[[Message], int]


def elide(messages: Sequence[Message], high_water: int, size: Size) -> list[Message]:
    """``messages`` with superseded page state and old images replaced by notes, flushed
    whenever the running ``size`` of the messages passes ``high_water``."""
    return Elider().elide(messages, [], high_water, size).messages


class Elided(msgspec.Struct, frozen=True):
    """What ``Elider.elide`` made of a request's messages."""

    messages: list[Message]
    size: int  # the ``size`` of ``messages``
    stable: int  # ``messages[:stable]`` stay as they are until a compaction (cache hint)


class Elider:
    """``elide`` for the requests of one run, and their size.

    The pass over the part before the running Turn (the same list object from request to
    request) is made once; each request resumes it from a copy of its state, so a request
    costs what the Turn added. The result is exactly ``elide`` of the whole list.
    """

    def __init__(self) -> None:
        self._base: tuple[Sequence[Message], int, _Walk, list[Message]] | None = None

    def elide(
        self, prefix: Sequence[Message], current: Sequence[Message], high_water: int, size: Size
    ) -> Elided:
        """The elided messages of ``prefix`` + ``current``, their size and stable part."""
        base = self._base
        if base is None or base[0] is not prefix or base[1] != high_water:
            walk = _Walk(prefix, high_water, size)
            for index, message in enumerate(prefix):
                walk.add(index, message)
            output = list(prefix)
            for index, replacement in walk.replaced.items():
                output[index] = replacement
            base = self._base = (prefix, high_water, walk, output)
        walk = base[2].resumed([*prefix, *current], size)
        for index, message in enumerate(current, start=len(prefix)):
            walk.add(index, message)
        output = [*base[3], *current]
        for index, replacement in walk.replaced.items():
            output[index] = replacement
        return Elided(output, walk.total, walk.stable_end())


class _Walk:
    """The running state of one pass: sizes, the results a flush may still change."""

    def __init__(self, messages: Sequence[Message], high_water: int, size: Size) -> None:
        self.messages = messages
        self.high_water = high_water
        self.size = size
        self.tabs: dict[str, TabKey] = {}
        self.active: TabKey = ("active", 0)
        self.total = 0
        self.pages: list[tuple[int, TabKey]] = []  # page-state results not elided yet
        self.images: list[int] = []  # results that still carry images
        self.replaced: dict[int, Message] = {}
        self.earlier: dict[int, Message] = {}  # replaced by the pass this one resumes

    def resumed(self, messages: Sequence[Message], size: Size) -> _Walk:
        """A copy of this state that goes on over ``messages`` (which start with this
        pass's messages); its ``replaced`` holds only what it changes itself."""
        walk = _Walk(messages, self.high_water, size)
        walk.tabs = dict(self.tabs)
        walk.active = self.active
        walk.total = self.total
        walk.pages = list(self.pages)
        walk.images = list(self.images)
        walk.earlier = {**self.earlier, **self.replaced} if self.earlier else self.replaced
        return walk

    def stable_end(self) -> int:
        """Where the first result a later flush may still change sits (the oldest page
        read or image not elided yet): the messages before it never change again."""
        mutable = [index for index, _ in self.pages[:1]] + self.images[:1]
        return min(mutable, default=len(self.messages))

    def add(self, index: int, message: Message) -> None:
        self.total += self.size(message)
        if isinstance(message, AssistantMessage):
            self._calls(message)
            return
        if not isinstance(message, ToolResultMessage) or message.is_error:
            return
        tab = self.tabs.get(message.call_id)
        if message.name in PAGE_STATE_TOOLS and tab is not None:
            self.pages.append((index, tab))
        if any(isinstance(part, ImagePart) for part in message.content):
            self.images.append(index)
        if self.total > self.high_water or len(self.images) > MAX_IMAGES:
            self._flush()

    def _calls(self, message: AssistantMessage) -> None:
        for part in message.content:
            if not isinstance(part, ToolCallPart):
                continue
            tab_id = part.args.get("tabId")
            if part.name in PAGE_STATE_TOOLS:
                self.tabs[part.call_id] = ("tab", tab_id) if tab_id is not None else self.active
            elif part.name in ACTIVE_TAB_TOOLS:
                selected = part.name == "browser_tab_select" and tab_id is not None
                self.active = ("tab", tab_id) if selected else ("active", part.call_id)

    def _flush(self) -> None:
        """Elide every page state superseded so far, and the older images: those after
        the first elided page state (the cache misses from there anyway), all of them
        when more than ``MAX_IMAGES`` would stay."""
        later: set[TabKey] = set()
        kept: list[tuple[int, TabKey]] = []
        first_change = len(self.messages)
        for position in range(len(self.pages) - 1, -1, -1):
            index, tab = self.pages[position]
            newest = position >= len(self.pages) - KEEP_PAGE_STATES
            if not newest and tab in later:
                self._replace(index, _superseded(self._current(index)))
                first_change = index
            else:
                kept.append((index, tab))
            later.add(tab)
        self.pages = kept[::-1]
        older, newest_images = self.images[:-KEEP_IMAGES], self.images[-KEEP_IMAGES:]
        if len(self.images) <= MAX_IMAGES:
            older = [index for index in older if index > first_change]
        for index in older:
            self._replace(index, _without_images(self._current(index)))
        stripped = set(older)
        self.images = [i for i in self.images if i not in stripped or i in newest_images]

    def _current(self, index: int) -> ToolResultMessage:
        message = self.replaced.get(index) or self.earlier.get(index) or self.messages[index]
        assert isinstance(message, ToolResultMessage)
        return message

    def _replace(self, index: int, message: ToolResultMessage) -> None:
        self.total += self.size(message) - self.size(self._current(index))
        self.replaced[index] = message


def _superseded(message: ToolResultMessage) -> ToolResultMessage:
    return _with_content(message, [TextPart(SUPERSEDED_NOTE.format(tool=message.name))])


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
