"""No export format shows a secret: a stored credential the model repeated, a key-shaped
value, a password typed into a page (and repeated by the model), an argument named like
a secret."""

from __future__ import annotations

import base64
import json

import pytest
from tests.conftest import EventLog
from tests.engine.export_support import append_call, store_frames
from tests.engine.helpers import new_thread, run_turn

from panelot_host.providers.scripted import ScriptedProvider, Text
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.store.records import ItemRecord

pytestmark = pytest.mark.anyio

CREDENTIAL = "zq-credential-7f3a9c1e5b"  # not key-shaped: only knowing it masks it
KEY_SHAPED = "sk-live-abcdef0123456789"
PASSWORD = "Hunter2-Correct-Horse"
TOKEN = "tok3n-value-98765"


def _typed_calls(host: Host, thread_id: str) -> list[ItemRecord]:
    """A ``browser_type`` into a password field and a login call with a ``password``
    argument."""
    profile = host.profile
    assert profile is not None
    typed = append_call(
        profile.db,
        thread_id,
        "browser_type",
        {"ref": "e7", "text": PASSWORD},
        element='textbox(password) "Password"',
    )
    login = {"user": "bob", "password": PASSWORD, "apiToken": TOKEN}
    return [typed, append_call(profile.db, thread_id, "mcp_login", login)]


async def test_no_format_shows_a_credential_a_key_or_a_typed_password(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    await client.send("credentials.set", {"commandId": "k", "ref": "shop", "secret": CREDENTIAL})
    provider.add([Text(f"Your key {CREDENTIAL} and {KEY_SHAPED} are noted.")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, f"remember {CREDENTIAL}")
    calls = _typed_calls(host, thread_id)
    provider.add([Text(f"I typed {PASSWORD} for you.")])
    await run_turn(client, log, thread_id, "did you log in?")
    profile = host.profile
    assert profile is not None
    document_items = [{"kind": "toolCall", "id": c.id, "turnId": c.turn_id} for c in calls]
    store_frames(profile.db, thread_id, document_items, typed="••••••••")

    exported = {}
    for fmt in ("json", "md", "html", "gif"):
        result = await client.send("thread.export", {"threadId": thread_id, "format": fmt})
        exported[fmt] = result.get("text") or base64.b64decode(result["data"]).decode("latin-1")
    for fmt, text in exported.items():
        for secret in (CREDENTIAL, KEY_SHAPED, PASSWORD, TOKEN):
            assert secret not in text, (fmt, secret)
    document = json.loads(exported["json"])
    typed, login = [i for i in document["items"] if i["kind"] == "toolCall"]
    assert typed["args"] == {"ref": "e7", "text": "••••••••"}
    assert login["args"] == {"user": "bob", "password": "••••••••", "apiToken": "••••••••"}
    said = [i["text"] for i in document["items"] if i["kind"] == "assistant"]
    assert said == [
        "Your key [redacted] and [redacted] are noted.",
        "I typed [redacted] for you.",
    ]
    assert "text=••••••••" in exported["md"] and "password=••••••••" in exported["md"]
    assert "typed “••••••••”" in exported["html"]
