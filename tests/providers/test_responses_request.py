"""The Responses API request body: items, reasoning carried within the turn, options."""

from __future__ import annotations

import pytest

from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderConfigError
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.config import build_provider_with_key, load_provider_config
from panelot_host.providers.registry import openai_api
from panelot_host.providers.responses_request import ResponsesOptions, build_body
from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    ModelRequest,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

RS_OLD = ThinkingPart("earlier plan", item_id="rs_old", encrypted_content="gAAA-old")
RS_NEW = ThinkingPart("read the page", item_id="rs_new", encrypted_content="gAAA-new")
ANTHROPIC_THINKING = ThinkingPart("claude thought", signature="sig")
TOOL = ToolSpec("read_page", "Read the page.", {"type": "object", "properties": {}})


def _two_turns() -> list:
    return [
        UserMessage([TextPart("first")]),
        AssistantMessage([RS_OLD, TextPart("done")]),
        UserMessage([TextPart("second"), ImagePart("image/png", "AAAA")]),
        AssistantMessage([RS_NEW, ANTHROPIC_THINKING, ToolCallPart("call_1", "read_page", {})]),
        ToolResultMessage("call_1", "read_page", [TextPart("page text")]),
    ]


def test_reasoning_items_of_this_turn_go_back_before_their_call() -> None:
    request = ModelRequest(model="gpt-5", system="Be brief.", messages=_two_turns(), tools=[TOOL])
    body = build_body(request, ResponsesOptions(reasoning=True))
    items = body["input"]
    assert [i.get("type") or i["role"] for i in items] == [
        "user",
        "assistant",  # the first turn's reasoning item is not sent again
        "user",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert items[3] == {
        "type": "reasoning",
        "id": "rs_new",
        "summary": [{"type": "summary_text", "text": "read the page"}],
        "encrypted_content": "gAAA-new",
    }
    assert items[4] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read_page",
        "arguments": "{}",
    }
    assert items[5] == {"type": "function_call_output", "call_id": "call_1", "output": "page text"}
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    assert items[2]["content"][1] == image
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["store"] is False and body["instructions"] == "Be brief."
    assert body["tools"][0]["name"] == "read_page" and body["tools"][0]["type"] == "function"


def test_effort_is_sent_and_temperature_is_not_for_reasoning_models() -> None:
    request = ModelRequest(
        model="o3", system="", messages=_two_turns()[:1], temperature=0.2, reasoning_effort="high"
    )
    body = build_body(request, ResponsesOptions(reasoning=True))
    assert body["reasoning"] == {"summary": "auto", "effort": "high"}
    assert "temperature" not in body and "instructions" not in body


def test_a_model_that_does_not_reason_gets_no_reasoning_fields() -> None:
    request = ModelRequest(model="gpt-4.1", system="", messages=_two_turns(), temperature=0.2)
    body = build_body(request, ResponsesOptions(reasoning=False))
    assert body["temperature"] == 0.2
    assert "reasoning" not in body and "include" not in body


def test_without_tool_use_calls_and_results_are_text() -> None:
    request = ModelRequest(model="m", system="", messages=_two_turns(), tools=[TOOL])
    body = build_body(request, ResponsesOptions(tool_use=False, reasoning=True))
    assert "tools" not in body
    assert [i["type"] for i in body["input"] if "type" in i] == ["reasoning"]
    assert "[called tool read_page with {}]" in body["input"][4]["content"]


def test_responses_is_the_default_for_openai_reasoning_models_only() -> None:
    official = "https://api.openai.com/v1"
    assert openai_api(ModelInfo("gpt-5", reasoning=True), official) == "responses"
    assert openai_api(ModelInfo("gpt-4.1"), official) == "chat"
    assert openai_api(ModelInfo("gpt-5", reasoning=True), "http://127.0.0.1:8000/v1") == "chat"


def test_the_api_setting_overrides_the_default_per_model() -> None:
    env = {"OPENAI_API_KEY": "sk-test-abcdef0123456789"}
    for model, options, expected in [
        ("gpt-5", {}, "ResponsesProvider"),
        ("gpt-4.1", {}, "OpenAIProvider"),
        ("gpt-5", {"gpt-5": {"api": "chat"}}, "OpenAIProvider"),
        ("gpt-4.1", {"gpt-4.1": {"api": "responses"}}, "ResponsesProvider"),
    ]:
        settings = {"model": model, "modelOptions": options}
        config = load_provider_config(env, settings)
        provider = build_provider_with_key(config, Secret("sk-test-abcdef0123456789"))
        assert type(provider).__name__ == expected, (model, options)


def test_a_compatible_server_gets_responses_only_when_asked() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "PANELOT_MODEL": "gpt-oss-20b"}
    config = load_provider_config(env, {})
    assert type(build_provider_with_key(config, None)).__name__ == "OpenAIProvider"
    asked = load_provider_config(env, {"modelOptions": {"gpt-oss-20b": {"api": "responses"}}})
    assert type(build_provider_with_key(asked, None)).__name__ == "ResponsesProvider"


def test_an_unknown_api_is_a_configuration_error() -> None:
    with pytest.raises(ProviderConfigError, match=r"modelOptions.m.api"):
        settings = {"model": "m", "modelOptions": {"m": {"api": "x"}}}
        load_provider_config({"OPENAI_API_KEY": "k"}, settings)


def test_a_reasoning_item_that_nothing_followed_is_not_sent() -> None:
    cut_short = [UserMessage([TextPart("go")]), AssistantMessage([RS_NEW])]
    request = ModelRequest(model="gpt-5", system="", messages=cut_short)
    items = build_body(request, ResponsesOptions(reasoning=True))["input"]
    assert [i.get("type") or i["role"] for i in items] == ["user"]


def test_steering_keeps_the_turns_reasoning_going_back() -> None:
    """A message the user adds to a running Turn does not end it: the reasoning before it
    still goes back (only a new Turn's message starts afresh)."""
    rs_3 = ThinkingPart("switch tabs", item_id="rs_3", encrypted_content="g3")
    messages = [
        *_two_turns(),
        UserMessage([TextPart("use the second tab")], steering=True),
        AssistantMessage([rs_3, ToolCallPart("call_2", "read_page", {})]),
        ToolResultMessage("call_2", "read_page", [TextPart("second tab")]),
    ]

    def reasoning_sent(conversation: list) -> list[str]:
        request = ModelRequest(model="gpt-5", system="", messages=conversation, tools=[TOOL])
        body = build_body(request, ResponsesOptions(reasoning=True))
        return [i["id"] for i in body["input"] if i.get("type") == "reasoning"]

    assert reasoning_sent(messages) == ["rs_new", "rs_3"]
    assert reasoning_sent([*messages, UserMessage([TextPart("a new question")])]) == []
