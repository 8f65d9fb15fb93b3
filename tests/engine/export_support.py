"""Threads to export in tests: one made by the scripted model (tool calls, an approval
allowed and one denied, usage, two branches), and documents compared modulo ids."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, ImageDraw
from tests.conftest import EventLog
from tests.engine.helpers import answer_approval, new_thread, run_turn, wait_for

from panelot_host.providers.scripted import ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import Usage
from panelot_host.server.transport import DirectTransport
from panelot_host.store import frames, items, threads
from panelot_host.store.db import Database
from panelot_host.store.frames import FrameRecord
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord, ToolCallExtra

ID_KEYS = frozenset(
    {
        "id",
        "threadId",
        "turnId",
        "itemId",
        "parentId",
        "userItemId",
        "headItemId",
        "requestId",
        "toolCallId",
        "throughItemId",
        "runId",
        "parentThreadId",
        "forkedFromItemId",
    }
)


async def scripted_thread(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> str:
    """A thread of three Turns on two branches: a lookup, a note allowed and one denied,
    with usage; the second branch is selected."""
    provider.add(
        [ToolCall("lookup", {"key": "weather"}, call_id="c1")],
        [Text("It is sunny."), Stop(usage=Usage(120, 30))],
        [ToolCall("write_note", {"text": "buy milk"}, call_id="c2")],
        [ToolCall("write_note", {"text": "buy cake"}, call_id="c3")],
        [Text("Saved one note; the other was refused."), Stop(usage=Usage(200, 40))],
        [Text("Cloudy later."), Stop(usage=Usage(90, 12))],
    )
    thread_id = await new_thread(client)
    await client.send(
        "thread.rename", {"commandId": "r", "threadId": thread_id, "title": "Weather notes"}
    )
    await run_turn(client, log, thread_id, "what is the weather?")
    first = await client.send("thread.open", {"threadId": thread_id})
    answer = first["items"][-1]["id"]
    submitted = await client.send(
        "turn.submit", {"commandId": "s2", "threadId": thread_id, "text": "note two things"}
    )
    allow, deny = None, None
    allow = (await wait_for(log, "approval.request", 1))[0]
    await answer_approval(client, allow, "allow", "once")
    deny = (await wait_for(log, "approval.request", 2))[1]
    await answer_approval(client, deny, "deny", "once")
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])
    await client.send(
        "thread.selectBranch", {"commandId": "b", "threadId": thread_id, "itemId": answer}
    )
    await run_turn(client, log, thread_id, "and later?")
    return thread_id


def without_ids(value: Any, names: dict[str, str] | None = None) -> Any:
    """``value`` (JSON) with every id replaced by its order of first appearance, so two
    copies with fresh ids compare equal."""
    names = {} if names is None else names
    if isinstance(value, dict):
        return {
            k: (_name(v, names) if k in ID_KEYS and isinstance(v, str) else without_ids(v, names))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [without_ids(v, names) for v in value]
    return value


def _name(value: str, names: dict[str, str]) -> str:
    return names.setdefault(value, f"id{len(names)}")


COLOURS = ((200, 40, 40), (40, 160, 60), (40, 80, 200), (220, 180, 30), (120, 40, 160))


def jpeg(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    """A real JPEG of one colour with a lighter band (Pillow)."""
    image = Image.new("RGB", (width, height), colour)
    ImageDraw.Draw(image).rectangle((0, 0, width // 3, height // 4), fill=(240, 240, 240))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=80)
    return out.getvalue()


def store_frames(
    db: Database,
    thread_id: str,
    items: list[dict[str, Any]],
    *,
    title: str = "Shop",
    url: str = "https://shop.example/cart",
    typed: str | None = None,
) -> list[FrameRecord]:
    """A ``before`` and an ``after`` frame for the first call of ``items`` and an ``after``
    frame for each other toolCall item (as the extension would capture them); the
    frames stored."""
    calls = [i for i in items if i["kind"] == "toolCall"]
    stored: list[FrameRecord] = []
    at = 1_800_000_000_000
    for n, call in enumerate(calls):
        phases = ["before", "after"] if n == 0 else ["after"]
        for seq, phase in enumerate(phases):
            at += 1000
            width, height = (1280, 800) if n % 2 == 0 else (1024, 700)
            mark = (
                {"kind": "point", "x": 300.0, "y": 200.0}
                if n % 2 == 0
                else {"kind": "box", "x": 100.0, "y": 120.0, "width": 240.0, "height": 40.0}
            )
            meta: dict[str, Any] = {"title": title, "mark": mark, "blurred": 1}
            if typed is not None:
                meta["typed"] = typed
            stored.append(
                FrameRecord(
                    id=f"frm_{n}_{seq}",
                    thread_id=thread_id,
                    turn_id=call["turnId"],
                    item_id=call["id"],
                    seq=seq,
                    phase=phase,
                    mime="image/jpeg",
                    width=width,
                    height=height,
                    url=url,
                    captured_at=at,
                    meta=meta,
                    image=jpeg(width, height, COLOURS[len(stored) % len(COLOURS)]),
                )
            )
    with db.transaction() as conn:
        for record in stored:
            frames.insert(conn, record)
    return stored


def append_call(
    db: Database,
    thread_id: str,
    name: str,
    args: dict[str, Any],
    *,
    status: str = "succeeded",
    element: str | None = None,
) -> ItemRecord:
    """A settled tool call stored after the thread's head, in its latest Turn, as the
    engine stores calls (for calls the scripted tools cannot make: a browser's)."""
    head = threads.get(db.conn, thread_id).head_item_id
    record = ItemRecord(
        id=new_id("itm"),
        thread_id=thread_id,
        parent_id=head,
        turn_id=items.get(db.conn, head or "").turn_id,
        kind="toolCall",
        created_at=now_ms(),
        call_id=new_id("call"),
        name=name,
        args=args,
        status=status,  # type: ignore[arg-type]
        result=None if status == "uncertain" else {"content": "done", "isError": False},
        call_extra=ToolCallExtra(label=name, target={"element": element} if element else None),
    )
    with db.transaction() as conn:
        items.insert(conn, record)
        threads.set_head(conn, thread_id, record.id)
    return record
