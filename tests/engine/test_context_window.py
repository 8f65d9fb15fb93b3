"""Context that always fits (issue 17): a 200-step browsing session against a model with a
100k-token window that answers "prompt is too long" past it."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, run_turn, wait_for, wait_until
from tests.support.context_session import (
    BROWSER_TOOLS,
    WINDOW,
    BrowsingShim,
    WindowedModel,
    browsing_steps,
    model_info,
)
from tests.support.fixed_models import FixedModels
from tests.support.invariants import check_request
from tests.support.tabs import ACT_ON_ANY_TAB

from panelot_host.engine.context_window import elision
from panelot_host.errors import ProviderHTTPError
from panelot_host.providers.anthropic_request import build_body
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.directives import directives_provider
from panelot_host.providers.scripted import Fail, Hang, ScriptedProvider
from panelot_host.providers.types import ImagePart, ModelRequest, ToolResultMessage
from panelot_host.server.assembly import default_registry
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.store.profiles import database_path

pytestmark = pytest.mark.anyio

Opener = Callable[..., Any]

# a 200-step turn on a loaded 2-core machine: the bound catches a hang, it is not a timing
LONG_TURN_S = 90.0


class Session:
    def __init__(self, client: DirectTransport, host: Host) -> None:
        self.client = client
        self.host = host
        self.log = EventLog()
        client.on_event(self.log)


def opener(home: Path, info: ModelInfo, model: WindowedModel | ScriptedProvider) -> Opener:
    provider = model if isinstance(model, ScriptedProvider) else model.provider

    @asynccontextmanager
    async def open_host() -> AsyncIterator[Session]:
        models = FixedModels(provider, info)
        config = HostConfig(
            home=home, lease_wait_s=0.5, key_dir=home.parent / "keys", environ=ACT_ON_ANY_TAB
        )
        async with (
            Host(config, models=lambda _db: models, registry=default_registry()) as host,
            DirectTransport.connect(host, shim=BrowsingShim()) as client,
        ):
            init = {**INIT, "capabilities": {"browserTools": BROWSER_TOOLS}}
            await client.send("initialize", init)
            yield Session(client, host)

    return open_host


def branch(home: Path) -> list[tuple[str, str | None, str | None, str | None]]:
    """(kind, text, result JSON, tool name) of every item, read straight from the database."""
    conn = sqlite3.connect(database_path(home, None))
    rows = conn.execute("SELECT kind, text, result, name FROM item ORDER BY ord").fetchall()
    conn.close()
    return rows


def check_context(request: ModelRequest) -> None:
    """The request invariants of the suite, plus what elision promises."""
    check_request(request)
    images = [
        m
        for m in request.messages
        if isinstance(m, ToolResultMessage) and any(isinstance(p, ImagePart) for p in m.content)
    ]
    assert len(images) <= elision.MAX_IMAGES


async def test_a_200_step_session_fits_a_100k_window_and_keeps_every_item(home: Path) -> None:
    model = WindowedModel(browsing_steps(200))
    async with opener(home, model_info(), model)() as s:
        thread_id = await new_thread(s.client)
        model.steps = browsing_steps(100)
        first = await run_turn(
            s.client, s.log, thread_id, "Compare the prices, part 1", within_s=LONG_TURN_S
        )
        model.steps = browsing_steps(201)  # steps 101-200 (step 100 was the first answer)
        second = await run_turn(s.client, s.log, thread_id, "Now part 2", within_s=LONG_TURN_S)
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    assert first["status"] == second["status"] == "completed", (first, second)
    assert len(model.main_requests) == 202  # 200 tool steps and two final answers
    assert model.rejected == 0
    sizes = [size.total for size in model.main_sizes]
    assert max(sizes) <= WINDOW
    for request in model.main_requests:
        check_context(request)
    # what a request calls stable (its cache hint) is sent unchanged until a compaction
    for k in range(1, len(model.main_requests)):
        before, after = model.main_requests[k - 1], model.main_requests[k]
        if k not in model.compacted_before:
            assert 0 < before.stable_prefix <= len(before.messages)
            assert after.messages[: before.stable_prefix] == before.messages[: before.stable_prefix]
    stable = [r.stable_prefix / len(r.messages) for r in model.main_requests]
    assert sum(stable) / len(stable) > 0.3  # a useful hint, not a trivial one
    # compacted more than once, and the later summaries fold in the earlier ones
    compactions = [i for i in snapshot["items"] if i["kind"] == "compaction"]
    assert len(compactions) >= 2 and len(model.summary_requests) == len(compactions)
    assert "earlier-summary" in model.summary_requests[-1].messages[0].content[0].text  # type: ignore[union-attr]
    assert all(c["summary"] and c["throughItemId"] for c in compactions)
    # the store keeps every original item, results unchanged
    rows = branch(home)
    calls = [r for r in rows if r[0] == "toolCall"]
    assert len(calls) == 200 and all(r[2] for r in calls)
    snapshots = [msgspec.json.decode(r[2]) for r in calls if r[3] == "browser_snapshot"]
    assert len(snapshots) == 80 and all(len(s["content"]) >= 20_000 for s in snapshots)
    assert [r[0] for r in rows].count("assistant") == 202


async def test_restart_gives_a_byte_identical_next_request(home: Path, tmp_path: Path) -> None:
    """What kill -9 leaves is what was committed (synchronous=FULL, one writer): a backup
    of the database taken while a model call is in flight is that state. A host started on
    it and resumed sends the same bytes the original sent for that call (in process, at a
    chosen call; ``tests/server/test_context_kill.py`` kills the real host)."""
    copy_home = tmp_path / "copy-home"
    copied_at: list[int] = []

    def snapshot_store(request: ModelRequest, index: int) -> None:
        if index == 150 and not copied_at:
            copied_at.append(len(model.summary_requests))
            target = database_path(copy_home, None)
            target.parent.mkdir(parents=True, exist_ok=True)
            source = sqlite3.connect(database_path(home, None))
            dest = sqlite3.connect(target)
            source.backup(dest)
            source.close()
            dest.close()

    model = WindowedModel(browsing_steps(200), on_request=snapshot_store)
    async with opener(home, model_info(), model)() as s:
        thread_id = await new_thread(s.client)
        done = await run_turn(
            s.client, s.log, thread_id, "Compare the prices", within_s=LONG_TURN_S
        )
    assert done["status"] == "completed" and copied_at
    original = model.main_requests[150]

    again = WindowedModel(browsing_steps(200))
    again.next_step = 150
    async with opener(copy_home, model_info(), again)() as s:
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "interrupted"
        run_id = snapshot["run"]["id"]
        await s.client.send(
            "run.resume", {"commandId": "r", "threadId": thread_id, "runId": run_id}
        )
        await wait_for(s.log, "turn.complete", within_s=60)
    resumed = again.main_requests[0]
    assert copied_at[0] >= 1  # the copy holds a compaction
    sent, resent = (
        msgspec.json.encode(build_body(original)),
        msgspec.json.encode(build_body(resumed)),
    )
    assert sent == resent
    # and the run went on to the end, as the original did
    assert len(again.main_requests) == len(model.main_requests) - 150
    assert len(again.summary_requests) == len(model.summary_requests) - copied_at[0]


async def test_prompt_too_long_is_compacted_and_retried_once(home: Path) -> None:
    """The settings claim a 400k window; the model has 100k and says so when passed."""
    model = WindowedModel(browsing_steps(60))
    async with opener(home, model_info(), model)() as s:
        limits = {"windowed-model": {"contextWindow": 400_000}}
        await s.client.send("settings.update", {"commandId": "lim", "modelLimits": limits})
        settings = await s.client.send("settings.get", {})
        assert settings["settings"]["modelLimits"] == limits
        thread_id = await new_thread(s.client)
        done = await run_turn(
            s.client, s.log, thread_id, "Compare the prices", within_s=LONG_TURN_S
        )
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    assert done["status"] == "completed", done
    assert model.rejected >= 1
    assert len([i for i in snapshot["items"] if i["kind"] == "compaction"]) >= model.rejected
    assert len(model.main_requests) == 61
    for request in model.main_requests:
        check_context(request)


async def test_a_context_that_cannot_fit_fails_with_context_overflow(home: Path) -> None:
    """The settings claim a 400k window; the model has 3,000 tokens. The second message
    alone is too long: the engine summarizes the first Turn, retries once, then fails."""
    model = WindowedModel([], window=3_000)
    async with opener(home, model_info(window=3_000), model)() as s:
        limits = {"windowed-model": {"contextWindow": 400_000}}
        await s.client.send("settings.update", {"commandId": "lim", "modelLimits": limits})
        thread_id = await new_thread(s.client)
        first = await run_turn(s.client, s.log, thread_id, "hello")
        done = await run_turn(s.client, s.log, thread_id, "compare these: " + "x " * 20_000)
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    assert first["status"] == "completed" and done["status"] == "failed"
    assert done["error"]["kind"] == "context_overflow"
    assert "context window" in done["error"]["message"] and "new thread" in done["error"]["message"]
    assert model.rejected == 2  # the first answer and the one retry after compacting
    kinds = [i["kind"] for i in snapshot["items"]]
    assert kinds == ["user", "assistant", "user", "compaction"]


async def test_a_stop_while_the_summary_streams_leaves_the_branch_as_it_was(home: Path) -> None:
    model = WindowedModel(browsing_steps(60), window=40_000)
    model.summary_script = [Hang()]
    async with opener(home, model_info(40_000), model)() as s:
        thread_id = await new_thread(s.client)
        await s.client.send(
            "turn.submit", {"commandId": "go", "threadId": thread_id, "text": "Compare the prices"}
        )
        await wait_until(lambda: bool(model.summary_requests), within_s=60)
        before = branch(home)
    # the host stopped (as when killed) while the summary was streaming
    assert branch(home) == before
    assert "compaction" not in [row[0] for row in before]
    model.summary_script = None
    async with opener(home, model_info(40_000), model)() as s:
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        run_id = snapshot["run"]["id"]
        await s.client.send(
            "run.resume", {"commandId": "r", "threadId": thread_id, "runId": run_id}
        )
        done = await wait_for(s.log, "turn.complete", within_s=60)
    assert done[0]["status"] == "completed"
    after = branch(home)
    assert after[: len(before)] == before
    assert "compaction" in [row[0] for row in after]


async def test_a_failure_inside_the_compaction_commit_stores_nothing(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from panelot_host.engine.context_window import compaction

    record_call_usage = compaction.record_call_usage

    def broken(*args: Any) -> None:
        record_call_usage(*args)
        raise RuntimeError("disk gone")  # after the item and its usage were written

    monkeypatch.setattr(compaction, "record_call_usage", broken)
    model = WindowedModel(browsing_steps(60), window=40_000)
    async with opener(home, model_info(40_000), model)() as s:
        thread_id = await new_thread(s.client)
        done = await run_turn(
            s.client, s.log, thread_id, "Compare the prices", within_s=LONG_TURN_S
        )
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    assert done["status"] == "failed" and model.summary_requests
    kinds = [row[0] for row in branch(home)]
    assert "compaction" not in kinds
    assert snapshot["items"][-1]["kind"] == "toolCall"  # the head never moved to a summary
    assert kinds.count("toolCall") == len(model.main_requests)
    conn = sqlite3.connect(database_path(home, None))
    usage_rows = conn.execute("SELECT count(*) FROM usage").fetchone()[0]
    conn.close()
    assert usage_rows == len(model.main_requests)  # the summary's usage was rolled back too


async def test_a_failing_summary_is_noted_not_retried_at_every_call(home: Path) -> None:
    model = WindowedModel(browsing_steps(80), window=40_000)
    model.summary_script = [Fail(ProviderHTTPError(400, "invalid_request_error: bad"))]
    async with opener(home, model_info(40_000), model)() as s:
        thread_id = await new_thread(s.client)
        done = await run_turn(
            s.client, s.log, thread_id, "Compare the prices", within_s=LONG_TURN_S
        )
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    notices = [i for i in snapshot["items"] if i["kind"] == "notice"]
    assert notices and all(n["code"] == "compaction_failed" for n in notices)
    assert "bad" in notices[0]["text"]
    # tried again only once the context grew, not at every model call
    assert len(model.summary_requests) < len(model.main_requests) / 3
    # in the end the window is passed: one forced attempt, then a clear failure
    assert done["status"] == "failed", done
    assert done["error"]["kind"] == "context_overflow"
    assert "summarizing failed" in done["error"]["message"]
    assert "compaction" not in [i["kind"] for i in snapshot["items"]]


async def test_a_fork_of_a_compacted_thread_sends_the_same_context(home: Path) -> None:
    model = WindowedModel(browsing_steps(60), window=40_000)
    async with opener(home, model_info(40_000), model)() as s:
        thread_id = await new_thread(s.client)
        await run_turn(s.client, s.log, thread_id, "Compare the prices", within_s=LONG_TURN_S)
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert "compaction" in [i["kind"] for i in snapshot["items"]]
        forked = await s.client.send(
            "thread.fork",
            {"commandId": "f", "threadId": thread_id, "atItemId": snapshot["items"][-1]["id"]},
        )
        fork_id = forked["thread"]["id"]
        await run_turn(s.client, s.log, thread_id, "And the cheapest?")
        await run_turn(s.client, s.log, fork_id, "And the cheapest?")
    original, fork = model.main_requests[-2], model.main_requests[-1]
    assert original.messages[0].content[0].text.startswith("[Summary")  # type: ignore[union-attr]
    assert original.messages == fork.messages


async def test_a_branch_selected_before_a_compaction_does_not_use_it(home: Path) -> None:
    model = WindowedModel(browsing_steps(60), window=40_000)
    async with opener(home, model_info(40_000), model)() as s:
        thread_id = await new_thread(s.client)
        await run_turn(s.client, s.log, thread_id, "Compare the prices", within_s=LONG_TURN_S)
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        compaction = next(i for i in snapshot["items"] if i["kind"] == "compaction")
        ids = [i["id"] for i in snapshot["items"]]
        early = ids[ids.index(compaction["throughItemId"]) - 1]
        await s.client.send(
            "thread.selectBranch", {"commandId": "b", "threadId": thread_id, "itemId": early}
        )
        await run_turn(s.client, s.log, thread_id, "Start over from here")
    request = model.main_requests[-1]
    first = request.messages[0].content[0].text  # type: ignore[union-attr]
    assert first == "Compare the prices"
    check_context(request)


# ------------------------------------------------------------------ demo mode


def _summaries(snapshot: dict[str, Any]) -> list[str]:
    return [i["summary"] for i in snapshot["items"] if i["kind"] == "compaction"]


async def test_the_echo_demo_model_compacts_with_a_deterministic_summary(home: Path) -> None:
    """Demo mode (``PANELOT_PROVIDER=scripted``): the echo model answers a summary request
    with a digest of the transcript, not an echo of it."""
    info = ModelInfo(id="scripted", provider="scripted", context_window=4_000)
    async with opener(home, info, ScriptedProvider.echo())() as s:
        thread_id = await new_thread(s.client)
        for n in range(6):
            done = await run_turn(s.client, s.log, thread_id, f"note {n}: " + "word " * 300)
            assert done["status"] == "completed", done
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    summaries = _summaries(snapshot)
    assert summaries, [i["kind"] for i in snapshot["items"]]
    assert summaries[0].startswith("Scripted summary of ")
    assert 'The user first asked: "note 0: word word' in summaries[0]
    assert "You said" not in summaries[0].split("\n")[0]


async def test_the_directives_model_compacts_a_browsing_turn(home: Path) -> None:
    """``PANELOT_SCRIPTED=directives`` (the torture harness's model) summarizes too: a Turn
    that reads more tabs than its window holds completes, with compactions."""
    reads = " ".join(f'[[browser_snapshot {{"tabId": {tab}}}]]' for tab in range(1, 15))
    info = ModelInfo(id="scripted", provider="scripted", vision=True, context_window=30_000)
    provider = directives_provider()
    async with opener(home, info, provider)() as s:
        thread_id = await new_thread(s.client)
        done = await run_turn(s.client, s.log, thread_id, f"{reads} [[text compared]]")
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
    assert done["status"] == "completed", done
    summaries = _summaries(snapshot)
    assert summaries and all(text.startswith("Scripted summary of ") for text in summaries)
    assert "browser_snapshot x" in summaries[0] and "[[browser_snapshot" in summaries[0]
    assert snapshot["items"][-1]["text"].startswith("compared")
    calls = [i for i in snapshot["items"] if i["kind"] == "toolCall"]
    assert len(calls) == 14 and all(c["status"] == "succeeded" for c in calls)


def test_a_scripted_summary_is_the_same_for_the_same_request() -> None:
    from panelot_host.providers.scripted_summary import scripted_summary
    from panelot_host.providers.types import TextPart, UserMessage

    text = (
        "Summarize...\n\n<conversation>\nUser: find the cheapest\nAssistant: Looking.\n"
        "Tool call browser_read({})\n  Result: price 12.50\n"
        "Tool call browser_read({})\n  Result: price 9.75\n</conversation>"
    )
    request = ModelRequest(
        model="m", system="s", messages=[UserMessage([TextPart(text)])], purpose="summary"
    )
    summary = scripted_summary(request)
    assert summary == scripted_summary(request)
    assert summary == (
        "Scripted summary of 1 user message(s), 0 steering message(s), 1 assistant "
        "message(s) and 2 tool call(s) (browser_read x2). The user first asked: "
        '"find the cheapest". The last tool result began: "price 9.75".'
    )
