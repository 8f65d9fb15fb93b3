"""**extension** A turn's timeline and a thread's exports (issue 30): ``frame.get`` (one
stored frame with its image), ``thread.export`` (a thread or one of its Turns as JSON,
Markdown, a self-contained HTML report or an animated GIF of its frames) and
``thread.import`` (a JSON export back as a new thread)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from panelot_host.protocol.common import CommandId, Id
from panelot_host.protocol.entities import Thread
from panelot_host.protocol.frames import Frame
from panelot_host.protocol.ops._base import Params, Result

ExportFormat = Literal["json", "md", "html", "gif"]


class FrameGetParams(Params, kw_only=True):
    frame_id: Id


class FrameGetResult(Result, kw_only=True):
    """``{frame}``: its image in ``data`` (base64 of ``mime``). ``not_found`` when there is
    no such frame (retention removed it, or its thread was deleted)."""

    frame: Frame


class ThreadExportParams(Params, kw_only=True):
    """Export ``threadId`` (with ``turnId``: that Turn alone) as ``format``: ``json`` (the
    complete, versioned export ``thread.import`` takes; ``schema/thread-export.schema.json``),
    ``md`` (a readable transcript), ``html`` (one self-contained report: the conversation,
    each action with its frame, approvals and who decided them, costs and durations; no
    network), ``gif`` (an animated GIF, one frame per captured action). Secrets never
    appear in any of them."""

    thread_id: Id
    turn_id: Id | None = None
    format: ExportFormat = "json"


class ThreadExportResult(Result, omit_defaults=True, kw_only=True):
    """The file: its suggested ``fileName`` and ``mime``; ``text`` for the text formats,
    ``data`` (base64) for ``gif``. ``invalid_params`` for a ``gif`` of a thread with no
    frames."""

    file_name: str
    mime: str
    text: str | None = None
    data: str | None = None


class ThreadImportParams(Params, kw_only=True):
    """A ``thread.export`` JSON document back as a new thread (new ids; its items, Turns,
    approvals, tool calls and usage as exported). A document that is not a valid export
    gets ``invalid_params`` with ``data.errors`` and nothing is stored."""

    command_id: CommandId
    document: Annotated[dict[str, Any], Meta(description="A thread export (format json)")]


class ThreadImportResult(Result, kw_only=True):
    """``{thread}``: the new thread."""

    thread: Thread
