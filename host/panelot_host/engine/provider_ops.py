"""The provider ops (``provider.status``, ``provider.discover``, ``provider.test``): the
engine's side of ``providers.probe``, with this profile's settings, its stored keys and the
origin each key was entered for, resolved exactly as a turn resolves them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import httpx

from panelot_host.credentials.secret import Secret
from panelot_host.engine.context import EngineContext
from panelot_host.protocol.ops import provider as ops
from panelot_host.providers import probe
from panelot_host.store import settings as settings_store

SecretOf = Callable[[str], Secret | None]


class _VaultSecrets:
    """The stored keys, read through the engine's credential vault."""

    def __init__(self, secret_of: SecretOf) -> None:
        self._secret_of = secret_of

    def get(self, ref: str) -> Secret | None:
        return self._secret_of(ref)


class ProviderService:
    def __init__(
        self, ctx: EngineContext, environ: Mapping[str, str], secret_of: SecretOf | None
    ) -> None:
        self.ctx = ctx
        self._environ = environ
        self._secrets = _VaultSecrets(secret_of) if secret_of is not None else None

    def _readiness(self) -> probe.Readiness:
        conn = self.ctx.db.conn
        return probe.readiness(
            self._environ,
            settings_store.all_settings(conn),
            self._secrets,
            lambda ref: settings_store.credential_origin(conn, ref),
        )

    def status(self) -> ops.ProviderStatusResult:
        ready = self._readiness()
        config = ready.config
        return ops.ProviderStatusResult(
            ready=ready.ready,
            provider=config.provider if config else None,
            model=config.model if config else None,
            base_url=config.base_url if config else None,
            source=ready.source,
            reason=ready.reason,
        )

    async def discover(self) -> ops.ProviderDiscoverResult:
        async with httpx.AsyncClient(timeout=probe.DISCOVER_TIMEOUT_S) as client:
            found = await probe.discover_local(probe.local_ports(self._environ), client)
        return ops.ProviderDiscoverResult(
            servers=[
                ops.LocalModelServer(
                    base_url=s.base_url, port=s.port, name=s.name, models=list(s.models)
                )
                for s in found
            ]
        )

    async def test(self) -> ops.ProviderTestResult:
        async with httpx.AsyncClient(timeout=probe.CHECK_TIMEOUT_S) as client:
            checked = await probe.check_ready(self._readiness(), client)
        return ops.ProviderTestResult(
            ok=checked.ok,
            provider=checked.provider,
            model=checked.model,
            url=checked.url,
            latency_ms=checked.latency_ms,
            cause=checked.cause,
            message=checked.message,
            detail=checked.detail,
            models=list(checked.models),
        )
