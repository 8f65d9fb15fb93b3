"""Against the reference server ``@modelcontextprotocol/server-everything`` (2026.8.31),
over stdio and over Streamable HTTP on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest
from tests.mcp.conftest import (
    PATIENT,
    HttpEverything,
    ScriptedContext,
    call_in,
    everything_stdio,
    needs_node,
)

from panelot_host.tools import ImageBlock, McpBinding, TextBlock

pytestmark = [pytest.mark.anyio, needs_node]

CORE = {"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"}


def _remote(h: Any, server: str) -> set[str]:
    tools = (h.registry.current.tools[n].descriptor for n in h.tools(server))
    return {t.binding.remote_name for t in tools if isinstance(t.binding, McpBinding)}


async def test_stdio_lists_tools_and_echo_and_sum_work(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "trigger-elicitation-request")  # after list_changed
    assert _remote(h, "everything") >= CORE
    echo = await h.call("mcp__everything__echo", {"message": "hi there"})
    assert echo.content == "<untrusted-page-content>\nEcho: hi there\n</untrusted-page-content>"
    total = await h.call("mcp__everything__get-sum", {"a": 2, "b": 40})
    assert "42" in str(total.content)
    echo_tool = h.registry.current.tools["mcp__everything__echo"].descriptor
    assert echo_tool.effects == {"read"}  # readOnlyHint true, openWorldHint false


async def test_stdio_long_running_operation_reports_progress(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "trigger-long-running-operation")
    context = ScriptedContext()
    result = await h.call(
        "mcp__everything__trigger-long-running-operation", {"duration": 0.6, "steps": 3}, context
    )
    assert not result.is_error
    assert context.progress == ["1/3", "2/3", "3/3"]


async def test_stdio_tiny_image_is_image_content(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "get-tiny-image")
    result = await h.call("mcp__everything__get-tiny-image", {})
    assert isinstance(result.content, list)
    images = [b for b in result.content if isinstance(b, ImageBlock)]
    assert [i.media_type for i in images] == ["image/png"]
    assert images[0].data.startswith("iVBORw0KGgo")
    assert result.details is not None
    index = result.content.index(images[0])
    assert result.details["images"] == [{"contentIndex": index, "mediaType": "image/png"}]


async def test_stdio_elicitation_goes_through_ask_user(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "trigger-elicitation-request")
    answer = {"name": "Ada Lovelace", "check": True, "email": "ada@example.com"}
    context = ScriptedContext(answers=[answer])
    result = await h.call("mcp__everything__trigger-elicitation-request", {}, context)
    assert not result.is_error
    [(prompt, schema)] = context.asked
    assert prompt.startswith("The MCP server “everything” asks: Please provide inputs")
    assert schema["type"] == "object" and "email" in schema["properties"]
    assert "Ada Lovelace" in str(result.content)


async def test_stdio_declined_elicitation_is_reported_by_the_server(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "trigger-elicitation-request")
    context = ScriptedContext(answers=["decline"])
    result = await h.call("mcp__everything__trigger-elicitation-request", {}, context)
    assert "declined" in str(result.content)


async def test_resources_become_text_with_their_uri(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "get-resource-reference")
    embedded = await h.call("mcp__everything__get-resource-reference", {})
    assert "Resource <demo://resource/dynamic/text/1>:" in str(embedded.content)
    assert embedded.details is not None
    assert embedded.details["resources"] == ["demo://resource/dynamic/text/1"]
    links = await h.call("mcp__everything__get-resource-links", {"count": 2})
    assert isinstance(links.content, list)
    texts = [b.text for b in links.content if isinstance(b, TextBlock)]
    assert any("Resource link:" in t and "<demo://resource/dynamic/" in t for t in texts)


async def test_sampling_is_not_offered_unless_allowed(harness: Any) -> None:
    h = await harness({"everything": everything_stdio()})
    await h.wait_connected("everything", "trigger-elicitation-request")
    assert "trigger-sampling-request" not in _remote(h, "everything")


async def test_allowed_sampling_is_declined_clearly_without_model_access(harness: Any) -> None:
    h = await harness({"everything": {**everything_stdio(), "allowSampling": True}})
    await h.wait_connected("everything", "trigger-sampling-request")
    result = await h.call("mcp__everything__trigger-sampling-request", {"prompt": "hi"})
    assert result.is_error
    assert "no model access" in str(result.content)


async def test_streamable_http_lists_and_calls(
    harness: Any, everything_http: HttpEverything
) -> None:
    h = await harness({"web": {"url": everything_http.url}})
    await h.wait_connected("web", "get-sum")
    assert _remote(h, "web") >= CORE
    binding = h.registry.current.tools["mcp__web__echo"].descriptor.binding
    assert isinstance(binding, McpBinding) and binding.endpoint == everything_http.url
    total = await h.call("mcp__web__get-sum", {"a": 1, "b": 2})
    assert "3" in str(total.content)
    context = ScriptedContext()
    slow = await h.call(
        "mcp__web__trigger-long-running-operation", {"duration": 0.4, "steps": 2}, context
    )
    assert not slow.is_error and context.progress == ["1/2", "2/2"]


async def test_streamable_http_server_killed_and_back_is_a_new_generation(
    harness: Any, everything_http: HttpEverything
) -> None:
    h = await harness({"web": {"url": everything_http.url}}, PATIENT)
    await h.wait_connected("web", "get-sum")
    old_catalog = h.catalog()
    old_generation = h.registry.current.id
    everything_http.kill()
    await h.wait_for(lambda: h.manager.status()[0].state == "reconnecting")
    assert h.tools("web") == []
    everything_http.start()
    await h.wait_connected("web", "get-sum")
    assert h.registry.current.id > old_generation
    stale = await call_in(old_catalog, "mcp__web__get-sum", {"a": 1, "b": 2})
    assert stale.is_error and "restarted since the tool `get-sum` was listed" in str(stale.content)
    fresh = await h.call("mcp__web__get-sum", {"a": 1, "b": 2})
    assert not fresh.is_error and "3" in str(fresh.content)
