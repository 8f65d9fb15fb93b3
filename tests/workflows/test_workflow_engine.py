"""Workflows end to end through DirectTransport (issue 29): a Turn recorded with the
scripted model on the fake shop, proposed and saved as a workflow, then replayed without
the model (0 tokens, every call decided by the workflow), robust to cosmetic changes,
asking the Gatekeeper as any call does, handing a divergence to the model, pausing when
there is none; export/import; schedules."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn, wait_for
from tests.workflows.shop import Shop

from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio

TOOLS = frozenset({"browser_snapshot", "browser_click", "browser_type", "browser_navigate"})


def attach(host: Host, shop: Shop) -> None:
    assert host.profile is not None
    host.profile.ensure_engine().attach_browser(shop, TOOLS)


def record_script(provider: ScriptedProvider) -> None:
    """The model's way through the plain shop: search "socks", add the Hat to the cart."""
    provider.add(
        [ToolCall("browser_snapshot", {})],
        [ToolCall("browser_type", {"ref": "e2", "text": "socks"})],
        [ToolCall("browser_click", {"ref": "e3"})],
        [ToolCall("browser_snapshot", {})],
        [ToolCall("browser_click", {"ref": "e6"})],  # the Hat's "Add to cart"
        [ToolCall("browser_snapshot", {})],
        [Text("The hat is in the cart.")],
    )


async def answering(client: DirectTransport, log: EventLog, scope: str = "origin") -> None:
    """Allow every approval request as it comes (the user), until cancelled."""
    answered: set[str] = set()
    while True:
        resolved = {p["requestId"] for p in log.of("approval.resolved")}
        for request in log.of("approval.request"):
            if request["requestId"] not in answered | resolved:
                answered.add(request["requestId"])
                await client.send(
                    "approval.response",
                    {"commandId": f"a-{request['requestId']}", "requestId": request["requestId"],
                     "decision": "allow", "scope": scope},
                )  # fmt: skip
        await anyio.sleep(0.005)


