"""``mcp.json`` and its store: the mcpServers format, validation paths, masking."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from panelot_host.errors import InvalidParams, NotFound
from panelot_host.tools.mcp import MASK, CredentialRef, McpConfigStore, public_view


def _paths(exc: pytest.ExceptionInfo[InvalidParams]) -> dict[str, str]:
    return {e["path"]: e["message"] for e in exc.value.errors}


def test_the_mcp_servers_format_of_other_clients_is_read(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}},
                    "docs": {"url": "https://docs.example/mcp", "headers": {"X-Team": "core"}},
                    "old": {"type": "sse", "url": "http://localhost:9000/sse", "disabled": True},
                }
            }
        )
    )
    servers = McpConfigStore(tmp_path).read()
    assert servers["files"].transport == "stdio" and servers["files"].args == ["-y", "srv"]
    assert servers["docs"].transport == "http" and servers["docs"].timeout == 120
    assert servers["old"].transport == "sse" and servers["old"].disabled


def test_a_missing_file_is_no_servers(tmp_path: Path) -> None:
    assert McpConfigStore(tmp_path).read() == {}


def test_every_violation_is_listed_with_its_path(tmp_path: Path) -> None:
    with pytest.raises(InvalidParams) as exc:
        McpConfigStore(tmp_path).write(
            {
                "a": {"url": "ftp://x", "args": ["x"]},
                "b": {"command": "x", "headers": {"H": "v"}, "disable": True},
                "c": {},
                "d": {"url": "http://remote.example/mcp"},
                "e": {"command": "x", "timeout": 0},
                "my server": {"url": "https://ok.example", "headers": {"H": {"ref": "bad ref"}}},
            }
        )
    assert _paths(exc) == {
        "$.params.mcpServers.a.args": "belongs to a command server",
        "$.params.mcpServers.a.url": "must be an http:// or https:// URL",
        "$.params.mcpServers.b.disable": "unknown field",
        "$.params.mcpServers.c": 'must have exactly one of "command", "url"',
        "$.params.mcpServers.d.url": "plain http is allowed only to localhost; use https",
        "$.params.mcpServers.e.timeout": "must be > 0",
        '$.params.mcpServers["my server"].headers.H.credentialRef': (
            "must match the pattern ^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$"
        ),
    }
    assert not (tmp_path / "mcp.json").exists()  # nothing written


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:9000/mcp", True),
        ("http://127.1.2.3:9000/mcp", True),
        ("http://[::1]:9000/mcp", True),
        ("http://[::ffff:127.0.0.1]:9000/mcp", True),
        ("http://127.attacker.test/mcp", False),
        ("http://localhost.attacker.test/mcp", False),
        ("http://127.0.0.1.nip.io/mcp", False),
    ],
)
def test_plain_http_mcp_urls_follow_the_providers_loopback_rule(
    tmp_path: Path, url: str, local: bool
) -> None:
    """One rule for both (``providers.loopback``), tested at length in tests/providers."""
    store = McpConfigStore(tmp_path)
    if local:
        store.write({"m": {"url": url}})
        assert store.read()["m"].url == url
    else:
        with pytest.raises(InvalidParams, match="plain http is allowed only to localhost"):
            store.write({"m": {"url": url}})


def test_a_credential_ref_header_is_stored_as_a_reference(tmp_path: Path) -> None:
    store = McpConfigStore(tmp_path)
    store.write(
        {"gh": {"url": "https://api.example/mcp", "headers": {"Authorization": {"ref": "gh"}}}}
    )
    assert store.read()["gh"].headers == {"Authorization": CredentialRef("gh")}
    on_disk = json.loads((tmp_path / "mcp.json").read_text())
    assert on_disk["mcpServers"]["gh"]["headers"] == {"Authorization": {"credentialRef": "gh"}}


def test_literal_secrets_are_masked_and_a_mask_keeps_the_stored_value(tmp_path: Path) -> None:
    store = McpConfigStore(tmp_path)
    store.write(
        {"s": {"command": "srv", "env": {"TOKEN": "s3cret", "REF": {"credentialRef": "k"}}}}
    )
    view = store.public()
    assert view["s"]["env"] == {"TOKEN": MASK, "REF": {"credentialRef": "k"}}
    store.write(view)  # what a client sends back unchanged
    assert store.read()["s"].env["TOKEN"] == "s3cret"
    assert "s3cret" not in json.dumps(public_view(store.read()))


def test_a_mask_without_a_stored_value_is_a_violation(tmp_path: Path) -> None:
    with pytest.raises(InvalidParams) as exc:
        McpConfigStore(tmp_path).write({"s": {"url": "https://x.example", "headers": {"H": MASK}}})
    assert list(_paths(exc)) == ["$.params.mcpServers.s.headers.H"]


def test_enable_disable_remove(tmp_path: Path) -> None:
    store = McpConfigStore(tmp_path)
    store.write({"a": {"command": "x"}, "b": {"command": "y"}})
    assert store.set_enabled("a", False).disabled
    assert store.read()["a"].disabled
    assert not store.set_enabled("a", True).disabled
    store.remove("b")
    assert list(store.read()) == ["a"]
    with pytest.raises(NotFound):
        store.remove("b")
    with pytest.raises(NotFound):
        store.set_enabled("zzz", True)


def test_writes_keep_other_keys_and_are_private(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"inputs": [1], "mcpServers": {}}))
    McpConfigStore(tmp_path).write({"a": {"command": "x"}})
    document: dict[str, Any] = json.loads(path.read_text())
    assert document["inputs"] == [1] and list(document["mcpServers"]) == ["a"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_broken_file_is_reported_under_its_own_root(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"a": {"command": 1}}}')
    with pytest.raises(InvalidParams) as exc:
        McpConfigStore(tmp_path).read()
    assert list(_paths(exc)) == ["$.mcpServers.a.command"]
    (tmp_path / "mcp.json").write_text("{not json")
    with pytest.raises(InvalidParams) as exc:
        McpConfigStore(tmp_path).read()
    assert list(_paths(exc)) == ["$"]
