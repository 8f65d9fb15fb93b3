"""A turn's frames (issue 30): the screenshots the browser captured around a tool call,
stored beside its result (never in it: no model sees them), within the profile's size
budget, oldest first; and ``frame.get`` (the views: ``views.frame_info``/``frame_view``).

The settings: ``captureFrames`` (default on) says whether browser actions ask the shim for
frames (``tools.browser.acts_on_page``); ``frameBudgetMb`` (default 200) bounds what the
profile's frames take, in MB of 2**20 bytes; storing a frame, or lowering the budget,
removes the oldest frames past it.
"""

from __future__ import annotations

import base64
import binascii
import logging
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from panelot_host.engine import views
from panelot_host.errors import NotFound
from panelot_host.protocol import frames as wire
from panelot_host.protocol.ops.config import DEFAULT_FRAME_BUDGET_MB
from panelot_host.protocol.ops.timeline import FrameGetResult
from panelot_host.store import frames as frame_store
from panelot_host.store.db import Database
from panelot_host.store.frames import FrameRecord
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord

log = logging.getLogger(__name__)

CAPTURE_SETTING = "captureFrames"
BUDGET_SETTING = "frameBudgetMb"
MB = 1024 * 1024
MAX_FRAME_BYTES = 512 * 1024
"""A frame's image at most (decoded): the protocol's ``MAX_FRAME_BASE64`` is about this."""

_MAGIC_OK = {
    "image/jpeg": lambda data: data[:3] == b"\xff\xd8\xff",
    "image/webp": lambda data: data[:4] == b"RIFF" and data[8:12] == b"WEBP",
}
_COLUMNS = frozenset({"phase", "mime", "data", "width", "height", "url", "capturedAt"})


def capture_frames(settings: Mapping[str, Any]) -> bool:
    """The ``captureFrames`` setting in effect (stored settings, camelCase keys)."""
    value = settings.get(CAPTURE_SETTING)
    return value if isinstance(value, bool) else True


def frame_budget_mb(settings: Mapping[str, Any]) -> int:
    """The ``frameBudgetMb`` setting in effect."""
    value = settings.get(BUDGET_SETTING)
    return value if isinstance(value, int) and value > 0 else DEFAULT_FRAME_BUDGET_MB


def budget_bytes(settings: Mapping[str, Any]) -> int:
    return frame_budget_mb(settings) * MB


def store_frames(
    conn: sqlite3.Connection,
    call: ItemRecord,
    captured: Sequence[wire.CapturedFrame],
    budget: int,
) -> list[FrameRecord]:
    """Store the frames captured for ``call`` (in the caller's transaction), a ``before``
    frame first; then trim the profile's frames to ``budget`` bytes, oldest first. A frame
    whose image is not base64 of a JPEG or WebP of its ``mime``, or is larger than
    ``MAX_FRAME_BYTES``, is left out (logged). The frames stored (still there after the
    trim)."""
    ordered = sorted(captured, key=lambda f: f.phase != "before")  # stable: before first
    stored: list[FrameRecord] = []
    for frame in ordered:
        image = _image(call, frame)
        if image is None:
            continue
        record = FrameRecord(
            id=new_id("frm"),
            thread_id=call.thread_id,
            turn_id=call.turn_id or "",
            item_id=call.id,
            seq=len(stored),
            phase=frame.phase,
            mime=frame.mime,
            width=frame.width,
            height=frame.height,
            url=frame.url,
            captured_at=_ms(frame.captured_at),
            meta={k: v for k, v in msgspec.to_builtins(frame).items() if k not in _COLUMNS},
            image=image,
        )
        frame_store.insert(conn, record)
        stored.append(record)
    if stored:
        removed = set(frame_store.trim_to(conn, budget))
        stored = [r for r in stored if r.id not in removed]
    return stored


def _image(call: ItemRecord, frame: wire.CapturedFrame) -> bytes | None:
    try:
        image = base64.b64decode(frame.data, validate=True)
    except (binascii.Error, ValueError):
        log.warning("%s (%s): a frame dropped: its data is not base64", call.name, call.id)
        return None
    if len(image) > MAX_FRAME_BYTES:
        log.warning(
            "%s (%s): a frame dropped: %d bytes, more than %d",
            call.name,
            call.id,
            len(image),
            MAX_FRAME_BYTES,
        )
        return None
    if not _MAGIC_OK[frame.mime](image):
        log.warning("%s (%s): a frame dropped: not a %s image", call.name, call.id, frame.mime)
        return None
    return image


def _ms(timestamp: str) -> int:
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1000)
    except ValueError:
        return now_ms()


def get_frame(db: Database, frame_id: str) -> FrameGetResult:
    """``frame.get``: the frame with its image; raises ``NotFound`` (``not_found``) when
    there is none (retention removed it, or its thread was deleted)."""
    record = frame_store.get(db.conn, frame_id)
    if record is None:
        raise NotFound(f"no frame {frame_id!r}")
    return FrameGetResult(frame=views.frame_view(record))
