"""``thread.export`` as a Markdown transcript, an HTML report and a GIF of the frames."""

from __future__ import annotations

import base64
import io
import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from PIL import Image
from tests.conftest import EventLog
from tests.engine.export_support import COLOURS, append_call, scripted_thread, store_frames
from tests.engine.helpers import new_thread, run_turn

from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError
from panelot_host.store.db import Database

pytestmark = pytest.mark.anyio


async def test_the_markdown_transcript_reads_turn_by_turn(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    await client.send(
        "thread.selectBranch",
        {
            "commandId": "back",
            "threadId": thread_id,
            "itemId": await _note_answer(client, thread_id),
        },
    )
    result = await client.send("thread.export", {"threadId": thread_id, "format": "md"})
    assert result["mime"] == "text/markdown" and result["fileName"].endswith(".md")
    text: str = result["text"]
    assert text.startswith("# Weather notes\n")
    assert "## Turn 1" in text and "## Turn 2" in text
    assert "**User:** what is the weather?" in text
    assert "**Assistant:** It is sunny." in text
    assert "- `lookup` lookup (key=weather): **succeeded**" in text
    assert "— value of weather" in text
    assert "- `write_note` write note (text=buy milk): **succeeded**" in text
    assert "  - allowed by the user (once)" in text
    assert "- `write_note` write note (text=buy cake): **denied**" in text
    assert "  - denied by the user (once)" in text
    assert "120 in, 30 out tokens" in text
    assert "Cloudy later." not in text  # the other branch is not the one shown


async def _note_answer(client: DirectTransport, thread_id: str) -> str:
    """The last item of the branch with the notes Turn."""
    document = await client.send("thread.export", {"threadId": thread_id, "format": "json"})
    items = json.loads(document["text"])["items"]
    answer: str = next(i["id"] for i in items if i.get("text", "").startswith("Saved one note"))
    return answer


class _Page(HTMLParser):
    """What a report holds: its tags with their attributes, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def of(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def _parsed(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


async def _json(client: DirectTransport, thread_id: str) -> dict[str, Any]:
    result = await client.send("thread.export", {"threadId": thread_id})
    document: dict[str, Any] = json.loads(result["text"])
    return document


async def test_the_html_report_shows_every_frame_and_loads_nothing(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _json(client, thread_id)
    stored = store_frames(_db(host), thread_id, document["items"])
    result = await client.send("thread.export", {"threadId": thread_id, "format": "html"})
    assert result["mime"] == "text/html" and result["fileName"].endswith(".html")
    page = _parsed(result["text"])
    images = page.of("img")
    assert len(images) == len(stored) == 4  # the other branch follows the conversation
    assert all((i["src"] or "").startswith("data:image/jpeg;base64,") for i in images)
    for name, attrs in page.tags:
        for key in ("src", "href", "xlink:href", "action", "srcset"):
            assert not re.match(r"\s*https?:", attrs.get(key) or "", re.I), (name, attrs)
    assert not page.of("script") and not page.of("link") and not page.of("iframe")
    (csp,) = [m for m in page.of("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp["content"] == "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    assert len(page.of("circle")) == 3 and len(page.of("rect")) == 1  # each frame's mark
    text = " ".join(page.text)
    for shown in ("allowed by the user (once)", "denied by the user (once)", "It is sunny."):
        assert shown in text
    assert "https://shop.example/cart" in text  # the URL as a caption, not a link
    assert "scripted-model, 120 in, 30 out tokens, unknown cost" in text  # a Turn's usage
    calls = [d for d in page.of("div") if (d.get("class") or "").startswith("call ")]
    assert [c["class"] for c in calls] == ["call succeeded"] * 2 + ["call denied"]
    assert re.search(r"lookup succeeded in \d+\.\d s", " ".join(text.split()))
    decoded = base64.b64decode((images[0]["src"] or "").split(",", 1)[1])
    assert decoded == stored[0].image


async def test_the_html_report_escapes_everything_from_the_thread(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    hostile = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    provider.add(
        [ToolCall("lookup", {"key": hostile}, call_id="h1")],
        [Text(f"Here: {hostile}")],
    )
    thread_id = await new_thread(client)
    await client.send("thread.rename", {"commandId": "r", "threadId": thread_id, "title": hostile})
    await run_turn(client, log, thread_id, hostile)
    document = await _json(client, thread_id)
    stored = store_frames(_db(host), thread_id, document["items"], title=hostile, url=hostile)
    result = await client.send("thread.export", {"threadId": thread_id, "format": "html"})
    page = _parsed(result["text"])
    assert not page.of("script")
    assert len(page.of("img")) == len(stored)  # no image but the frames'
    assert all("onerror" not in attrs for _, attrs in page.tags)
    assert hostile in " ".join(page.text)  # shown as text
    assert "<script>" not in result["text"]


def _db(host: Host) -> Database:
    profile = host.profile
    assert profile is not None
    return profile.db


async def test_the_gif_has_one_frame_per_action_in_order_with_its_mark(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _json(client, thread_id)
    stored = store_frames(_db(host), thread_id, document["items"])
    result = await client.send("thread.export", {"threadId": thread_id, "format": "gif"})
    assert result["mime"] == "image/gif" and result["fileName"].endswith(".gif")
    assert "text" not in result
    afters = [f for f in stored if f.phase == "after"]
    with Image.open(io.BytesIO(base64.b64decode(result["data"]))) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(afters) == 3  # the before frame is not an action
        pictures = []
        for index in range(gif.n_frames):
            gif.seek(index)
            assert gif.info["duration"] == 1000
            pictures.append(gif.convert("RGB"))
    # 1280x800 and 1024x700 scaled to 800 px wide: 500 and 547 px high; the bar below, 4
    assert {p.size for p in pictures} == {(800, 547 + 4)}
    for picture, frame in zip(pictures, afters, strict=True):  # in the order captured
        assert _near(picture.getpixel((700, 400)), COLOURS[stored.index(frame) % len(COLOURS)])
    # the first action clicked (300, 200) of 1280 px: a ring of radius 14 around
    # (187.5, 125) at 800 px; the second acted on the box (100, 120, 240 x 40) of 1024 px
    assert _near(pictures[0].getpixel((187 + 14, 125)), (255, 64, 64))
    # (78.1, 93.75) to (265.6, 125) at 800 px: its left edge
    assert _near(pictures[1].getpixel((79, 110)), (255, 64, 64))
    assert not _near(pictures[2].getpixel((79, 110)), (255, 64, 64))  # a point, elsewhere


async def test_a_gif_of_a_thread_without_frames_is_refused(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    with pytest.raises(RemoteError) as refused:
        await client.send("thread.export", {"threadId": thread_id, "format": "gif"})
    assert refused.value.kind == "invalid_params"
    assert "no frames" in refused.value.message


def _near(found: Any, expected: tuple[int, int, int], within: int = 40) -> bool:
    return all(abs(a - b) <= within for a, b in zip(found, expected, strict=True))


async def test_a_call_whose_outcome_is_unknown_says_so(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    provider.add([Text("I will pay.")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "pay the bill")
    append_call(_db(host), thread_id, "browser_click", {"ref": "e9"}, status="uncertain")
    md = await client.send("thread.export", {"threadId": thread_id, "format": "md"})
    assert "- `browser_click` browser\\_click (ref=e9): **uncertain**" in md["text"]
    assert "  - outcome unknown: the host stopped while it ran" in md["text"]
    html = await client.send("thread.export", {"threadId": thread_id, "format": "html"})
    page = _parsed(html["text"])
    assert any(d.get("class") == "call uncertain" for d in page.of("div"))
    assert "Outcome unknown: the host stopped while it ran." in " ".join(page.text)
