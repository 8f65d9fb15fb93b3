"""``doctor``'s checks of the data: databases, folder permissions, credentials, provider.

Each check returns ``Finding``s (``install.diagnose``): one line per problem with its fix.
The provider check sends one cheap request (the model list) and never shows the key: only
its fingerprint. The key goes only where a turn would send it: a base URL moved off the
origin a key was entered for gets no request at all, and a finding saying so.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import httpx

from panelot_host.credentials.store import CredentialStore
from panelot_host.errors import KeyOriginError, ProviderConfigError
from panelot_host.install.diagnose import Finding
from panelot_host.providers.config import load_provider_config, resolve_api_key
from panelot_host.providers.probe import check_connection
from panelot_host.store.inspect import inspect_database, profile_databases
from panelot_host.store.profiles import DEFAULT_PROFILE

PROVIDER_TIMEOUT_S = 10.0


def check_databases(home: Path) -> list[Finding]:
    databases = profile_databases(home)
    if not databases:
        return [Finding("database", "ok", f"no profile database yet under {home / 'profiles'}")]
    findings = []
    for path in databases:
        health = inspect_database(path)
        if health.problems:
            findings.append(
                Finding(
                    "database",
                    "problem",
                    f"{path} fails its integrity check: {'; '.join(health.problems[:3])}",
                    f"close the browser, keep a copy of {path.parent}, then run "
                    f"sqlite3 {path} '.recover' | sqlite3 {path.with_suffix('.recovered.db')} "
                    "and move the recovered file in its place",
                )
            )
        else:
            findings.append(Finding("database", "ok", f"{path}: integrity ok"))
    return findings


def check_permissions(home: Path) -> list[Finding]:
    """Folders 0700 and files 0600 (or tighter) owned by the user, as the host makes them."""
    if os.name == "nt":
        return [Finding("data folder", "ok", f"{home}: private by the user profile's ACLs")]
    if not home.exists():
        return [Finding("data folder", "ok", f"{home} does not exist yet")]
    loose, foreign = [], []
    uid = os.getuid()
    for path in [home, *home.rglob("*")]:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            continue
        if info.st_mode & 0o077:
            loose.append(f"{path} ({stat.S_IMODE(info.st_mode):o})")
        if info.st_uid != uid:
            foreign.append(str(path))
    findings = []
    if loose:
        findings.append(
            Finding(
                "data folder",
                "problem",
                f"{len(loose)} item(s) readable by others, e.g. {', '.join(loose[:3])}",
                f"chmod -R go-rwx {home}",
            )
        )
    if foreign:
        findings.append(
            Finding(
                "data folder",
                "problem",
                f"{len(foreign)} item(s) owned by another user, e.g. {foreign[0]}",
                f"chown -R $(id -un) {home}",
            )
        )
    return findings or [Finding("data folder", "ok", f"{home}: only you can read it")]


def check_credentials(home: Path) -> tuple[list[Finding], Any]:
    """The credential store opens and answers a lookup; returns it for the provider check."""
    try:
        store = CredentialStore(home)
        store.get("panelot-doctor-probe")
    except Exception as exc:  # any backend failure is the finding
        return [
            Finding(
                "credentials",
                "problem",
                f"the credential store does not work: {type(exc).__name__}: {exc}",
                "unlock your keyring, or set PYTHON_KEYRING_BACKEND="
                "keyring.backends.null.Keyring to use the encrypted file",
            )
        ], None
    where = "the OS keyring" if store.kind == "keyring" else "the encrypted file"
    return [Finding("credentials", "ok", f"stored in {where}")], store


def check_provider(
    environ: Mapping[str, str],
    home: Path,
    credentials: Any,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> list[Finding]:
    """One request per distinct configured provider (environment, then each profile's
    settings); none configured is a note, not a failure: the side panel asks for a key.

    The key is resolved as a turn resolves it: a stored key only for the origin it was
    entered for, the environment's key only for the environment's base URL. When that
    refuses the key, nothing is sent and the finding says why (``docs/security.md``)."""
    profiles = [inspect_database(p) for p in profile_databases(home)]
    sources: list[_Source] = [_Source(None, {}, None)] + [
        _Source(h.settings, h.credential_origins, h.path.parent.name)
        for h in profiles
        if h.settings.get("provider") or h.settings.get("apiKeyRef")
    ]
    configs: dict[tuple[Any, ...], tuple[Any, _Source]] = {}
    findings: list[Finding] = []
    for source in sources:
        try:
            config = load_provider_config(environ, source.settings)
        except ProviderConfigError as exc:
            if source.settings is None and not _configured(environ):
                continue
            findings.append(Finding("provider", "problem", str(exc), "see docs/providers.md"))
            continue
        bound = source.key_origins.get(config.api_key_ref or "")
        ident = (config.provider, config.base_url, config.model, config.api_key_ref, bound)
        configs.setdefault(ident, (config, source))
    if not configs and not findings:
        return [
            Finding(
                "provider",
                "note",
                "no model configured yet",
                "enter an API key or a local model URL in the side panel, or set "
                "ANTHROPIC_API_KEY / OPENAI_API_KEY / OPENAI_BASE_URL",
            )
        ]
    for config, source in configs.values():
        findings.append(_reach(config, credentials, source, environ, transport))
    return findings


class _Source(NamedTuple):
    """Where a configuration comes from: the environment alone (``settings`` None) or a
    profile's settings, with the origin each of its stored keys was entered for."""

    settings: Mapping[str, Any] | None
    key_origins: Mapping[str, str | None]
    profile: str | None


