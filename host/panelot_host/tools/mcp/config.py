"""``mcp.json``: the ``mcpServers`` map other MCP clients keep, validated, and its store.

An entry is ``{command, args?, env?, cwd?}`` (stdio) or ``{url, headers?}`` (Streamable
HTTP; ``"type": "sse"`` for the legacy HTTP+SSE transport), plus Panelot's
``disabled``, ``allowSampling`` and ``timeout``/``maxTimeout`` (seconds). An ``env`` or
``headers`` value is a literal or a credential reference ``{"credentialRef": name}``
(``{"ref": name}`` is accepted too). Literal values are secrets as far as the client is
concerned: ``public()`` masks them as ``"********"``, and writing ``"********"`` back keeps
the stored literal. ``compared()`` replaces each with a keyed digest instead, so that a
changed value can be told from an unchanged one without holding it (``authority.widened``).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec

from panelot_host.errors import InvalidParams, NotFound
from panelot_host.protocol.validation import format_path, list_violations
from panelot_host.providers.loopback import is_loopback_host

MASK = "********"
CONFIG_FILE = "mcp.json"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_TIMEOUT_S = 1800.0
UPDATE_ROOT = "$.params.mcpServers"
FILE_ROOT = "$.mcpServers"

CredentialName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")]
Seconds = Annotated[float, msgspec.Meta(gt=0, le=86_400)]
Violation = dict[str, str]


class CredentialRef(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Stands for the secret stored under ``credential_ref`` in the ``CredentialStore``."""

    credential_ref: CredentialName


SecretValue = str | CredentialRef


class McpServerConfig(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    rename="camel",
    omit_defaults=True,
):
    """One ``mcpServers`` entry (see the module docstring)."""

    command: Annotated[str, msgspec.Meta(min_length=1)] | None = None
    args: list[str] = []
    env: dict[str, SecretValue] = {}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, SecretValue] = {}
    type: Literal["stdio", "sse", "http", "streamable-http"] | None = None
    disabled: bool = False
    allow_sampling: bool = False
    timeout: Seconds = DEFAULT_TIMEOUT_S
    max_timeout: Seconds = DEFAULT_MAX_TIMEOUT_S

    @property
    def transport(self) -> Literal["stdio", "http", "sse"]:
        """``stdio`` for a command, ``sse`` when asked for, otherwise Streamable ``http``."""
        if self.command is not None:
            return "stdio"
        return "sse" if self.type == "sse" else "http"

    @property
    def secrets(self) -> dict[str, SecretValue]:
        """The values that may hold secrets: ``env`` (stdio) or ``headers`` (HTTP)."""
        return dict(self.env if self.command is not None else self.headers)


McpServers = dict[str, McpServerConfig]


def parse_servers(
    raw: object, *, root: str = UPDATE_ROOT, previous: Mapping[str, McpServerConfig] | None = None
) -> McpServers:
    """Validate an ``mcpServers`` map; ``"********"`` values keep ``previous`` literals.

    Raises:
        InvalidParams: every violation, each with its path under ``root``
            (e.g. ``$.params.mcpServers.docs.url``); values are never repeated.
    """
    if not isinstance(raw, Mapping):
        raise _invalid([{"path": root, "message": "expected an object of MCP servers"}])
    servers: McpServers = {}
    problems: list[Violation] = []
    for name, entry in raw.items():
        path = format_path(root, [str(name)])
        parsed, found = _parse_entry(str(name), entry, path, (previous or {}).get(str(name)))
        problems.extend(found)
        if parsed is not None and not found:
            servers[str(name)] = parsed
    if problems:
        raise _invalid(problems)
    return servers


