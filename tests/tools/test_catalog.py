"""Run catalogs: capability filters, client browser tools, recovery, image history."""

from __future__ import annotations

import pytest

from panelot_host.errors import CapabilityError, DriftError
from panelot_host.providers import anthropic_request, openai_request
from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from panelot_host.tools import (
    BROWSER_TOOL_NAMES,
    ModelCapabilities,
    ToolRegistry,
    browser_tools,
    new_run_catalog,
    recovered_run_catalog,
    reject_image_history,
)

from .conftest import echo_tool

ALL = ModelCapabilities(tool_use=True, vision=True)
BLIND = ModelCapabilities(tool_use=True, vision=False)
NO_TOOLS = ModelCapabilities(tool_use=False, vision=True)


def test_without_tool_use_new_and_recovered_runs_bind_an_empty_catalog(
    registry: ToolRegistry,
) -> None:
    full = new_run_catalog(registry.current, ALL, BROWSER_TOOL_NAMES)
    assert len(full.tools) == 1 + len(BROWSER_TOOL_NAMES)  # ask_user and the browser tools
    assert new_run_catalog(registry.current, NO_TOOLS, BROWSER_TOOL_NAMES).specs() == []
    recovered = recovered_run_catalog(registry.current, NO_TOOLS, full.digests())
    assert recovered.tools == {} and recovered.specs() == []


def test_without_vision_a_new_run_has_no_screenshot_tool(registry: ToolRegistry) -> None:
    catalog = new_run_catalog(registry.current, BLIND, BROWSER_TOOL_NAMES)
    names = [spec.name for spec in catalog.specs()]
    assert "browser_screenshot" not in names
    assert (
        len(names) == len(BROWSER_TOOL_NAMES) and "browser_read" in names
    )  # less the screenshot, plus ask_user


def test_only_browser_tools_the_client_lists_are_offered(registry: ToolRegistry) -> None:
    catalog = new_run_catalog(registry.current, ALL, ["browser_read", "browser_magic"])
    assert sorted(catalog.tools) == ["ask_user", "browser_read"]
    assert [t.name for t in browser_tools(["browser_read", "browser_magic"])] == ["browser_read"]
    assert [t.name for t in browser_tools([])] == []


def test_provider_exports_cover_exactly_the_catalog(registry: ToolRegistry) -> None:
    catalog = new_run_catalog(registry.current, ALL, ["browser_read"])
    request = ModelRequest("m", "", [UserMessage([TextPart("hi")])], tools=catalog.specs())
    anthropic = anthropic_request.build_body(request)["tools"]
    openai = openai_request.build_body(request, openai_request.OpenAIOptions())["tools"]
    assert [t["name"] for t in anthropic] == ["ask_user", "browser_read"]
    assert [t["function"]["name"] for t in openai] == ["ask_user", "browser_read"]


def test_catalog_digest_follows_the_descriptors(registry: ToolRegistry) -> None:
    a = new_run_catalog(registry.current, ALL, ["browser_read"])
    b = new_run_catalog(registry.current, ALL, ["browser_read"])
    c = new_run_catalog(registry.current, ALL, ["browser_read", "browser_click"])
    assert a.digest == b.digest != c.digest


def test_recovery_rejects_a_changed_or_missing_tool() -> None:
    registry = ToolRegistry()
    registry.register(echo_tool())
    snapshot = new_run_catalog(registry.current, ALL, ()).digests()
    assert sorted(recovered_run_catalog(registry.current, ALL, snapshot).tools) == ["echo"]
    registry.update(remove=["echo"], add=[echo_tool(description="Echo, but different.")])
    with pytest.raises(DriftError, match="changed"):
        recovered_run_catalog(registry.current, ALL, snapshot)
    registry.update(remove=["echo"])
    with pytest.raises(DriftError, match="no longer registered"):
        recovered_run_catalog(registry.current, ALL, snapshot)


IMAGE = ImagePart(media_type="image/png", data="iVBORw0KGgo=")


@pytest.mark.parametrize(
    "history",
    [
        [UserMessage([TextPart("look"), IMAGE])],
        [
            UserMessage([TextPart("shoot it")]),
            AssistantMessage([ToolCallPart("c1", "browser_screenshot", {})]),
            ToolResultMessage("c1", "browser_screenshot", [TextPart("shot"), IMAGE]),
        ],
    ],
    ids=["user image", "tool result image"],
)
def test_image_history_is_rejected_before_a_model_without_vision(history: list) -> None:  # type: ignore[type-arg]
    with pytest.raises(CapabilityError, match="no vision but the history holds an image"):
        reject_image_history(history, BLIND)
    reject_image_history(history, ALL)  # a vision model takes it


def test_text_history_passes_without_vision() -> None:
    reject_image_history([UserMessage([TextPart("hi")])], BLIND)
