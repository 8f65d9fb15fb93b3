"""Every op of the protocol has exactly one handler, and nothing else does (checked when
``routes`` is imported); what receipts digest."""

from __future__ import annotations

from typing import Any

import pytest

from panelot_host.credentials.secret import fingerprint
from panelot_host.protocol.ops.config import CredentialsDeleteParams, CredentialsSetParams
from panelot_host.protocol.registry import OPS
from panelot_host.server.routes import ROUTES, RouteTable

CANARY = "sk-canary-7d1e5a9c3b"


def test_every_op_and_only_the_ops_have_a_route() -> None:
    assert list(ROUTES) == list(OPS)
    assert all(route.spec is OPS[method] for method, route in ROUTES.items())


async def _handler(session: Any, params: Any, cmd: Any) -> None:
    return None


def test_an_op_without_a_handler_fails_at_import() -> None:
    table = RouteTable(OPS)
    for method in OPS:
        if method != "thread.rename":
            table.handles(method)(_handler)
    with pytest.raises(LookupError, match=r"without a handler: thread\.rename"):
        table.complete()


def test_a_second_handler_or_an_undeclared_method_fails_at_import() -> None:
    table = RouteTable(OPS)
    table.handles("thread.rename")(_handler)
    with pytest.raises(LookupError, match="two handlers"):
        table.handles("thread.rename")(_handler)
    with pytest.raises(LookupError, match="not an op"):
        table.handles("thread.renamed")


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
