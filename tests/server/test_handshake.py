"""``initialize`` negotiates: the session speaks the newest version both sides speak, and
a refusal says which side is older and how to update it (docs/protocol.md, initialize)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import panelot_host
from panelot_host.errors import InvalidParams, UnsupportedProtocolVersion
from panelot_host.protocol import ops
from panelot_host.protocol.common import HOST_PROTOCOL_VERSIONS, ProtocolVersions
from panelot_host.server import handshake
from panelot_host.server.errors import to_rpc_error
from panelot_host.upgrade_route import upgrade_command

HOST_2_TO_4 = ProtocolVersions(oldest=2, newest=4)


def _params(newest: int, oldest: int | None = None) -> ops.InitializeParams:
    raw: dict[str, Any] = {"protocolVersion": newest, "client": {"name": "t", "version": "1"}}
    if oldest is not None:
        raw["minProtocolVersion"] = oldest
    return msgspec.convert(raw, ops.InitializeParams)


def test_the_host_speaks_version_one_today() -> None:
    assert ProtocolVersions(oldest=1, newest=1) == HOST_PROTOCOL_VERSIONS
    assert handshake.negotiate(_params(1)) == 1


@pytest.mark.parametrize(
    ("newest", "oldest", "agreed"),
    [(4, None, 4), (3, None, 3), (2, 1, 2), (6, 1, 4), (5, 3, 4), (9, 4, 4), (3, 1, 3)],
)
def test_overlapping_ranges_agree_on_the_newest_version_both_speak(
    newest: int, oldest: int | None, agreed: int
) -> None:
    assert handshake.negotiate(_params(newest, oldest), HOST_2_TO_4) == agreed


def test_a_newer_client_range_beyond_the_host_asks_to_update_the_host() -> None:
    with pytest.raises(UnsupportedProtocolVersion) as refused:
        handshake.negotiate(_params(7, 5), HOST_2_TO_4)
    assert refused.value.update == "host"
    assert (refused.value.oldest, refused.value.newest) == (2, 4)
    assert refused.value.host_update_command == upgrade_command()
    assert refused.value.message.startswith("unsupported protocol version: ")
    assert refused.value.message.endswith(f"update the host: {upgrade_command()}")


def test_an_older_client_asks_to_update_the_extension() -> None:
    with pytest.raises(UnsupportedProtocolVersion) as refused:
        handshake.negotiate(_params(1), HOST_2_TO_4)
    assert refused.value.update == "extension"
    assert refused.value.errors == [
        {"path": "$.params.protocolVersion", "message": "this host speaks protocol versions 2 to 4"}
    ]


def test_a_range_upside_down_is_invalid_params_at_its_field() -> None:
    with pytest.raises(InvalidParams) as refused:
        handshake.negotiate(_params(1, 2))
    assert not isinstance(refused.value, UnsupportedProtocolVersion)
    assert refused.value.errors[0]["path"] == "$.params.minProtocolVersion"


def test_the_refusal_keeps_the_old_error_and_adds_what_to_update() -> None:
    """Clients that parse the error of hosts before negotiation still understand it."""
    with pytest.raises(UnsupportedProtocolVersion) as refused:
        handshake.negotiate(_params(2))
    error = to_rpc_error(refused.value)
    assert error.code == -32602
    assert error.data == {
        "kind": "invalid_params",
        "errors": [
            {"path": "$.params.protocolVersion", "message": "this host speaks protocol version 1"}
        ],
        "protocolVersions": {"oldest": 1, "newest": 1},
        "hostVersion": panelot_host.__version__,
        "update": "host",
        "hostUpdateCommand": upgrade_command(),
    }


def test_the_answer_says_the_agreed_version_and_the_host_range() -> None:
    result = handshake.initialize_result(1, ("browser_click",))
    wire = msgspec.json.decode(msgspec.json.encode(result))
    assert wire["protocolVersion"] == 1
    assert wire["protocolVersions"] == {"oldest": 1, "newest": 1}
    assert wire["engine"] == {"name": "panelot-host", "version": panelot_host.__version__}


def test_a_range_of_one_version_is_sent_without_its_oldest() -> None:
    """Hosts before negotiation refuse ``minProtocolVersion`` as an unknown field."""
    assert ops.version_params() == {"protocolVersion": 1}
    assert ops.version_params(HOST_2_TO_4) == {"protocolVersion": 4, "minProtocolVersion": 2}
