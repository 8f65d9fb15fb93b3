"""Against the Python test server (stdio via ``sys.executable``)."""

from __future__ import annotations

import logging
import os
import signal
from pathlib import Path
from typing import Any

import mcp_types as mt
import pytest
from tests.mcp.conftest import ScriptedContext, call_in, py_server

from panelot_host.tools import McpBinding, TextBlock

pytestmark = pytest.mark.anyio


async def test_listed_tools_are_registered_with_their_binding_and_effects(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "add")
    assert h.tools("py") == [
        "mcp__py__add",
        "mcp__py__ask_name",
        "mcp__py__fail",
        "mcp__py__grow",
        "mcp__py__inject",
        "mcp__py__slow",
    ]
    add = h.registry.current.tools["mcp__py__add"].descriptor
    assert add.level == "L0" and add.recovery == "remote" and add.trust == "untrusted"
    assert add.effects == {"read"}  # readOnlyHint, openWorldHint false
    assert h.registry.current.tools["mcp__py__fail"].descriptor.effects == {"write", "external"}
    assert isinstance(add.binding, McpBinding)
    assert add.binding.server == "py" and add.binding.remote_name == "add"
    assert add.binding.endpoint.endswith("py_server.py")
    assert "$schema" not in add.parameters
    [status] = h.manager.status()
    assert (status.state, status.tool_count, status.server_name) == (
        "connected",
        6,
        "panelot-test-server",
    )


async def test_a_call_returns_wrapped_untrusted_text(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "add")
    result = await h.call("mcp__py__add", {"a": 2, "b": 3})
    assert not result.is_error
    assert result.content == "<untrusted-page-content>\nsum=5\n</untrusted-page-content>"
    assert result.details is not None and result.details["mcp"] == {"server": "py", "tool": "add"}


async def test_server_text_cannot_close_the_untrusted_marker(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "inject")
    result = await h.call("mcp__py__inject", {})
    assert isinstance(result.content, str)
    assert result.content.count("</untrusted-page-content>") == 1
    assert result.content.endswith("</untrusted-page-content>")


async def test_an_is_error_result_stays_a_result_for_the_model(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "fail")
    result = await h.call("mcp__py__fail", {"reason": "disk full"})
    assert result.is_error and not result.denied
    assert "disk full" in str(result.content)


async def test_progress_reaches_the_context(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "slow")
    context = ScriptedContext()
    result = await h.call("mcp__py__slow", {"seconds": 0.3, "steps": 3}, context)
    assert not result.is_error
    assert context.progress == ["step 1 (1/3)", "step 2 (2/3)", "step 3 (3/3)"]


async def test_a_call_without_progress_times_out_clearly(harness: Any) -> None:
    entry = {**py_server(), "timeout": 0.5}
    h = await harness({"py": entry})
    await h.wait_connected("py", "slow")
    result = await h.call("mcp__py__slow", {"seconds": 3, "steps": 1})
    assert result.is_error
    assert "did not answer in time" in str(result.content)
    assert result.details == {"mcp": {"server": "py", "tool": "slow", "timeout": True}}
    assert (await h.call("mcp__py__add", {"a": 1, "b": 1})).content.count("sum=2") == 1


async def test_progress_extends_the_timeout(harness: Any) -> None:
    entry = {**py_server(), "timeout": 0.6}
    h = await harness({"py": entry})
    await h.wait_connected("py", "slow")
    result = await h.call("mcp__py__slow", {"seconds": 1.5, "steps": 6})  # 0.25 s apart
    assert not result.is_error, result.content


async def test_elicitation_is_asked_through_the_calls_context(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "ask_name")
    context = ScriptedContext(answers=[{"name": "Ada"}])
    result = await h.call("mcp__py__ask_name", {}, context)
    assert "hello Ada" in str(result.content)
    [(prompt, schema)] = context.asked
    assert prompt == "The MCP server “py” asks: What is your name?"
    assert schema["properties"]["name"]["type"] == "string"


async def test_a_declined_elicitation_is_declined_to_the_server(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "ask_name")
    context = ScriptedContext(answers=["decline"])
    result = await h.call("mcp__py__ask_name", {}, context)
    assert "no name (decline)" in str(result.content)


async def test_list_changed_publishes_a_new_generation(harness: Any) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "grow")
    before = h.registry.current.id
    result = await h.call("mcp__py__grow", {})
    assert not result.is_error
    await h.wait_for(lambda: "mcp__py__extra" in h.tools("py"))
    assert h.registry.current.id > before
    extra = await h.call("mcp__py__extra", {})
    assert isinstance(extra.content, str) and "extra" in extra.content


