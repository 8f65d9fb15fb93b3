"""Superseded page state, elided from the context sent to a model (never from the store).

A page-state result (a tool whose ``tools.browser.PageTraits`` say ``page_state``:
``browser_snapshot``, ``browser_read``) describes a tab as it was; once a later
snapshot or read of the same tab exists, the model needs only the newer one, and the older
result becomes a one-line note. A screenshot is page state too: a later image of the same
tab supersedes its image, and only the newest ``KEEP_IMAGES`` image results keep theirs.
Every tool call keeps its result message, in its place: only the content of a result
changes, so tool_use / tool_result pairing and order never do.

``elide`` is a pure function of the message list (itself a pure function of the stored
branch), of the two marks (from the model's window) and of whether the list starts with a
compaction's summary: recovery and prompt caching see the same bytes every time. It
changes an earlier message only when it must, because a change there makes the provider's
prompt cache miss from that point on (a "break"), and what a request can read from the
cache is what it shares with the previous one:

- One pass over the messages keeps a running size. A result that supersedes (a page read
  or an image) and takes it past the high mark (``ELIDE_AT`` of the input budget) starts
  a "flush". The result that starts it is the newest message, so a flush never re-sends a
  page read it keeps.
- A flush elides only what is younger than the previous flush's break, newest first,
  until the size is below the low mark (``ELIDE_TO``), or all of that when it is not
  enough: the break is as late as the room needed allows, and between the two marks each
  new step is a small share of a large request. What a flush leaves older than its break
  stays ("cold") until a compaction rewrites the start anyway.
- The first flush after a compaction elides everything superseded: the compaction just
  re-sent the whole request, and the verbatim tail it kept would otherwise stay cold.
- More than ``MAX_IMAGES`` kept images (cold ones) strip every image but the newest few.

Tabs: a result names the tab it describes (``ToolResultMessage.tab_id``, from the stored
result's target); without one, a call's ``tabId`` argument names its tab, and a call
without one reads the active tab, which a call whose traits say it ``changes`` it
(``browser_tab_new``, ``browser_tab_close``) leaves unknown and one that ``selects``
(``browser_tab_select``) sets to its ``tabId`` with ``focus``. Switching without ``focus``
leaves the active tab as it was, but a call from before ``focus`` existed did change it:
the active tab after one is taken as unknown (no read is superseded by a guess).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

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
from panelot_host.tools.browser import PAGE_TRAITS, PageTraits

ELIDE_AT = 0.76  # share of the model's input budget (raw estimate) that starts a flush
ELIDE_TO = 0.5  # a flush elides the young part, newest first, until the size is below this
KEEP_IMAGES = 3  # at most the newest three image results keep their images
MAX_IMAGES = 8  # more kept images than this (cold ones) strip all but the newest few

SUPERSEDED_NOTE = (
    "[{tool} result elided: a later snapshot or read of the same tab supersedes it. "
    "Use the latest one.]"
)
IMAGE_NOTE = "[image elided from the context: only the latest screenshots keep their images]"

TabKey = tuple[str, Any]  # ("tab", tab id) | ("active", call id or 0) | ("call", call id)
StateKey = tuple[str, TabKey]  # ("text" | "image", tab)
Size = Callable[[Message], int]
_NO_TRAITS = PageTraits()  # a tool that is not a browser tool


class Marks(msgspec.Struct, frozen=True):
    """When a flush starts (``high``) and how far down it elides (``low``), in the raw
    estimate's tokens; ``after_compaction``: the messages start with a summary."""

    high: int
    low: int
    after_compaction: bool = False

    @classmethod
    def of_budget(cls, input_budget: int, *, after_compaction: bool = False) -> Marks:
        """The marks for a model with ``input_budget`` input tokens."""
        return cls(
            high=int(ELIDE_AT * input_budget),
            low=int(ELIDE_TO * input_budget),
            after_compaction=after_compaction,
        )