async def record_and_save(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> tuple[str, dict[str, Any]]:
    shop = Shop()
    attach(host, shop)
    record_script(provider)
    thread_id = await new_thread(client)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(answering, client, log)
        done = await run_turn(client, log, thread_id, "Add a hat from the socks search")
        tasks.cancel_scope.cancel()
    assert done["status"] == "completed"
    assert shop.cart == ["Hat"]
    proposed = await client.send(
        "workflow.propose", {"threadId": thread_id, "turnId": done["turnId"]}
    )
    saved = await client.send("workflow.save", {"commandId": "save", "workflow": proposed["draft"]})
    return thread_id, saved["workflow"]


async def saved_without_grants(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> dict[str, Any]:
    """A saved workflow whose recording's grants (they cover the shop's origin) are
    revoked, so that its replay asks for each step."""
    _, workflow = await record_and_save(host, client, provider, log)
    for grant in (await client.send("permissions.list", {}))["grants"]:
        revoke = {"commandId": f"r-{grant['id']}", "grantId": grant["id"]}
        await client.send("permissions.revoke", revoke)
    return workflow


async def run_workflow(
    client: DirectTransport, log: EventLog, workflow_id: str, **params: Any
) -> dict[str, Any]:
    started = await client.send(
        "workflow.run", {"commandId": f"run-{len(log.events)}", "workflowId": workflow_id, **params}
    )
    [done] = await wait_for(log, "turn.complete", turnId=started["turnId"])
    return {**done, "threadId": started["threadId"]}


async def tool_calls(client: DirectTransport, thread_id: str, turn_id: str) -> list[dict[str, Any]]:
    opened = await client.send("thread.open", {"threadId": thread_id})
    return [i for i in opened["items"] if i["kind"] == "toolCall" and i["turnId"] == turn_id]


async def test_a_finished_turn_is_proposed_with_semantic_targets_and_parameters(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    assert workflow["goal"] == "Add a hat from the socks search"
    assert [s["tool"] for s in workflow["steps"]] == [
        "browser_type",
        "browser_click",
        "browser_click",
    ]
    typed, search, add = workflow["steps"]
    assert workflow["parameters"] == [
        {"name": "search", "label": "Search", "default": "socks", "kind": "text"}
    ]
    assert typed["arguments"] == {"text": "{{search}}"}
    assert typed["target"]["role"] == "searchbox" and "ref" not in typed["arguments"]
    assert typed["expect"] == {"kind": "value", "value": "{{search}}"}
    assert search["expect"] == {"kind": "navigation", "urlPattern": "https://shop.example/search*"}
    assert add["target"] == {
        "role": "button", "name": "Add to cart", "origin": "https://shop.example",
        "urlPattern": "https://shop.example/search*", "landmark": "main",
        "heading": 'heading "Hat"', "nth": 1, "count": 3,
    }  # fmt: skip
    assert add["expect"] == {"kind": "appears", "role": "status", "name": "Added Hat to cart"}


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"shuffled": True},
        {"banner": True},
        {"renumbered": True},
        {"shuffled": True, "banner": True, "renumbered": True},
    ],
)
async def test_a_replay_with_a_new_parameter_needs_no_model(
    host: Host,
    client: DirectTransport,
    provider: ScriptedProvider,
    log: EventLog,
    variant: dict[str, bool],
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    calls_before = len(provider.requests)
    shop = Shop(**variant)
    attach(host, shop)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(answering, client, log)
        done = await run_workflow(client, log, workflow["id"], parameters={"search": "wool"})
        tasks.cancel_scope.cancel()
    assert done["status"] == "completed", done
    assert done["usage"] == {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 0,
                             "cacheWriteTokens": 0, "reasoningTokens": 0}  # fmt: skip
    assert len(provider.requests) == calls_before  # the model was never asked
    assert shop.typed == "wool" and shop.cart == ["Hat"]
    calls = await tool_calls(client, done["threadId"], done["turnId"])
    assert calls and all(c["decidedBy"] == "workflow" for c in calls)
    # a snapshot, then per step its action and the check (the next step's snapshot)
    assert [c["name"].removeprefix("browser_") for c in calls] == [
        "snapshot", "type", "snapshot", "click", "snapshot", "click", "snapshot",
    ]  # fmt: skip
    opened = await client.send("thread.open", {"threadId": done["threadId"]})
    assert opened["thread"]["title"] == workflow["name"]
    assert opened["turn"]["workflow"]["replayedSteps"] == [0, 1, 2]
    assert opened["turn"]["workflow"]["divergedAt"] is None


async def test_a_step_the_gatekeeper_asks_about_waits_for_the_user(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    workflow = await saved_without_grants(host, client, provider, log)
    asked_before = len(log.of("approval.request"))
    shop = Shop()
    attach(host, shop)
    started = await client.send("workflow.run", {"commandId": "ask", "workflowId": workflow["id"]})
    [request] = (await wait_for(log, "approval.request", count=asked_before + 1))[asked_before:]
    assert request["tool"]["name"] == "browser_type" and request["args"]["text"] == "socks"
    assert shop.typed == ""  # nothing done while the user has not answered
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(answering, client, log, "once")
        [done] = await wait_for(log, "turn.complete", turnId=started["turnId"])
        tasks.cancel_scope.cancel()
    assert done["status"] == "completed"
    assert len(log.of("approval.request")) - asked_before == 3  # each step asked once
    assert shop.typed == "socks" and shop.cart == ["Hat"]


async def test_a_step_the_user_denies_ends_the_run_without_the_model(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    workflow = await saved_without_grants(host, client, provider, log)
    asked_before = len(log.of("approval.request"))
    calls_before = len(provider.requests)
    shop = Shop()
    attach(host, shop)
    started = await client.send(
        "workflow.run",
        {"commandId": "deny", "workflowId": workflow["id"], "parameters": {"search": "scarf"}},
    )
    [request] = (await wait_for(log, "approval.request", count=asked_before + 1))[asked_before:]
    await client.send(
        "approval.response",
        {"commandId": "no", "requestId": request["requestId"], "decision": "deny", "scope": "once"},
    )
    [done] = await wait_for(log, "turn.complete", turnId=started["turnId"])
    assert done["status"] == "completed"
    assert len(provider.requests) == calls_before  # no model was asked to find another way
    assert len(log.of("approval.request")) == asked_before + 1  # nothing after it was tried
    assert shop.typed == "" and shop.cart == []
    opened = await client.send("thread.open", {"threadId": started["threadId"]})
    record = opened["turn"]["workflow"]
    assert record["deniedAt"] == 0 and record["divergedAt"] is None
    assert record["handedOver"] is False and record["replayedSteps"] == []
    [notice] = [i for i in opened["items"] if i["kind"] == "notice"]
    assert notice["code"] == "workflow_denied"
    said = [i["text"] for i in opened["items"] if i["kind"] == "assistant" and i.get("text")]
    # the step's title as this run does it (its parameter filled in), and who denied it
    assert said[-1].startswith("The workflow stopped at step 1 (Type 'scarf' into searchbox")
    assert (
        "the call was denied, so the run ends here; the 2 steps after it were not done"
        in (said[-1])
    )
    assert "The user denied the call to `browser_type`" in said[-1]
    assert "{{" not in said[-1] and "choose another approach" not in said[-1]


async def test_a_divergence_is_handed_to_the_model_with_the_plan(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    shop = Shop(sold_out=True)
    attach(host, shop)
    provider.add([Text("Everything is sold out; nothing was added.")])
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(answering, client, log)
        done = await run_workflow(client, log, workflow["id"])
        tasks.cancel_scope.cancel()
    assert done["status"] == "completed"
    handed = provider.requests[-1]
    told = [
        p.text for m in handed.messages for p in getattr(m, "content", []) if hasattr(p, "text")
    ]
    plan = next(t for t in told if "Divergence at step 3" in t)
    assert 'looked for button "Add to cart"' in plan and "[done] Type 'socks'" in plan
    opened = await client.send("thread.open", {"threadId": done["threadId"]})
    record = opened["turn"]["workflow"]
    assert record["replayedSteps"] == [0, 1] and record["divergedAt"] == 2
    assert record["handedOver"] is True
    notices = [i for i in opened["items"] if i["kind"] == "notice"]
    assert any(n["code"] == "workflow_diverged" for n in notices)
    assert done["usage"]["inputTokens"] == 0  # the scripted model reports none


async def test_without_a_model_a_divergence_pauses_with_a_reason(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    assert host.profile is not None
    engine = host.profile.ensure_engine()

    class NoModels:
        def resolve(self, model: str | None) -> Any:
            from panelot_host.errors import ProviderConfigError

            raise ProviderConfigError("no model is configured")

        def task_model(self) -> None:
            return None

        async def aclose(self) -> None:
            pass

    models = engine.ctx.models
    object.__setattr__(engine.ctx, "models", NoModels())  # the user removed the model
    attach(host, Shop(sold_out=True))
    started = await client.send(
        "workflow.run", {"commandId": "run-nomodel", "workflowId": workflow["id"]}
    )
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(answering, client, log)
        [paused] = await wait_for(log, "turn.paused", turnId=started["turnId"])
        tasks.cancel_scope.cancel()
    assert paused["reason"] == "needs_model"
    opened = await client.send("thread.open", {"threadId": started["threadId"]})
    assert opened["turn"]["pauseReason"] == "needs_model"
    assert any(
        i["kind"] == "notice" and "no model is configured" in i["text"] for i in opened["items"]
    )

    # a model is configured again: run.resume hands the rest of the Turn to it
    object.__setattr__(engine.ctx, "models", models)
    provider.add([Text("Sold out: nothing added.")])
    resume = {"commandId": "resume", "threadId": started["threadId"], "runId": paused["runId"]}
    await client.send("run.resume", resume)
    [done] = await wait_for(log, "turn.complete", turnId=started["turnId"])
    assert done["status"] == "completed"
    assert "Divergence at step 3" in str(provider.requests[-1].messages)


async def test_export_and_import_round_trip_and_bad_input_is_refused(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    exported = await client.send("workflow.export", {"workflowId": workflow["id"]})
    document = exported["document"]
    assert document["format"] == "panelot.workflow" and document["version"] == 1
    imported = await client.send("workflow.import", {"commandId": "imp", "document": document})
    copy = imported["workflow"]
    assert copy["id"] != workflow["id"]
    assert copy["steps"] == workflow["steps"] and copy["parameters"] == workflow["parameters"]
    broken = {**document, "workflow": {**document["workflow"], "steps": [{"tool": 3}]}}
    with pytest.raises(Exception) as refused:
        await client.send("workflow.import", {"commandId": "imp-bad", "document": broken})
    assert "invalid_params" in repr(refused.value) or "workflow" in str(refused.value)
    listed = await client.send("workflow.list", {})
    assert len(listed["workflows"]) == 2  # nothing stored was lost, nothing half-imported


async def test_update_renames_removes_steps_and_edits_parameters(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    updated = await client.send(
        "workflow.update",
        {"commandId": "u1", "workflowId": workflow["id"], "name": "Hat shopping",
         "removeSteps": [2],
         "parameters": [{"name": "search", "label": "What to search", "default": "wool"}]},
    )  # fmt: skip
    changed = updated["workflow"]
    assert changed["name"] == "Hat shopping" and len(changed["steps"]) == 2
    assert changed["parameters"][0]["default"] == "wool"
    await client.send("workflow.delete", {"commandId": "d1", "workflowId": workflow["id"]})
    assert (await client.send("workflow.list", {}))["workflows"] == []


async def test_schedules_hand_out_a_due_run_once_and_report_missed_ones(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    set_ = await client.send(
        "workflow.schedule.set",
        {
            "commandId": "s1",
            "workflowId": workflow["id"],
            "schedule": {"kind": "every", "hours": 2},
        },
    )
    schedule = set_["schedule"]
    assert schedule["nextRunAt"]
    listed = await client.send("workflow.schedule.list", {})
    assert listed["nextDueAt"] == schedule["nextRunAt"]
    from panelot_host.store.ids import now_ms

    hour = 3_600_000
    now = now_ms()
    nothing = await client.send("workflow.due", {"commandId": "due0", "now": now + hour})
    assert nothing["due"] == [] and nothing["missed"] == []
    due = await client.send("workflow.due", {"commandId": "d1", "now": now + 2 * hour + 60_000})
    assert [d["workflowId"] for d in due["due"]] == [workflow["id"]] and due["missed"] == []
    again = await client.send(
        "workflow.due", {"commandId": "due2", "now": now + 2 * hour + 120_000}
    )
    assert again["due"] == []  # handed out once
    # the browser was closed for a day: 12 occurrences, the last one 30 minutes late
    late = await client.send(
        "workflow.due", {"commandId": "due3", "now": now + 26 * hour + 1_800_000}
    )
    assert late["due"] == []
    [missed] = late["missed"]
    assert missed["count"] == 12
    started = await client.send(
        "workflow.run",
        {"commandId": "sched-run", "workflowId": workflow["id"], "trigger": "schedule"},
    )
    listed = await client.send("workflow.schedule.list", {})
    assert listed["schedules"][0]["threadId"] == started["threadId"]


async def test_a_replay_is_interrupted_like_any_turn(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    for grant in (await client.send("permissions.list", {}))["grants"]:
        revoke = {"commandId": f"r-{grant['id']}", "grantId": grant["id"]}
        await client.send("permissions.revoke", revoke)
    asked = len(log.of("approval.request"))
    shop = Shop()
    attach(host, shop)
    run = {"commandId": "stop", "workflowId": workflow["id"]}
    started = await client.send("workflow.run", run)
    await wait_for(log, "approval.request", count=asked + 1)  # waiting at the first step
    await client.send("turn.interrupt", {"threadId": started["threadId"]})
    [done] = await wait_for(log, "turn.complete", turnId=started["turnId"])
    assert done["status"] == "interrupted"
    assert shop.typed == "" and shop.cart == []


async def test_a_paused_schedule_hands_out_nothing_and_resumes_in_its_rhythm(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _, workflow = await record_and_save(host, client, provider, log)
    every = {"kind": "every", "hours": 3}
    base = {"workflowId": workflow["id"], "schedule": every}
    first = await client.send("workflow.schedule.set", {"commandId": "p0", **base})
    paused = await client.send("workflow.schedule.set", {"commandId": "p1", **base, "paused": True})
    assert paused["schedule"]["paused"] and paused["schedule"]["nextRunAt"] is None
    listed = await client.send("workflow.schedule.list", {})
    assert listed["nextDueAt"] is None
    resumed = await client.send("workflow.schedule.set", {"commandId": "p2", **base})
    assert resumed["schedule"]["nextRunAt"] == first["schedule"]["nextRunAt"]