async def test_a_tool_changed_by_a_relisting_is_refused_to_runs_that_listed_the_old_one(
    harness: Any,
) -> None:
    h = await harness({"py": py_server()})
    await h.wait_connected("py", "grow")
    await h.call("mcp__py__grow", {})
    await h.wait_connected("py", "extra")
    old_catalog = h.catalog()
    old = h.registry.current.tools["mcp__py__extra"].digest
    await h.call("mcp__py__grow", {"description": "The extra tool, reworded."})
    await h.wait_for(lambda: h.registry.current.tools["mcp__py__extra"].digest != old)

    changed = await call_in(old_catalog, "mcp__py__extra", {})
    assert changed.is_error
    assert "changed the tool `extra` since it was listed" in str(changed.content)
    assert changed.details == {"mcp": {"server": "py", "tool": "extra", "stale": True}}
    fresh = await h.call("mcp__py__extra", {})
    assert not fresh.is_error and "extra" in str(fresh.content)


async def test_stderr_goes_to_the_servers_logger(
    harness: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="panelot_host.mcp.py")
    h = await harness({"py": py_server()})
    await h.wait_connected("py")
    await h.wait_for(lambda: any("py_server: started" in r.message for r in caplog.records))
    record = next(r for r in caplog.records if "py_server: started" in r.message)
    assert record.name == "panelot_host.mcp.py"


async def test_a_killed_server_restarts_and_old_calls_fail_clearly(
    harness: Any, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    h = await harness({"py": py_server(pid_file)})
    await h.wait_connected("py", "add")
    old_catalog = h.catalog()
    old_generation = h.registry.current.id
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    pid_file.unlink()

    await h.wait_for(lambda: pid_file.exists() and h.manager.status()[0].state == "connected")
    await h.wait_connected("py", "add")
    assert h.registry.current.id > old_generation
    assert h.manager.status()[0].restarts >= 1

    stale = await call_in(old_catalog, "mcp__py__add", {"a": 1, "b": 2})
    assert stale.is_error
    assert "restarted since the tool `add` was listed" in str(stale.content)
    assert stale.details == {"mcp": {"server": "py", "tool": "add", "stale": True}}
    fresh = await h.call("mcp__py__add", {"a": 1, "b": 2})
    assert not fresh.is_error and "sum=3" in str(fresh.content)


async def test_a_call_in_flight_when_the_server_dies_fails_clearly(
    harness: Any, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    h = await harness({"py": py_server(pid_file)})
    await h.wait_connected("py", "slow")
    import anyio

    results: list[Any] = []

    async def slow_call() -> None:
        results.append(await h.call("mcp__py__slow", {"seconds": 5, "steps": 5}))

    async with anyio.create_task_group() as tg:
        tg.start_soon(slow_call)
        await anyio.sleep(0.3)
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    [result] = results
    assert result.is_error
    assert "was lost during the call of `slow`; its outcome is unknown" in str(result.content)
    assert result.details is not None
    assert result.details["mcp"] == {"server": "py", "tool": "slow", "code": mt.CONNECTION_CLOSED}


async def test_disable_and_remove_take_the_tools_away(harness: Any) -> None:
    h = await harness({"py": py_server(), "other": py_server()})
    await h.wait_connected("py", "add")
    await h.wait_connected("other", "add")
    h.store.set_enabled("py", False)
    await h.manager.reload()
    assert h.tools("py") == [] and h.tools("other") != []
    assert [(s.name, s.state) for s in h.manager.status()] == [
        ("other", "connected"),
        ("py", "disabled"),
    ]
    h.store.remove("other")
    await h.manager.reload()
    assert h.tools("other") == []
    assert [s.name for s in h.manager.status()] == ["py"]
    h.store.set_enabled("py", True)
    await h.manager.reload()
    await h.wait_connected("py", "add")


async def test_a_command_that_cannot_start_is_failed_with_the_reason(harness: Any) -> None:
    h = await harness({"bad": {"command": "/nonexistent/mcp-server"}})
    await h.wait_for(lambda: h.manager.status()[0].state == "failed")
    [status] = h.manager.status()
    assert status.reason is not None and "gave up after 5 attempts" in status.reason
    assert "FileNotFoundError" in status.reason or "No such file" in status.reason


async def test_a_missing_credential_fails_without_retrying(harness: Any) -> None:
    entry = {**py_server(), "env": {"TOKEN": {"credentialRef": "not-stored"}}}
    h = await harness({"py": entry})
    await h.wait_for(lambda: h.manager.status()[0].state == "failed")
    [status] = h.manager.status()
    assert status.reason == "credential 'not-stored' (TOKEN) is not stored"
    assert status.restarts == 0


async def test_an_image_result_is_content_and_referenced_in_details() -> None:
    import mcp_types as mt

    from panelot_host.tools.mcp import map_result

    result = map_result(
        "s",
        "t",
        mt.CallToolResult(
            content=[
                mt.TextContent(text="look"),
                mt.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
            ]
        ),
    )
    assert isinstance(result.content, list)
    assert isinstance(result.content[0], TextBlock)
    assert result.details is not None
    assert result.details["images"] == [{"contentIndex": 1, "mediaType": "image/png"}]