def _moved_key_fix(config: Any, profile: str | None) -> str:
    """What to do when the key is not sent: a key for the new origin, or the old URL back."""
    where = f" --profile {profile}" if profile and profile != DEFAULT_PROFILE else ""
    back = (
        "if it is not the server you meant, point baseUrl back where the key belongs: "
        f"'panelot-host config set baseUrl URL{where}' (or 'config unset baseUrl{where}')"
    )
    if config.api_key_ref:
        return (
            f"if {config.destination} is the server you mean, enter the key again for it: "
            f"'panelot-host credentials set {config.api_key_ref}{where}' (or the side "
            f"panel's settings); {back}"
        )
    return (
        f"to use {config.destination}, store a key for it: 'panelot-host credentials set "
        f"REF{where}' then 'panelot-host config set apiKeyRef REF{where}'; {back}"
    )


def _configured(environ: Mapping[str, str]) -> bool:
    names = ("PANELOT_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    return any(environ.get(name) for name in names)


def _reach(
    config: Any,
    credentials: Any,
    source: _Source,
    environ: Mapping[str, str],
    transport: httpx.AsyncBaseTransport | None,
) -> Finding:
    spec = config.spec
    if spec.models_url is None:
        return Finding("provider", "ok", "the scripted demo provider (offline)")
    url = spec.models_url(config.base_url or spec.base_url)
    try:  # exactly as a turn resolves it (engine.models.ConfiguredModels)
        key = resolve_api_key(config, credentials, source.key_origins.get, environ)
    except KeyOriginError as exc:
        return Finding(
            "provider",
            "problem",
            f"{config.provider} {config.model} at {url}: the key was not sent: {exc.reason}",
            _moved_key_fix(config, source.profile),
        )
    shown = f"key {key.fingerprint}" if key else "no key"
    label = f"{config.provider} {config.model} at {url} ({shown})"

    async def check() -> Any:
        async with httpx.AsyncClient(timeout=PROVIDER_TIMEOUT_S, transport=transport) as client:
            return await check_connection(config, key, client)

    result = anyio.run(check)  # the side panel's "Test connection" (provider.test)
    if result.ok:
        return Finding("provider", "ok", f"{label}: reachable, key accepted")
    said = f"{label}: {_DOCTOR_PHRASES.get(result.cause, '')}{result.message}"
    if result.cause == "bad_key":
        said = f"{label}: the key is refused (HTTP {result.http_status}): {result.message}"
    if result.detail:
        said += f" (the server said: {result.detail[:200]})"
    return Finding("provider", "problem", said, _FIXES.get(result.cause, _FIXES[None]))


_DOCTOR_PHRASES = {"not_running": "unreachable: "}
_FIXES = {
    "bad_key": "enter a valid API key in the side panel, or fix the key variable",
    "not_running": "check the network or that the local model server is running at that URL",
    "wrong_url": "check the base URL (it should end before /models)",
    "unknown_model": "choose one of the server's models: 'panelot-host config set model NAME'",
    "no_tools": "choose a model that can call tools: 'panelot-host config set model NAME'",
    None: "check the base URL, the key and the model in the side panel's settings",
}