def elide(messages: Sequence[Message], marks: Marks, size: Size) -> list[Message]:
    """``messages`` with superseded page state and old images replaced by notes, flushed
    whenever the running ``size`` of the messages passes ``marks.high``."""
    return Elider().elide(messages, [], marks, size).messages


class Elided(msgspec.Struct, frozen=True):
    """What ``Elider.elide`` made of a request's messages."""

    messages: list[Message]
    size: int  # the ``size`` of ``messages``
    stable: int  # ``messages[:stable]`` stay as they are until a compaction (cache hint)


class PrefixPass(msgspec.Struct, frozen=True):
    """The state of the pass over a prefix at its end, as data: resuming from it is the
    same as walking the prefix (``Elider.resume``), so it can be stored with the prefix.
    Valid for the prefix it was made over, its ``marks`` and the raw token estimate
    (``tokens.message_tokens``) as the size."""

    marks: Marks
    length: int
    total: int
    tabs: dict[str, TabKey]
    active: TabKey
    young_from: int
    step_stable: int | None
    states: list[tuple[int, StateKey]]
    images: list[int]
    replaced: dict[int, Message]


class _PrefixWalk(msgspec.Struct, frozen=True):
    """The pass over a prefix (this list object) with ``marks``: its walk, and the prefix
    with the walk's replacements applied."""

    prefix: Sequence[Message]
    marks: Marks
    walk: _Walk
    applied: list[Message]


class Elider:
    """``elide`` for the requests of one run, and their size.

    The pass over the part before the running Turn (the same list object from request to
    request) is made once, or resumed from a stored ``PrefixPass``; each request resumes
    it from a copy of its state, so a request costs what the Turn added. The result is
    exactly ``elide`` of the whole list.
    """

    def __init__(self) -> None:
        self._base: _PrefixWalk | None = None

    def has_pass(self, prefix: Sequence[Message], marks: Marks) -> bool:
        """Whether the pass over ``prefix`` (this list object) with ``marks`` is made."""
        base = self._base
        return base is not None and base.prefix is prefix and base.marks == marks

    def passed(self) -> PrefixPass | None:
        """The pass over the last prefix, as data (None before the first request)."""
        if self._base is None:
            return None
        prefix, marks, walk = self._base.prefix, self._base.marks, self._base.walk
        return PrefixPass(
            marks=marks, length=len(prefix), total=walk.total, tabs=walk.tabs,
            active=walk.active, young_from=walk.young_from, step_stable=walk.step_stable,
            states=walk.states, images=walk.images, replaced=walk.replaced,
        )  # fmt: skip

    def resume(self, prefix: Sequence[Message], state: PrefixPass, size: Size) -> None:
        """Take ``state`` as the pass over the first ``state.length`` messages of ``prefix``
        (made with ``state.marks``) and go on over the rest of ``prefix``."""
        walk = _Walk(prefix, state.marks, size).carrying(state)
        walk.replaced = dict(state.replaced)
        for index in range(state.length, len(prefix)):
            walk.add(index, prefix[index])
        self._base = _PrefixWalk(prefix, state.marks, walk, _applied(prefix, walk.replaced))

    def elide(
        self, prefix: Sequence[Message], current: Sequence[Message], marks: Marks, size: Size
    ) -> Elided:
        """The elided messages of ``prefix`` + ``current``, their size and stable part."""
        base = self._base
        if base is None or base.prefix is not prefix or base.marks != marks:
            walk = _Walk(prefix, marks, size)
            for index, message in enumerate(prefix):
                walk.add(index, message)
            base = self._base = _PrefixWalk(prefix, marks, walk, _applied(prefix, walk.replaced))
        walk = base.walk.resumed([*prefix, *current], size)
        for index, message in enumerate(current, start=len(prefix)):
            walk.add(index, message)
        output = [*base.applied, *current]
        for index, replacement in walk.replaced.items():
            output[index] = replacement
        return Elided(output, walk.total, walk.hint())


