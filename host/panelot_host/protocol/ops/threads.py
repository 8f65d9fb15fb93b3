"""Thread ops: create, list, open, delete, fork, selectBranch, rename, shareTab."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from panelot_host.protocol.common import CommandId, Id, Title
from panelot_host.protocol.entities import Thread, ThreadSnapshot
from panelot_host.protocol.ops._base import EmptyResult, Params, Result
from panelot_host.protocol.tabs import SharedTab


class ThreadCreateParams(Params, kw_only=True):
    command_id: CommandId
    title: Title | None = None


class ThreadResult(Result, kw_only=True):
    """``{thread}``."""

    thread: Thread


ThreadCreateResult = ThreadResult


class ThreadListParams(Params, kw_only=True):
    limit: Annotated[int, Meta(ge=1, le=200)] = 50
    cursor: Annotated[str, Meta(max_length=1024)] | None = None
    query: Annotated[str, Meta(max_length=1000)] | None = None


class MatchSpan(Result, kw_only=True):
    """A highlighted part of a snippet: ``text[start:end]`` (UTF-16 code units, as in JS)."""

    start: Annotated[int, Meta(ge=0)]
    end: Annotated[int, Meta(ge=0)]


class ThreadMatch(Result, omit_defaults=True, kw_only=True):
    """Why a thread matched a search: its best-ranked text, cut around the hits.

    ``source`` is ``title`` or ``message`` (then ``itemId`` names the message); ``text`` is a
    plain-text excerpt (``…`` marks a cut) and ``highlights`` the matched terms in it.
    """

    thread_id: Id
    source: Literal["title", "message"]
    text: str
    highlights: list[MatchSpan]
    item_id: Id | None = None


class ThreadListResult(Result, omit_defaults=True, kw_only=True):
    """Most recently updated first; ``nextCursor`` is null on the last page.

    With a ``query``, ``matches`` (extension) holds one snippet per listed thread.
    """

    threads: list[Thread]
    next_cursor: str | None
    matches: list[ThreadMatch] | None = None


class ThreadOpenParams(Params, kw_only=True):
    thread_id: Id


ThreadOpenResult = ThreadSnapshot


class ThreadDeleteParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id


ThreadDeleteResult = EmptyResult


class ThreadForkParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id
    at_item_id: Id | None = None


ThreadForkResult = ThreadResult


class ThreadSelectBranchParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id
    item_id: Id


ThreadSelectBranchResult = ThreadSnapshot


class ThreadRenameParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id
    title: Title


ThreadRenameResult = ThreadResult


class ThreadShareTabParams(Params, kw_only=True):
    """**extension** Hand the tab ``tab`` over to the thread: it joins the thread's tabs
    and its tab group; the thread's calls then act on it as on a tab it opened."""

    command_id: CommandId
    thread_id: Id
    tab: SharedTab


ThreadShareTabResult = ThreadResult
