"""Invalid params: every violation listed with its path; unknown fields rejected;
messages never echo values."""

from __future__ import annotations

import msgspec
import pytest

from panelot_host.errors import InvalidParams, InvalidResult, MethodNotFound
from panelot_host.protocol import OPS, decode_params, decode_result, encode

from . import samples


def _errors(method: str, params: bytes) -> list[dict[str, str]]:
    with pytest.raises(InvalidParams) as info:
        decode_params(method, params)
    return info.value.errors


@pytest.mark.parametrize("method", sorted(OPS))
def test_unknown_fields_are_rejected(method: str) -> None:
    params = msgspec.json.decode(encode(samples.PARAMS[method]))
    params["bogusField"] = 1
    assert _errors(method, msgspec.json.encode(params)) == [
        {"path": "$.params.bogusField", "message": "unknown field"}
    ]


def test_unknown_nested_field_is_rejected_at_its_path() -> None:
    params = b'{"protocolVersion":1,"client":{"name":"p","version":"1","extra":true}}'
    assert _errors("initialize", params) == [
        {"path": "$.params.client.extra", "message": "unknown field"}
    ]


def test_two_bad_fields_give_two_errors() -> None:
    params = b'{"commandId":"c","threadId":7,"text":"x","tokenBudget":0}'
    assert _errors("turn.submit", params) == [
        {"path": "$.params.threadId", "message": "expected string, got integer"},
        {"path": "$.params.tokenBudget", "message": "must be > 0"},
    ]


def test_every_missing_required_field_is_listed() -> None:
    assert _errors("thread.rename", b"{}") == [
        {"path": "$.params.commandId", "message": "required field missing"},
        {"path": "$.params.threadId", "message": "required field missing"},
        {"path": "$.params.title", "message": "required field missing"},
    ]


def test_nested_and_enum_violations_have_precise_paths() -> None:
    params = (
        b'{"commandId":"","threadId":"t","text":"x",'
        b'"attachments":[{"type":"image","mediaType":"image/png","data":"A"},'
        b'{"type":"image","mediaType":"image/bmp","data":5}]}'
    )
    assert _errors("turn.submit", params) == [
        {"path": "$.params.attachments[1].data", "message": "expected string, got integer"},
        {
            "path": "$.params.attachments[1].mediaType",
            "message": 'must be one of "image/gif", "image/jpeg", "image/png", "image/webp"',
        },
        {"path": "$.params.commandId", "message": "must be at least 1 characters long"},
    ]


def test_literal_values_and_limits_are_enforced() -> None:
    bad = b'{"commandId":"c","requestId":"r","decision":"maybe","scope":"forever"}'
    assert [e["path"] for e in _errors("approval.response", bad)] == [
        "$.params.decision",
        "$.params.scope",
    ]
    assert _errors("thread.list", b'{"limit":201}') == [
        {"path": "$.params.limit", "message": "must be <= 200"}
    ]
    outcome = b'{"commandId":"c","toolCallId":"x","outcome":"maybe"}'
    assert _errors("recovery.resolve", outcome)[0]["path"] == "$.params.outcome"


def test_nullable_field_reports_the_alternatives() -> None:
    assert _errors("thread.fork", b'{"commandId":"c","threadId":"t","atItemId":3}') == [
        {"path": "$.params.atItemId", "message": "expected string or null, got integer"}
    ]


def test_mcp_servers_are_typed_by_shape() -> None:
    params = (
        b'{"commandId":"c","mcpServers":{"both":{"command":"x","url":"https://u"},'
        b'"none":{},"odd key":{"url":"ftp://x"}}}'
    )
    assert _errors("settings.update", params) == [
        {
            "path": "$.params.mcpServers.both",
            "message": 'must have exactly one of "command", "url"',
        },
        {
            "path": "$.params.mcpServers.none",
            "message": 'must have exactly one of "command", "url"',
        },
        {
            "path": '$.params.mcpServers["odd key"].url',
            "message": "must match the pattern ^https?://",
        },
    ]


def test_profile_id_cannot_escape_the_profiles_directory() -> None:
    params = b'{"protocolVersion":1,"client":{"name":"p","version":"1","profileId":"../x"}}'
    assert _errors("initialize", params)[0]["path"] == "$.params.client.profileId"


def test_cross_field_rule_falls_back_to_msgspec_error() -> None:
    errors = _errors("turn.submit", b'{"commandId":"c","threadId":"t","text":""}')
    assert errors == [
        {"path": "$.params", "message": "text must not be empty when there are no attachments"}
    ]


def test_secret_is_never_echoed() -> None:
    secret = "sk-" + "S" * 70_000
    params = msgspec.json.encode({"commandId": "c", "ref": "openai", "secret": secret})
    with pytest.raises(InvalidParams) as info:
        decode_params("credentials.set", params)
    assert "SSSS" not in str(info.value.errors) + info.value.message
    assert "sk-x" not in repr(samples.PARAMS["credentials.set"])


def test_unknown_method_is_method_not_found_with_the_request_id() -> None:
    with pytest.raises(MethodNotFound) as info:
        decode_params("thread.explode", b"{}", request_id=9)
    assert (info.value.code, info.value.request_id, info.value.method) == (
        -32601,
        9,
        "thread.explode",
    )


def test_invalid_shim_result_is_invalid_result() -> None:
    with pytest.raises(InvalidResult) as info:
        decode_result("browser.resolveTarget", b'{"tabId":"x","url":"u"}')
    assert [e["path"] for e in info.value.errors] == [
        "$.result.origin",
        "$.result.tabId",
    ]