def _applied(messages: Sequence[Message], replaced: dict[int, Message]) -> list[Message]:
    output = list(messages)
    for index, replacement in replaced.items():
        output[index] = replacement
    return output


class _Walk:
    """The running state of one pass: sizes, the results a flush may still change."""

    def __init__(self, messages: Sequence[Message], marks: Marks, size: Size) -> None:
        self.messages = messages
        self.marks = marks
        self.size = size
        self.tabs: dict[str, TabKey] = {}  # call id -> the tab its arguments name
        self.active: TabKey = ("active", 0)
        self.total = 0
        self.young_from = 0  # the previous flush's break: what is older stays (cold)
        self.step_stable: int | None = None  # stable end before a flush in the last step
        self.states: list[tuple[int, StateKey]] = []  # young page states not elided yet
        self.images: list[int] = []  # results that still carry images (cold ones too)
        self.replaced: dict[int, Message] = {}
        self.earlier: dict[int, Message] = {}  # replaced by the pass this one resumes

    def carrying(self, state: _Walk | PrefixPass) -> _Walk:
        """This walk, going on from ``state`` (a pass over a start of its messages): its
        sizes, tabs and the page states and images a flush may still change."""
        self.tabs = dict(state.tabs)
        self.active = state.active
        self.total = state.total
        self.young_from = state.young_from
        self.step_stable = state.step_stable
        self.states = list(state.states)
        self.images = list(state.images)
        return self

    def resumed(self, messages: Sequence[Message], size: Size) -> _Walk:
        """A copy of this state that goes on over ``messages`` (which start with this
        pass's messages); its ``replaced`` holds only what it changes itself."""
        walk = _Walk(messages, self.marks, size).carrying(self)
        walk.earlier = {**self.earlier, **self.replaced} if self.earlier else self.replaced
        return walk

    def stable_end(self) -> int:
        """Where the first result a later flush may still change sits (the oldest young
        page state or image; a cold image only when a new image could force it out): the
        messages before it never change again."""
        young = [index for index in self.images if index >= self.young_from]
        cold = len(self.images) - len(young)
        images = self.images if cold + KEEP_IMAGES > MAX_IMAGES else young
        mutable = [index for index, _ in self.states[:1]] + images[:1]
        return min(mutable, default=len(self.messages))

    def hint(self) -> int:
        """The request's cache hint: where its stable part ends; after a flush in its last
        step (the tool results after the last assistant message), where the previous
        request's ended, which that request's breakpoint wrote and the flush left alone."""
        stable = self.stable_end()
        return stable if self.step_stable is None else min(self.step_stable, stable)

    def add(self, index: int, message: Message) -> None:
        self.total += self.size(message)
        if isinstance(message, AssistantMessage):
            self._calls(message)
            self.step_stable = None  # a new step: what came before was a request
            return
        if not isinstance(message, ToolResultMessage) or message.is_error:
            return
        key = self._state_key(message)
        if any(isinstance(part, ImagePart) for part in message.content):
            self.images.append(index)
        if key is not None:
            self.states.append((index, key))
        if len(self.images) > MAX_IMAGES:
            self._flush(forced=self._forced_images())
        elif key is not None and self.total > self.marks.high:
            self._flush(forced=set())

    def _forced_images(self) -> set[int]:
        """The images to strip when more than ``MAX_IMAGES`` keep theirs: the young ones
        but the newest ``KEEP_IMAGES``, then cold ones, newest first, down to the cap (so
        the cold images a cache hint left out, while they and the newest few were within
        the cap, are never among them)."""
        older = self.images[:-KEEP_IMAGES]
        young = [index for index in older if index >= self.young_from]
        cold = [index for index in older if index < self.young_from]
        over = len(self.images) - len(young) - MAX_IMAGES
        return {*young, *(cold[-over:] if over > 0 else [])}

    def _state_key(self, message: ToolResultMessage) -> StateKey | None:
        """What the result is page state of: a page read's or an image's tab."""
        tab: TabKey | None = ("tab", message.tab_id) if message.tab_id is not None else None
        tab = tab or self.tabs.get(message.call_id)
        if _traits(message.name).page_state:
            return ("text", tab) if tab is not None else None
        if any(isinstance(part, ImagePart) for part in message.content):
            return ("image", tab if tab is not None else ("call", message.call_id))
        return None

    def _calls(self, message: AssistantMessage) -> None:
        for part in message.content:
            if not isinstance(part, ToolCallPart):
                continue
            tab_id = part.args.get("tabId")
            active_tab = _traits(part.name).active_tab
            if active_tab != "keeps":
                selected = (
                    active_tab == "selects"
                    and tab_id is not None
                    and part.args.get("focus") is True
                )
                self.active = ("tab", tab_id) if selected else ("active", part.call_id)
            else:
                self.tabs[part.call_id] = ("tab", tab_id) if tab_id is not None else self.active

    def _flush(self, forced: set[int]) -> None:
        """Past the high mark, elide young candidates newest first until the size is below
        the low mark (all of them when that is not enough; everything superseded in the
        first flush after a compaction); and the ``forced`` images wherever they are."""
        stable_before = self.stable_end()
        pressed = self.total > self.marks.high
        full = pressed and self.marks.after_compaction and self.young_from == 0
        chosen = [
            (index, replacement)
            for index, replacement in self._candidates()
            if index in forced or (pressed and (full or index >= self.young_from))
        ]
        gain = sum(self.size(self._current(index)) - self.size(new) for index, new in chosen)
        enough = pressed and not full and self.total - gain <= self.marks.low
        changed: list[int] = []
        for index, replacement in chosen:  # newest first
            if enough and self.total <= self.marks.low and index not in forced:
                continue
            self._replace(index, replacement)
            changed.append(index)
        if changed and self.step_stable is None:
            self.step_stable = stable_before
        breaks = [index for index in changed if index not in forced]
        if breaks:
            self.young_from = min(breaks)
        gone = set(changed)
        self.states = [(i, key) for i, key in self.states if i >= self.young_from and i not in gone]
        self.images = [i for i in self.images if i not in gone]

    def _candidates(self) -> list[tuple[int, ToolResultMessage]]:
        """What a flush may elide, newest first, with its elided form: young page states
        a later state of the same tab supersedes, and images past the newest few."""
        later: set[StateKey] = set()
        superseded: set[int] = set()
        for index, key in reversed(self.states):
            if key in later:
                superseded.add(index)
            later.add(key)
        old_images = set(self.images[:-KEEP_IMAGES])
        forms: list[tuple[int, ToolResultMessage]] = []
        for index in sorted(superseded | old_images, reverse=True):
            current = self._current(index)
            is_text = _traits(current.name).page_state and index in superseded
            forms.append((index, _superseded(current) if is_text else _without_images(current)))
        return forms

    def _current(self, index: int) -> ToolResultMessage:
        message = self.replaced.get(index) or self.earlier.get(index) or self.messages[index]
        assert isinstance(message, ToolResultMessage)
        return message

    def _replace(self, index: int, message: ToolResultMessage) -> None:
        self.total += self.size(message) - self.size(self._current(index))
        self.replaced[index] = message


def _traits(tool: str) -> PageTraits:
    return PAGE_TRAITS.get(tool, _NO_TRAITS)


def _superseded(message: ToolResultMessage) -> ToolResultMessage:
    return _with_content(message, [TextPart(SUPERSEDED_NOTE.format(tool=message.name))])


def _with_content(message: ToolResultMessage, content: list[UserContent]) -> ToolResultMessage:
    return msgspec.structs.replace(message, content=content)


def _without_images(message: ToolResultMessage) -> ToolResultMessage:
    content: list[UserContent] = []
    for part in message.content:
        if not isinstance(part, ImagePart):
            content.append(part)
        elif not content or content[-1] != TextPart(IMAGE_NOTE):
            content.append(TextPart(IMAGE_NOTE))
    return _with_content(message, content)
