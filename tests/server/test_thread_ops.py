"""Thread ops through DirectTransport: durable, with receipts, with ordered events."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import EventLog

from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError
from panelot_host.store import items as item_store
from panelot_host.store import threads as thread_store
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord

pytestmark = pytest.mark.anyio


async def test_ops_before_initialize_are_not_initialized(host: Host) -> None:
    async with DirectTransport.connect(host) as transport:
        with pytest.raises(RemoteError) as caught:
            await transport.send("thread.list", {})
    assert caught.value.kind == "not_initialized"
    assert caught.value.code == -32002


async def test_initialize_reports_engine_and_echoes_browser_tools(host: Host) -> None:
    async with DirectTransport.connect(host) as transport:
        result = await transport.send(
            "initialize",
            {
                "protocolVersion": 1,
                "client": {"name": "shim", "version": "1"},
                "capabilities": {"browserTools": ["browser_read"]},
            },
        )
        assert result["protocolVersion"] == 1
        assert result["engine"]["name"] == "panelot-host"
        with pytest.raises(RemoteError) as again:
            await transport.send(
                "initialize", {"protocolVersion": 1, "client": {"name": "x", "version": "1"}}
            )
        assert again.value.kind == "invalid_state"


async def test_unknown_method_and_invalid_params(client: DirectTransport) -> None:
    with pytest.raises(RemoteError) as unknown:
        await client.send("thread.explode", {})
    assert unknown.value.code == -32601
    with pytest.raises(RemoteError) as invalid:
        await client.send("thread.rename", {"commandId": "", "threadId": 5, "title": ""})
    assert invalid.value.code == -32602
    paths = {e["path"] for e in invalid.value.data["errors"]}
    assert {"$.params.commandId", "$.params.threadId", "$.params.title"} <= paths


async def test_create_is_durable_and_replayed_by_command_id(host: Host, home: Path) -> None:
    async with DirectTransport.connect(host) as client:
        await client.send(
            "initialize", {"protocolVersion": 1, "client": {"name": "t", "version": "0"}}
        )
        first = await client.send("thread.create", {"commandId": "c1", "title": "Trip"})
        again = await client.send("thread.create", {"commandId": "c1", "title": "Trip"})
        assert first == again
        with pytest.raises(RemoteError) as conflict:
            await client.send("thread.create", {"commandId": "c1", "title": "Other"})
        assert conflict.value.kind == "conflict"
    await host.aclose()
    async with Host(HostConfig(home=home)) as reopened, DirectTransport.connect(reopened) as client:
        await client.send(
            "initialize", {"protocolVersion": 1, "client": {"name": "t", "version": "0"}}
        )
        listed = await client.send("thread.list", {})
        assert [t["id"] for t in listed["threads"]] == [first["thread"]["id"]]
        assert listed["nextCursor"] is None


async def test_rename_emits_thread_updated_with_increasing_seq(client: DirectTransport) -> None:
    log = EventLog()
    client.on_event(log)
    created = await client.send("thread.create", {"commandId": "c1"})
    thread_id = created["thread"]["id"]
    assert created["thread"]["title"] == "New thread"
    assert created["thread"]["titleSource"] == "fallback"
    opened = await client.send("thread.open", {"threadId": thread_id})
    await client.send("thread.rename", {"commandId": "r1", "threadId": thread_id, "title": "A"})
    await client.send("thread.rename", {"commandId": "r2", "threadId": thread_id, "title": "B"})
    updates = log.of("thread.updated")
    assert [u["thread"]["title"] for u in updates] == ["A", "B"]
    seqs = [u["seq"] for u in updates]
    assert seqs[0] > opened["lastSeq"] and seqs[1] > seqs[0]
    reopened = await client.send("thread.open", {"threadId": thread_id})
    assert reopened["lastSeq"] == seqs[1]
    assert reopened["thread"]["titleSource"] == "user"


async def test_seq_keeps_increasing_across_host_restarts(home: Path) -> None:
    seqs: list[int] = []
    thread_id = ""
    for round_ in range(2):
        async with Host(HostConfig(home=home)) as host, DirectTransport.connect(host) as client:
            await client.send(
                "initialize", {"protocolVersion": 1, "client": {"name": "t", "version": "0"}}
            )
            log = EventLog()
            client.on_event(log)
            if not thread_id:
                thread_id = (await client.send("thread.create", {"commandId": "c"}))["thread"]["id"]
            await client.send(
                "thread.rename",
                {"commandId": f"r{round_}", "threadId": thread_id, "title": f"t{round_}"},
            )
            seqs.extend(u["seq"] for u in log.of("thread.updated"))
    assert seqs[1] > seqs[0]


async def test_delete_removes_thread_and_is_replayed(client: DirectTransport) -> None:
    thread_id = (await client.send("thread.create", {"commandId": "c"}))["thread"]["id"]
    assert await client.send("thread.delete", {"commandId": "d", "threadId": thread_id}) == {}
    assert await client.send("thread.delete", {"commandId": "d", "threadId": thread_id}) == {}
    with pytest.raises(RemoteError) as gone:
        await client.send("thread.open", {"threadId": thread_id})
    assert gone.value.kind == "not_found"
    with pytest.raises(RemoteError) as again:
        await client.send("thread.delete", {"commandId": "d2", "threadId": thread_id})
    assert again.value.kind == "not_found"


def _add_items(host: Host, thread_id: str, texts: list[str]) -> list[str]:
    profile = host.profile
    assert profile is not None
    ids: list[str] = []
    with profile.db.transaction() as conn:
        parent = thread_store.get(conn, thread_id).head_item_id
        for n, text in enumerate(texts):
            item_id = new_id("itm")
            item_store.insert(
                conn,
                ItemRecord(
                    id=item_id,
                    thread_id=thread_id,
                    parent_id=parent,
                    turn_id="trn_x",
                    kind="user" if n % 2 == 0 else "assistant",
                    created_at=now_ms(),
                    text=text,
                ),
            )
            parent = item_id
            ids.append(item_id)
        thread_store.set_head(conn, thread_id, parent)
    return ids


async def test_fork_empty_and_at_item(host: Host, client: DirectTransport) -> None:
    source = (await client.send("thread.create", {"commandId": "c", "title": "Src"}))["thread"]
    ids = _add_items(host, source["id"], ["q1", "a1", "q2", "a2"])
    empty = await client.send("thread.fork", {"commandId": "f0", "threadId": source["id"]})
    assert empty["thread"]["parentThreadId"] == source["id"]
    assert (await client.send("thread.open", {"threadId": empty["thread"]["id"]}))["items"] == []
    forked = await client.send(
        "thread.fork", {"commandId": "f1", "threadId": source["id"], "atItemId": ids[1]}
    )
    assert forked["thread"]["forkedFromItemId"] == ids[1]
    snapshot = await client.send("thread.open", {"threadId": forked["thread"]["id"]})
    assert [i["text"] for i in snapshot["items"]] == ["q1", "a1"]
    assert not {i["id"] for i in snapshot["items"]} & set(ids)
    original = await client.send("thread.open", {"threadId": source["id"]})
    assert [i["text"] for i in original["items"]] == ["q1", "a1", "q2", "a2"]


async def test_forks_are_named_as_copies_told_apart(host: Host, client: DirectTransport) -> None:
    source = (await client.send("thread.create", {"commandId": "c", "title": "first"}))["thread"]
    other = (await client.send("thread.create", {"commandId": "o", "title": "firsthand"}))["thread"]

    async def fork(of: str, command: str) -> str:
        made = await client.send("thread.fork", {"commandId": command, "threadId": of})
        title: str = made["thread"]["title"]
        return title

    assert await fork(source["id"], "f1") == "first (copy)"
    assert await fork(source["id"], "f2") == "first (copy 2)"
    # a copy's copy counts on from the same name; another title that starts alike is its own
    copies = (await client.send("thread.list", {}))["threads"]
    copy = next(t for t in copies if t["title"] == "first (copy)")
    assert await fork(copy["id"], "f3") == "first (copy 3)"
    assert await fork(other["id"], "f4") == "firsthand (copy)"


async def test_select_branch_moves_the_head(host: Host, client: DirectTransport) -> None:
    thread = (await client.send("thread.create", {"commandId": "c"}))["thread"]
    ids = _add_items(host, thread["id"], ["q1", "a1", "q2", "a2"])
    snapshot = await client.send(
        "thread.selectBranch", {"commandId": "s", "threadId": thread["id"], "itemId": ids[1]}
    )
    assert [i["text"] for i in snapshot["items"]] == ["q1", "a1"]
    assert [
        i["text"] for i in (await client.send("thread.open", {"threadId": thread["id"]}))["items"]
    ] == ["q1", "a1"]
    other = (await client.send("thread.create", {"commandId": "c2"}))["thread"]
    with pytest.raises(RemoteError) as foreign:
        await client.send(
            "thread.selectBranch", {"commandId": "s2", "threadId": other["id"], "itemId": ids[0]}
        )
    assert foreign.value.kind == "not_found"


async def test_list_paginates_and_searches(client: DirectTransport) -> None:
    for n in range(5):
        await client.send("thread.create", {"commandId": f"c{n}", "title": f"Project {n} notes"})
    await client.send("thread.create", {"commandId": "x", "title": "Groceries"})
    page = await client.send("thread.list", {"limit": 4})
    rest = await client.send("thread.list", {"limit": 4, "cursor": page["nextCursor"]})
    assert len(page["threads"]) == 4 and len(rest["threads"]) == 2
    found = await client.send("thread.list", {"query": "grocer"})
    assert [t["title"] for t in found["threads"]] == ["Groceries"]
    assert found["matches"] == [
        {
            "threadId": found["threads"][0]["id"],
            "source": "title",
            "text": "Groceries",
            "highlights": [{"start": 0, "end": 9}],
        }
    ]
    assert "matches" not in page  # only a search says why a thread is listed


async def test_reopening_shows_every_change_made_since_the_last_open(
    host: Host, client: DirectTransport
) -> None:
    thread = (await client.send("thread.create", {"commandId": "c"}))["thread"]
    ids = _add_items(host, thread["id"], ["q1", "a1"])
    first = await client.send("thread.open", {"threadId": thread["id"]})
    assert [i["text"] for i in first["items"]] == ["q1", "a1"]
    profile = host.profile
    assert profile is not None
    with profile.db.transaction() as conn:  # any write path: the cache is kept by a trigger
        conn.execute("UPDATE item SET text = 'a1 edited' WHERE id = ?", (ids[1],))
    again = await client.send("thread.open", {"threadId": thread["id"]})
    assert [i["text"] for i in again["items"]] == ["q1", "a1 edited"]
    assert again["items"][0] == first["items"][0]
