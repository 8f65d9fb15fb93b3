"""``thread.export`` and ``thread.import``: a thread (or one Turn) as a JSON document, a
Markdown transcript, a self-contained HTML report or an animated GIF of its frames, and a
JSON document back as a new thread."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any, Final

import msgspec

from panelot_host.engine import views
from panelot_host.engine.commands import Receipt, command_unit
from panelot_host.engine.context import EngineContext
from panelot_host.engine.exports import html_report, importer, markdown
from panelot_host.engine.exports.document import build_document
from panelot_host.engine.exports.masking import ExportMask, masked_document
from panelot_host.protocol.ops.timeline import (
    ExportFormat,
    ThreadExportResult,
    ThreadImportResult,
)
from panelot_host.protocol.thread_export import ThreadExportDocument
from panelot_host.store import frames, thread_copy, threads
from panelot_host.store.ids import new_id

_MIME: Final = {
    "json": "application/json",
    "md": "text/markdown",
    "html": "text/html",
    "gif": "image/gif",
}
_SLUG: Final = re.compile(r"[^A-Za-z0-9]+")


class ExportService:
    """Exports and imports of the profile's threads; ``secrets()`` lists the values no
    export may show (the stored credentials, API keys from the environment)."""

    def __init__(self, ctx: EngineContext, secrets: Callable[[], list[str]]) -> None:
        self.ctx = ctx
        self._secrets = secrets

    def document(self, thread_id: str, turn_id: str | None = None) -> ThreadExportDocument:
        """The masked export document; raises ``NotFound``."""
        built = build_document(self.ctx.db.conn, thread_id, turn_id)
        masked = masked_document(msgspec.to_builtins(built), ExportMask(self._secrets()))
        return msgspec.convert(masked, ThreadExportDocument)

    def export(self, thread_id: str, turn_id: str | None, fmt: ExportFormat) -> ThreadExportResult:
        """The file of ``fmt``. Raises ``NotFound``, and ``InvalidParams`` for a ``gif``
        of a thread with no frames."""
        document = self.document(thread_id, turn_id)
        name = _file_name(document, fmt)
        match fmt:
            case "json":
                text = json.dumps(msgspec.to_builtins(document), indent=2, ensure_ascii=False)
                return ThreadExportResult(file_name=name, mime=_MIME[fmt], text=text + "\n")
            case "md":
                return ThreadExportResult(
                    file_name=name, mime=_MIME[fmt], text=markdown.render(document)
                )
            case "html":
                images = self._images(thread_id, turn_id)
                text = html_report.render(document, images)
                return ThreadExportResult(file_name=name, mime=_MIME[fmt], text=text)
            case _:
                # lazy: Pillow loads only for a GIF, not with the engine
                from panelot_host.engine.exports import gif

                data = gif.render(document, self._images(thread_id, turn_id))
                encoded = base64.b64encode(data).decode("ascii")
                return ThreadExportResult(file_name=name, mime=_MIME[fmt], data=encoded)

    def _images(self, thread_id: str, turn_id: str | None) -> dict[str, tuple[str, bytes]]:
        """Frame id -> (mime, image) of the thread's (or the Turn's) stored frames."""
        stored = frames.of_thread(self.ctx.db.conn, thread_id, turn_id)
        return {f.id: (f.mime, f.image) for f in stored}

    def import_(self, cmd: Receipt, document: dict[str, Any]) -> ThreadImportResult:
        """A new thread from an export document; ``InvalidParams`` (nothing stored) when
        it is not a valid export."""
        decoded = importer.decode(document)
        found = importer.rows(decoded, new_id)
        with command_unit(self.ctx.db, cmd) as unit:
            conn = unit.conn
            thread_copy.insert_thread(conn, found.thread)
            for item in found.items:
                thread_copy.insert_item(conn, item)
            thread_copy.set_head(conn, found.thread.id, found.head_item_id)
            for turn in found.turns:
                thread_copy.insert_turn(conn, turn)
            for run in found.runs:
                thread_copy.insert_run(conn, run)
            for usage in found.usage:
                thread_copy.insert_usage(conn, usage)
            for approval in found.approvals:
                thread_copy.insert_approval(conn, approval)
            view = views.thread_view(threads.get(conn, found.thread.id))
            result = unit.respond(ThreadImportResult(thread=view))
        return result


def _file_name(document: ThreadExportDocument, fmt: ExportFormat) -> str:
    slug = _SLUG.sub("-", document.thread.title).strip("-").lower()[:60] or "thread"
    day = document.exported_at[:10]
    scope = "-turn" if document.turn_id else ""
    return f"panelot-{slug}{scope}-{day}.{fmt}"
