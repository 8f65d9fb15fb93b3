"""Every op of the protocol has a handler, and nothing else does; what receipts digest."""

from __future__ import annotations

from panelot_host.credentials.secret import fingerprint
from panelot_host.protocol.ops.config import CredentialsDeleteParams, CredentialsSetParams
from panelot_host.protocol.registry import OPS
from panelot_host.server.routes import ROUTES

CANARY = "sk-canary-7d1e5a9c3b"


def test_every_op_and_only_the_ops_have_a_route() -> None:
    assert set(ROUTES) == set(OPS)


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