def _parse_entry(
    name: str, entry: object, path: str, previous: McpServerConfig | None
) -> tuple[McpServerConfig | None, list[Violation]]:
    if not 1 <= len(name) <= 100 or not name.isprintable():
        return None, [{"path": path, "message": "a server name is 1-100 printable characters"}]
    if not isinstance(entry, Mapping):
        return None, [{"path": path, "message": "expected an object"}]
    plain = _with_ref_aliases(dict(entry))
    try:
        config = msgspec.convert(plain, McpServerConfig)
    except msgspec.ValidationError as exc:
        return None, list_violations(McpServerConfig, msgspec.json.encode(plain), exc, path)
    config, unmasked = _unmask(config, previous, path)
    return config, _cross_field(config, path) + unmasked


def _with_ref_aliases(entry: dict[str, Any]) -> dict[str, Any]:
    """``{"ref": name}`` -> ``{"credentialRef": name}`` in ``env`` and ``headers``."""
    for field in ("env", "headers"):
        values = entry.get(field)
        if isinstance(values, Mapping):
            entry[field] = {k: _ref_alias(v) for k, v in values.items()}
    return entry


def _ref_alias(value: Any) -> Any:
    if isinstance(value, Mapping) and set(value) == {"ref"}:
        return {"credentialRef": value["ref"]}
    return value


def _unmask(
    config: McpServerConfig, previous: McpServerConfig | None, path: str
) -> tuple[McpServerConfig, list[Violation]]:
    kept = previous.secrets if previous is not None else {}
    problems: list[Violation] = []
    fields: dict[str, dict[str, SecretValue]] = {}
    for field in ("env", "headers"):
        values: dict[str, SecretValue] = dict(getattr(config, field))
        for key, value in values.items():
            if value != MASK:
                continue
            old = kept.get(key)
            if isinstance(old, str) and old != MASK:
                values[key] = old
            else:
                problems.append(
                    {
                        "path": format_path(path, [field, key]),
                        "message": f'"{MASK}" keeps a stored value, but none is stored',
                    }
                )
        fields[field] = values
    return msgspec.structs.replace(config, **fields), problems


def _cross_field(config: McpServerConfig, path: str) -> list[Violation]:
    def at(*parts: str) -> str:
        return format_path(path, list(parts))

    if (config.command is None) == (config.url is None):
        return [{"path": path, "message": 'must have exactly one of "command", "url"'}]
    problems: list[Violation] = []
    if config.command is not None:
        if config.headers:
            problems.append({"path": at("headers"), "message": "belongs to a url server"})
        if config.type not in (None, "stdio"):
            problems.append({"path": at("type"), "message": 'a command server is "stdio"'})
    else:
        for field in ("args", "env", "cwd"):
            if getattr(config, field):
                problems.append({"path": at(field), "message": "belongs to a command server"})
        if config.type == "stdio":
            problems.append({"path": at("type"), "message": 'a url server is not "stdio"'})
        problems.extend(_url_problems(config.url or "", at("url")))
    if config.max_timeout < config.timeout:
        problems.append({"path": at("maxTimeout"), "message": "must be >= timeout"})
    return problems


def _url_problems(url: str, path: str) -> list[Violation]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return [{"path": path, "message": "must be an http:// or https:// URL"}]
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        return [{"path": path, "message": "plain http is allowed only to localhost; use https"}]
    return []


def public_view(servers: Mapping[str, McpServerConfig]) -> dict[str, Any]:
    """The map as JSON for the client: literal ``env``/``headers`` values masked."""
    return _view(servers, lambda _value: MASK)


_DIGEST_KEY = secrets.token_bytes(32)  # per process: a digest is compared, never stored


def compared_view(servers: Mapping[str, McpServerConfig]) -> dict[str, Any]:
    """The map as JSON with each literal ``env``/``headers`` value replaced by a keyed
    digest: equal values give equal digests within this process, and no value is kept."""
    return _view(servers, _digest)


