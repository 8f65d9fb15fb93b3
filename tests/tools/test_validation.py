"""Runtime validation: invalid arguments and unknown tools become error results."""

from __future__ import annotations

from typing import Any

import pytest

from panelot_host.tools import (
    BoundCall,
    ModelCapabilities,
    ToolRegistry,
    ToolResult,
    new_run_catalog,
)

from .conftest import calls_of, echo_tool

CAPS = ModelCapabilities(tool_use=True, vision=True)


def _bind(registry: ToolRegistry, name: str, args: dict[str, Any]) -> BoundCall | ToolResult:
    return new_run_catalog(
        registry.current,
        CAPS,
        ["browser_click", "browser_select_option", "browser_scroll", "browser_screenshot"],
    ).bind(name, args)


@pytest.mark.parametrize(
    "name, args, expected_lines",
    [
        ("browser_click", {}, ["- $.ref: required property 'ref' is missing"]),
        ("browser_click", {"ref": 7}, ["- $.ref: 7 is not of type 'string'"]),
        ("browser_click", {"ref": "e1", "tabId": "two"}, ["- $.tabId: 'two' is not of type"]),
        (
            "browser_click",
            {"ref": "e1", "force": True},
            [
                "- $: Additional properties are not allowed ('force' was unexpected); "
                "allowed: button, ref, tabId"
            ],
        ),
        (
            "browser_select_option",
            {"ref": "e1", "values": ["a", 3]},
            ["- $.values[1]: 3 is not of type 'string'"],
        ),
        (
            "browser_select_option",
            {"values": []},
            ["- $.ref: required property 'ref' is missing", "- $.values: [] should be non-empty"],
        ),
        (
            "browser_scroll",
            {"tabId": 1},
            ["- $: give at least one of the properties ref, direction"],
        ),
        (
            "browser_scroll",
            {"direction": "sideways"},
            ["- $.direction: 'sideways' is not one of ['up', 'down', 'left', 'right']"],
        ),
        (
            "ask_user",
            {"question": "Which?", "options": ["only"]},
            ["- $.options: ['only'] is too short"],
        ),
    ],
)
def test_invalid_arguments_name_each_field_and_what_was_expected(
    registry: ToolRegistry, name: str, args: dict[str, Any], expected_lines: list[str]
) -> None:
    result = _bind(registry, name, args)
    assert isinstance(result, ToolResult)
    assert result.is_error and not result.denied and result.counts_as_failure
    assert isinstance(result.content, str)
    assert result.content.startswith(f"Invalid arguments for tool `{name}`; nothing was executed")
    for line in expected_lines:
        assert line in result.content
    assert result.details is not None
    assert len(result.details["violations"]) == len(expected_lines)


@pytest.mark.parametrize(
    "name, args, expected",
    [
        ("browser_click", {"ref": ""}, "- $.ref: '' should be non-empty"),
        ("browser_click", {"ref": "e1", "button": "top"}, "- $.button: 'top' is not one of"),
        ("browser_click_at", {"x": -1, "y": 5}, "- $.x: -1 is less than the minimum of 0"),
        ("browser_drag", {"ref": "e1"}, "- $: give at least one of the properties toRef, toX"),
        ("browser_type", {"ref": "e1"}, "- $.text: required property 'text' is missing"),
        ("browser_press_key", {"key": ""}, "- $.key: '' should be non-empty"),
        ("browser_wait_for", {}, "- $: give at least one of the properties text, textGone"),
        ("browser_wait_for", {"timeMs": 70000}, "- $.timeMs: 70000 is greater than the maximum"),
        ("browser_handle_dialog", {}, "- $.accept: required property 'accept' is missing"),
        ("browser_handle_dialog", {"accept": True, "promptText": 3}, "- $.promptText: 3 is not"),
        ("browser_tab_close", {}, "- $.tabId: required property 'tabId' is missing"),
        ("browser_tab_select", {}, "- $.tabId: required property 'tabId' is missing"),
        ("browser_read", {"offset": 1.5}, "- $.offset: 1.5 is not of type 'integer'"),
        ("browser_downloads", {"id": "x"}, "- $.id: 'x' is not of type 'integer'"),
    ],
)
def test_browser_tool_arguments_are_checked_once_by_the_host(
    registry: ToolRegistry, name: str, args: dict[str, Any], expected: str
) -> None:
    # the extension's tools check no argument the schema checks (extension-shim/README.md)
    catalog = new_run_catalog(registry.current, CAPS, [name])
    result = catalog.bind(name, args)
    assert isinstance(result, ToolResult) and isinstance(result.content, str)
    assert result.content.startswith(f"Invalid arguments for tool `{name}`; nothing was executed")
    assert expected in result.content


def test_every_missing_required_field_is_named_once() -> None:
    registry = ToolRegistry()
    registry.register(
        echo_tool(
            parameters={
                "type": "object",
                "required": ["a", "b", "c"],
                "properties": {"a": {}, "b": {}, "c": {}, "with space": {}},
            }
        )
    )
    result = new_run_catalog(registry.current, CAPS, ()).bind("echo", {"b": 1})
    assert isinstance(result, ToolResult) and result.details is not None
    assert [v["path"] for v in result.details["violations"]] == ["$.a", "$.c"]


def test_invalid_arguments_execute_nothing() -> None:
    tool = echo_tool()
    registry = ToolRegistry()
    registry.register(tool)
    result = new_run_catalog(registry.current, CAPS, ()).bind("echo", {"text": 1})
    assert isinstance(result, ToolResult) and result.is_error
    assert calls_of(tool) == []


def test_a_tool_outside_the_catalog_is_an_error_result(registry: ToolRegistry) -> None:
    catalog = new_run_catalog(registry.current, ModelCapabilities(True, False), ["browser_read"])
    for name in ("no_such_tool", "browser_click", "browser_screenshot"):
        result = catalog.bind(name, {})
        assert isinstance(result, ToolResult) and result.counts_as_failure
        assert f"Unknown tool `{name}`" in str(result.content)
        assert "Available tools: ask_user, browser_read." in str(result.content)


def test_valid_arguments_bind_a_frozen_copy_with_the_level_for_them(
    registry: ToolRegistry,
) -> None:
    args: dict[str, Any] = {"fullPage": True}
    call = _bind(registry, "browser_screenshot", args)
    assert isinstance(call, BoundCall)
    args["fullPage"] = False
    assert call.args["fullPage"] is True and call.level == "L2"
    fresh = call.arguments()
    fresh["tabId"] = 3
    assert "tabId" not in call.args
    viewport = _bind(registry, "browser_screenshot", {})
    assert isinstance(viewport, BoundCall) and viewport.level == "L1"


def test_the_unknown_tool_result_stays_short_with_many_tools() -> None:
    registry = ToolRegistry()
    registry.update(add=[echo_tool(f"tool_{i:03d}") for i in range(200)])
    result = new_run_catalog(registry.current, CAPS, ()).bind("nope", {})
    assert isinstance(result, ToolResult)
    assert "tool_039 and 160 more." in str(result.content)
    assert "tool_040" not in str(result.content)
