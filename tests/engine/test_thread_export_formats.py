"""``thread.export`` as a Markdown transcript, an HTML report and a GIF of the frames."""

from __future__ import annotations

import json

import pytest
from tests.conftest import EventLog
from tests.engine.export_support import scripted_thread

from panelot_host.providers.scripted import ScriptedProvider
from panelot_host.server.transport import DirectTransport

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
