"""Thread ops: create, list, open, delete, fork, selectBranch, rename."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from panelot_host.protocol.common import CommandId, Id, Title
from panelot_host.protocol.entities import Thread, ThreadSnapshot
from panelot_host.protocol.ops._base import EmptyResult, Params, Result


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


class ThreadListResult(Result, kw_only=True):
    """Most recently updated first; ``nextCursor`` is null on the last page."""

    threads: list[Thread]
    next_cursor: str | None


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