def _view(servers: Mapping[str, McpServerConfig], literal: Callable[[str], str]) -> dict[str, Any]:
    """The map as JSON, each literal ``env``/``headers`` value replaced by ``literal(value)``
    (a ``credentialRef`` stays as it is: it names the secret, it is not one)."""
    view: dict[str, Any] = {}
    for name, config in servers.items():
        entry: dict[str, Any] = msgspec.to_builtins(config)
        for field in ("env", "headers"):
            if field in entry:
                entry[field] = {
                    k: literal(v) if isinstance(v, str) else v for k, v in entry[field].items()
                }
        view[name] = entry
    return view


def _digest(value: str) -> str:
    digest = hashlib.blake2b(value.encode(), key=_DIGEST_KEY, digest_size=16)
    return "digest:" + digest.hexdigest()


def _invalid(problems: list[Violation]) -> InvalidParams:
    if len(problems) == 1:
        return InvalidParams(f"Invalid MCP server: {problems[0]['message']}", problems)
    return InvalidParams(f"Invalid MCP servers: {len(problems)} violations", problems)


class McpConfigStore:
    """``PANELOT_HOME/mcp.json``: read, validated writes, enable/disable, remove.

    Writes are atomic (a temporary file renamed over the old one, mode 0600) and keep
    any other top-level keys of the file. Methods raise ``InvalidParams`` for invalid
    content and ``NotFound`` for an unknown server name.
    """

    def __init__(self, home: Path) -> None:
        self.path = home / CONFIG_FILE

    def read(self) -> McpServers:
        """The configured servers (none when the file does not exist).

        Raises:
            InvalidParams: the file is not JSON or an entry is invalid (paths under
                ``$.mcpServers``).
        """
        return parse_servers(self._document().get("mcpServers", {}), root=FILE_ROOT)

    def public(self) -> dict[str, Any]:
        """``read()`` as JSON with literal secrets masked (for ``settings.get``)."""
        return public_view(self.read())

    def compared(self) -> dict[str, Any]:
        """``read()`` as JSON with literal secrets as digests (``compared_view``)."""
        return compared_view(self.read())

    def write(self, servers: Mapping[str, Any]) -> McpServers:
        """Replace the whole map (``settings.update``'s ``mcpServers``, as JSON values).

        Raises:
            InvalidParams: every violation, with paths under ``$.params.mcpServers``.
        """
        parsed = parse_servers(servers, root=UPDATE_ROOT, previous=self._previous())
        self._save(parsed)
        return parsed

    def set_enabled(self, name: str, enabled: bool) -> McpServerConfig:
        """Enable or disable one server. Raises ``NotFound``, ``InvalidParams``."""
        servers = self.read()
        config = msgspec.structs.replace(self._require(servers, name), disabled=not enabled)
        servers[name] = config
        self._save(servers)
        return config

    def remove(self, name: str) -> None:
        """Forget one server. Raises ``NotFound``, ``InvalidParams``."""
        servers = self.read()
        self._require(servers, name)
        del servers[name]
        self._save(servers)

    def _previous(self) -> McpServers:
        try:
            return self.read()
        except InvalidParams:
            return {}  # a broken file is replaced; masked values then cannot be kept

    def _document(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise InvalidParams(
                f"{self.path} is not valid JSON",
                [{"path": "$", "message": f"not valid JSON (line {_line(exc)})"}],
            ) from None
        if not isinstance(document, dict):
            raise InvalidParams(
                f"{self.path} is not a JSON object",
                [{"path": "$", "message": "expected an object"}],
            )
        return document

    def _save(self, servers: Mapping[str, McpServerConfig]) -> None:
        try:
            document = self._document()
        except InvalidParams:
            document = {}
        document["mcpServers"] = msgspec.to_builtins(dict(servers))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".mcp-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=2, ensure_ascii=False)
                out.write("\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @staticmethod
    def _require(servers: Mapping[str, McpServerConfig], name: str) -> McpServerConfig:
        config = servers.get(name)
        if config is None:
            raise NotFound(f"no MCP server named {name!r}")
        return config


def _line(exc: ValueError) -> int:
    return getattr(exc, "lineno", 0)
