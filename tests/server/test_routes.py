"""Every op of the protocol has exactly one handler, and nothing else does (checked when
``routes`` is imported); what receipts digest."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from panelot_host.credentials.secret import fingerprint
from panelot_host.protocol.ops import ThreadCreateParams, ThreadRenameParams, ThreadResult
from panelot_host.protocol.ops.config import (
    CredentialRef,
    CredentialsDeleteParams,
    CredentialsSetParams,
)
from panelot_host.protocol.registry import OPS
from panelot_host.server.host import Host, OpenProfile
from panelot_host.server.routes import ROUTES, bind, on

CANARY = "sk-canary-7d1e5a9c3b"


def test_every_op_and_only_the_ops_have_a_route() -> None:
    assert list(ROUTES) == list(OPS)
    assert all(route.spec is OPS[method] for method, route in ROUTES.items())


def _handler(session: Any, params: Any, receipt: Any) -> None:
    return None


def test_an_op_without_a_handler_fails_at_import() -> None:
    others = [
        on(spec.params, _handler) for method, spec in OPS.items() if method != "thread.rename"
    ]
    with pytest.raises(LookupError, match=r"without a handler: thread\.rename"):
        bind(OPS, *others)


def test_a_second_handler_or_an_undeclared_params_fails_at_import() -> None:
    every = [on(spec.params, _handler) for spec in OPS.values()]
    assert list(bind(OPS, *every)) == list(OPS)
    with pytest.raises(LookupError, match="two handlers"):
        bind(OPS, *every, on(ThreadRenameParams, _handler))
    with pytest.raises(LookupError, match="params of no op"):
        bind(OPS, *every, on(CredentialRef, _handler))


def test_credential_receipts_digest_the_secret_only_as_its_fingerprint() -> None:
    """Not even a hash of the whole secret may reach the database (routes._without_secret)."""
    digested = {method for method, route in ROUTES.items() if route.digest is not None}
    assert digested == {"credentials.set", "credentials.delete"}
    for method, params in (
        ("credentials.set", CredentialsSetParams(command_id="k1", ref="main", secret=CANARY)),
        ("credentials.delete", CredentialsDeleteParams(command_id="k2", ref="main", secret=CANARY)),
    ):
        assert OPS[method].command
        digest = ROUTES[method].digest
        assert digest is not None
        assert digest(params) == {
            "ref": "main",
            "commandId": params.command_id,
            "secret": fingerprint(CANARY),
        }


class _Session:
    """The part of a connection ``thread.create`` uses."""

    def __init__(self, host: Host, profile: OpenProfile) -> None:
        self.host = host
        self.profile = profile
        self.subscribed: list[str] = []

    def subscribe(self, thread_id: str) -> None:
        self.subscribed.append(thread_id)


@pytest.mark.anyio
async def test_a_command_answers_the_bytes_stored_with_its_receipt_and_replays_them(
    host: Host,
) -> None:
    """Encoded once: the response is the receipt's stored bytes, the same on a replay,
    and the new thread's id comes from the engine's result struct (no JSON decoded)."""
    session = _Session(host, await host.open_profile(None))
    params = ThreadCreateParams(command_id="c-once", title="Kyoto")
    first = await ROUTES["thread.create"].call(session, params)  # type: ignore[arg-type]
    again = await ROUTES["thread.create"].call(session, params)  # type: ignore[arg-type]
    (stored,) = session.profile.db.conn.execute(
        "SELECT response FROM command_receipt WHERE command_id = 'c-once'"
    ).fetchone()
    assert isinstance(first, msgspec.Raw) and isinstance(again, msgspec.Raw)
    assert bytes(first) == bytes(again) == bytes(stored)
    created = msgspec.json.decode(bytes(first), type=ThreadResult)
    assert session.subscribed == [created.thread.id]  # subscribed once, by the first
    assert created.thread.title == "Kyoto"
