"""Settings, credentials and permissions: configuration commands with receipts.

Settings never hold a secret: API keys live in the credential store (OS keyring or an
encrypted file) and settings refer to them by ``ref``; only the reference and a
fingerprint are ever stored in the database or sent to a client.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from panelot_host.credentials.secret import Secret
from panelot_host.engine.authority import credential_widening, widening
from panelot_host.engine.commands import Receipt, command_unit
from panelot_host.engine.context import EngineContext
from panelot_host.engine.frames import BUDGET_SETTING, budget_bytes, capture_frames, frame_budget_mb
from panelot_host.engine.policy import grant_from_record
from panelot_host.engine.slots import max_parallel_turns
from panelot_host.engine.thread_tabs import acts_on_unowned_tabs
from panelot_host.engine.views import iso
from panelot_host.errors import InvalidParams, ProviderConfigError
from panelot_host.gatekeeper.grants import export_grant_ledger
from panelot_host.gatekeeper.models import PolicyRule
from panelot_host.protocol import entities
from panelot_host.protocol.ops import config as ops
from panelot_host.providers.config import load_provider_config
from panelot_host.providers.endpoints import origin_of, plain_http_problem
from panelot_host.providers.registry import WIRE_PROVIDERS
from panelot_host.store import frames as frame_store
from panelot_host.store import grants as grant_store
from panelot_host.store import settings as settings_store
from panelot_host.store.records import GrantRecord

log = logging.getLogger(__name__)


class CredentialVault(msgspec.Struct, frozen=True):
    """How the engine reaches secrets (``CredentialStore`` or a test double of it)."""

    set: Callable[[str, str], str]
    delete: Callable[[str], bool]
    fingerprint_of: Callable[[str], str | None]
    backend_name: Callable[[], str]
    secret_of: Callable[[str], Secret | None] | None = None  # the key itself, to send it


class McpSettings(msgspec.Struct, frozen=True):
    """The MCP side of settings: ``mcp.json`` (masked view, validated write) and status;
    ``compared``: the map with literal secrets as digests (``engine.authority`` tells a
    changed value from an unchanged one with it, and shows neither)."""

    public: Callable[[], dict[str, Any]]
    write: Callable[[dict[str, Any]], object]
    status: Callable[[], list[dict[str, Any]]]
    compared: Callable[[], dict[str, Any]]


class ConfigService:
    def __init__(
        self,
        ctx: EngineContext,
        environ: Mapping[str, str],
        vault: CredentialVault | None,
        mcp: McpSettings | None = None,
    ) -> None:
        self.ctx = ctx
        self._environ = environ
        self._vault = vault
        self.mcp = mcp  # mcpServers live in PANELOT_HOME/mcp.json, not in the database

    # ------------------------------------------------------------ settings

    def get(self) -> ops.SettingsResult:
        return ops.SettingsResult(settings=self._effective())

    def update(
        self,
        cmd: Receipt,
        changes: Mapping[str, Any],
        mcp_servers: dict[str, Any] | None = None,
    ) -> ops.SettingsResult:
        """Store ``changes`` (stored key, camelCase as in ``Settings`` -> plain value; None
        resets to the environment's default) and, unless None, replace ``mcp.json``'s
        servers with ``mcp_servers``. Returns the settings in effect after. A new
        ``frameBudgetMb`` applies at once: the oldest frames past it are removed."""
        rules = changes.get("policyRules")
        if rules is not None:
            _check_rules(rules)
        if changes.get("baseUrl"):
            _check_base_url(changes["baseUrl"])
        before = self._authority_view()
        with command_unit(self.ctx.db, cmd) as unit:
            settings_store.put_settings(unit.conn, dict(changes))
            if BUDGET_SETTING in changes:
                stored = settings_store.all_settings(unit.conn)
                frame_store.trim_to(unit.conn, budget_bytes(stored))
            if mcp_servers is not None and self.mcp is not None:
                self.mcp.write(mcp_servers)  # rolls back if refused
            result = unit.respond(ops.SettingsResult(settings=self._effective(unit.conn)))
        self.ctx.policy.settings_changed()
        self.ctx.slots.resize(max_parallel_turns(self.ctx.policy.settings()))  # at once
        self.ctx.publish.authority_widened(cmd.command_id, widening(before, self._authority_view()))
        return result

    def _authority_view(self) -> dict[str, Any]:
        """What ``engine.authority.widening`` compares: the stored settings, where model
        requests go, and the MCP servers (literal secrets as digests)."""
        view = dict(settings_store.all_settings(self.ctx.db.conn))
        view["destination"] = self._provider_origin(view)
        view["mcpServers"] = self.mcp.compared() if self.mcp is not None else {}
        return view

    def _effective(self, conn: Any = None) -> ops.Settings:
        stored = settings_store.all_settings(conn or self.ctx.db.conn)
        provider, model, task_model = _provider_view(self._environ, stored)
        capabilities = stored.get("modelCapabilities")
        return ops.Settings(
            provider=provider,
            model=model,
            model_capabilities=msgspec.convert(capabilities, ops.ModelCapabilities)
            if capabilities
            else None,
            task_model=task_model,
            default_token_budget=stored.get("defaultTokenBudget"),
            default_cost_budget_usd=stored.get("defaultCostBudgetUsd"),
            share_active_tab=bool(stored.get("shareActiveTab") or False),
            act_on_unowned_tabs=acts_on_unowned_tabs(self.ctx, stored),
            max_parallel_turns=max_parallel_turns(stored),
            capture_frames=capture_frames(stored),
            frame_budget_mb=frame_budget_mb(stored),
            policy_rules=list(stored.get("policyRules", [])),
            mcp_servers=self._mcp_servers(),
            base_url=stored.get("baseUrl") or None,
            api_key_ref=stored.get("apiKeyRef") or None,
            mcp_status=self.mcp.status() if self.mcp is not None else [],
            model_limits=msgspec.convert(
                stored.get("modelLimits") or {}, dict[str, ops.ModelLimit]
            ),
            model_options=msgspec.convert(
                stored.get("modelOptions") or {}, dict[str, ops.ModelOptions]
            ),
        )

    def _mcp_servers(self) -> dict[str, ops.McpServer]:
        if self.mcp is None:
            return {}
        return msgspec.convert(self.mcp.public(), dict[str, ops.McpServer])

    # ------------------------------------------------------------ credentials

    def set_credential(
        self, cmd: Receipt, ref: str, secret: str, origin: str | None = None
    ) -> ops.CredentialsSetResult:
        """Store ``secret`` under ``ref`` for ``origin`` (default: the configured provider's)."""
        vault = self._require_vault()
        origin = origin_of(origin) if origin else self._provider_origin()
        with command_unit(self.ctx.db, cmd) as unit:
            fingerprint = vault.set(ref, secret)
            settings_store.put_credential(
                unit.conn,
                ref=ref,
                provider=origin,
                backend=vault.backend_name(),
                fingerprint=fingerprint,
            )
            result = unit.respond(ops.CredentialsSetResult(ref=ref, fingerprint=fingerprint))
        self.ctx.publish.authority_widened(cmd.command_id, credential_widening(ref, origin))
        return result

    def _provider_origin(self, stored: Mapping[str, Any] | None = None) -> str | None:
        """Where the configured provider (with ``stored`` settings, default: the database's)
        sends requests, or None when none is configured or nothing leaves the process."""
        if stored is None:
            stored = settings_store.all_settings(self.ctx.db.conn)
        try:
            config = load_provider_config(self._environ, stored)
        except ProviderConfigError:
            return None
        return config.destination if config.spec.sends_requests else None

    def delete_credential(self, cmd: Receipt, ref: str) -> ops.CredentialsDeleteResult:
        vault = self._require_vault()
        with command_unit(self.ctx.db, cmd) as unit:
            known = settings_store.get_credential(unit.conn, ref)
            fingerprint = vault.fingerprint_of(ref) or (known.fingerprint if known else None)
            vault.delete(ref)
            settings_store.delete_credential(unit.conn, ref)
            result = unit.respond(ops.CredentialsDeleteResult(ref=ref, fingerprint=fingerprint))
        return result

    def _require_vault(self) -> CredentialVault:
        if self._vault is None:
            raise ProviderConfigError("no credential store is available on this machine")
        return self._vault

    # ------------------------------------------------------------ permissions

    def list_grants(
        self, thread_id: str | None = None, origin: str | None = None
    ) -> ops.GrantsResult:
        """The active grants the user manages, only those for ``thread_id`` / ``origin``
        (and the ones for every thread / origin) when given."""
        records = grant_store.active(self.ctx.db.conn)
        return ops.GrantsResult(grants=_grant_views(records, thread_id, origin))

    def revoke(self, cmd: Receipt, grant_id: str) -> ops.GrantsResult:
        with command_unit(self.ctx.db, cmd) as unit:
            grant_store.revoke(unit.conn, grant_id)
            records = grant_store.active(unit.conn)
            result = unit.respond(ops.GrantsResult(grants=_grant_views(records, None, None)))
        self.ctx.policy.grants_changed()
        return result

    def export_ledger(self) -> bytes:
        """Every grant ever given, revoked ones included, with provenance, as JSON."""
        records = grant_store.everything(self.ctx.db.conn)
        return export_grant_ledger(grant_from_record(r) for r in records)


def _grant_views(
    records: list[GrantRecord], thread_id: str | None, origin: str | None
) -> list[entities.Grant]:
    views = []
    for record in records:
        if record.provenance.get("kind", "tool") != "tool":
            continue  # l2_attach bookkeeping is not a permission the user manages
        if thread_id is not None and record.thread_id not in (None, thread_id):
            continue
        if origin is not None and record.origin not in (None, origin):
            continue
        views.append(
            entities.Grant(
                id=record.id,
                scope=record.scope,
                tool=record.tool,
                decision=record.decision,
                created_at=iso(record.created_at),
                origin=record.origin,
                thread_id=record.thread_id,
            )
        )
    return views


def _check_rules(rules: list[Any]) -> None:
    errors = []
    for index, rule in enumerate(rules):
        try:
            msgspec.convert(rule, PolicyRule)
        except msgspec.ValidationError as exc:
            errors.append({"path": f"$.params.policyRules[{index}]", "message": str(exc)})
    if errors:
        raise InvalidParams("invalid policy rules", errors)


def _check_base_url(url: str) -> None:
    problem = plain_http_problem(url)
    if problem is not None:
        raise InvalidParams("invalid baseUrl", [{"path": "$.params.baseUrl", "message": problem}])


def _provider_view(
    environ: Mapping[str, str], stored: Mapping[str, Any]
) -> tuple[Any, str | None, str | None]:
    try:
        config = load_provider_config(environ, stored)
    except ProviderConfigError:
        return stored.get("provider"), stored.get("model"), stored.get("taskModel")
    provider = config.provider if config.provider in WIRE_PROVIDERS else None
    return provider, config.model, config.task_model
