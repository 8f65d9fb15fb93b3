"""Small holes of issue 11 (item 9): one profileId limit, invalid base64 refused before it
is stored, a punctuation-only search finds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio


async def test_a_profile_id_the_store_refuses_is_refused_by_the_schema(tmp_path: Path) -> None:
    from panelot_host.server.config import HostConfig

    config = HostConfig(home=tmp_path / "h", lease_wait_s=0.5)
    async with Host(config) as host, DirectTransport.connect(host) as client:
        with pytest.raises(RemoteError) as caught:
            await client.send(
                "initialize",
                {
                    "protocolVersion": 1,
                    "client": {"name": "t", "version": "0", "profileId": "p" * 65},
                },
            )
        assert caught.value.code == -32602
        assert caught.value.data["errors"][0]["path"] == "$.params.client.profileId"
        ok = await client.send(
            "initialize",
            {
                "protocolVersion": 1,
                "client": {"name": "t", "version": "0", "profileId": "p" * 64},
            },
        )
        assert ok["protocolVersion"] == 1


@pytest.mark.parametrize("data", ["not base64!", "QUJDR", "QUJ", "QUJDRA==QUJD"])
async def test_an_image_that_is_not_base64_is_refused_and_nothing_is_stored(
    client: DirectTransport, data: str
) -> None:
    created = await client.send("thread.create", {"commandId": "t"})
    thread_id = created["thread"]["id"]
    image = {"type": "image", "mediaType": "image/png", "data": data}
    with pytest.raises(RemoteError) as caught:
        await client.send(
            "turn.submit",
            {"commandId": "s", "threadId": thread_id, "text": "look", "attachments": [image]},
        )
    assert caught.value.code == -32602 and "base64" in caught.value.message
    opened = await client.send("thread.open", {"threadId": thread_id})
    assert opened["items"] == [] and opened["turn"] is None


async def test_a_search_of_only_punctuation_finds_nothing(client: DirectTransport) -> None:
    await client.send("thread.create", {"commandId": "t1", "title": "Groceries"})
    await client.send("thread.create", {"commandId": "t2", "title": "Taxes"})
    assert len((await client.send("thread.list", {}))["threads"]) == 2
    for query in ("!!!", "*", '"', "()", "- -"):
        assert (await client.send("thread.list", {"query": query}))["threads"] == []
    assert len((await client.send("thread.list", {"query": "tax"}))["threads"]) == 1
