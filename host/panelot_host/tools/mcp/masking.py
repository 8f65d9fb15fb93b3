"""Masking the host's secrets out of everything an MCP server says.

A server is handed secrets (``{"credentialRef"}`` values resolved into its ``env`` or
``headers``, literal values of ``mcp.json``) and may repeat them: in a tool's result or
error, a progress message, an elicitation, a tool's description, or the reason it fails.
The connection passes everything that leaves it through its ``OutputMask``: tool results
and errors (hence ``item.*`` events, the database and what the model reads), progress
text, elicitation prompts and schemas, tool labels, descriptions and schemas, and the
server's ``ServerStatus`` (``settings.get``'s ``mcpStatus``, the ``mcp_not_ready``
notice). Each known secret becomes ``[redacted]``.

``learn`` is called right before the transport opens. It adds the server's secrets to the
host's ``SecretMask`` (the log's), so the log masks them too, whatever the server writes
on stderr; and since that mask holds every secret the host knows (API keys, every stored
credential it read), an MCP server's output is masked of all of them.

Which values are secrets:

- every value resolved from a credential reference, whatever its name;
- a literal value whose name contains ``KEY``, ``TOKEN``, ``SECRET``, ``PASS``, ``AUTH``,
  ``CRED``, ``COOKIE`` or ``SESSION`` (any case: ``GITHUB_TOKEN``, ``Authorization``,
  ``X-Api-Key``), or that is shaped like an API key (``sk-...``);
- of any literal value, the password of a URL in it (``postgres://user:PASSWORD@db``).

Other literal values are not masked: ``DEBUG=0``, ``ROOT=/home/me/notes`` or
``REGION=eu-west-1`` would blot out ordinary output. For ``Bearer X`` (and ``Basic``,
``Token``, ``Bot``) ``X`` is masked on its own too. Values under four characters are never
masked (``SecretMask``). Only known secrets are masked here, not the key *shapes* the log
also masks: a tool may rightly return ``key-value-store``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

import msgspec

from panelot_host.secret_mask import KEY_SHAPED, SecretMask
from panelot_host.tools.descriptor import AgentTool
from panelot_host.tools.mcp.config import CredentialRef, McpServerConfig
from panelot_host.tools.mcp.status import ServerStatus
from panelot_host.tools.result import ContentBlock, TextBlock, ToolResult

SECRET_NAME: Final = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CRED|COOKIE|SESSION", re.IGNORECASE)
"""A literal ``env``/``headers`` value under a name like this is a secret."""
_URL_PASSWORD: Final = re.compile(r"://[^/?#@\s:]*:([^/?#@\s]+)@")
_SCHEME: Final = re.compile(r"(?:Bearer|Basic|Token|Bot)\s+(.+)", re.IGNORECASE | re.DOTALL)


def literal_is_secret(name: str, value: str) -> bool:
    """Whether the literal ``value`` of ``env``/``headers`` entry ``name`` is masked whole."""
    return bool(SECRET_NAME.search(name) or KEY_SHAPED.search(value))


def secrets_of(config: McpServerConfig, resolved: Mapping[str, str]) -> list[str]:
    """The values to mask for a server whose ``env``/``headers`` resolved to ``resolved``
    (see the module docstring)."""
    found: list[str] = []
    for name, configured in config.secrets.items():
        if isinstance(configured, CredentialRef):
            found.extend(_parts(resolved.get(name, "")))
        elif literal_is_secret(name, configured):
            found.extend(_parts(configured))
        else:
            found.extend(_URL_PASSWORD.findall(configured))
    return found


def _parts(value: str) -> Iterator[str]:
    """The value, the credential after an auth scheme, and a URL's password."""
    yield value
    scheme = _SCHEME.fullmatch(value.strip())
    if scheme is not None:
        yield scheme.group(1)
    yield from _URL_PASSWORD.findall(value)


class OutputMask:
    """Masks ``secrets`` (the host's ``SecretMask``) out of what leaves an MCP connection."""

    def __init__(self, secrets: SecretMask) -> None:
        self._secrets = secrets

    def learn(self, config: McpServerConfig, resolved: Mapping[str, str]) -> None:
        """Mask the server's secrets from now on (here and in the log)."""
        for secret in secrets_of(config, resolved):
            self._secrets.add(secret)

    def text(self, text: str) -> str:
        return self._secrets.mask_known(text)

    def optional(self, text: str | None) -> str | None:
        return self.text(text) if text is not None else None

    def value(self, value: Any) -> Any:
        """A JSON-like value with every string (keys too) masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def result(self, result: ToolResult) -> ToolResult:
        """The result with its text and details masked (images are left as they are)."""
        content: str | list[ContentBlock]
        if isinstance(result.content, str):
            content = self.text(result.content)
        else:
            content = [
                TextBlock(self.text(b.text)) if isinstance(b, TextBlock) else b
                for b in result.content
            ]
        details = self.value(result.details) if result.details is not None else None
        return msgspec.structs.replace(result, content=content, details=details)

    def status(self, status: ServerStatus) -> ServerStatus:
        """The status with what the server said (reason, name, version, skips) masked."""
        return msgspec.structs.replace(
            status,
            reason=self.optional(status.reason),
            server_name=self.optional(status.server_name),
            server_version=self.optional(status.server_version),
            skipped_tools=tuple(self.text(s) for s in status.skipped_tools),
        )

    def tool(self, tool: AgentTool) -> AgentTool:
        """The descriptor with its label, description and schemas masked."""
        provider = tool.provider_schema
        return msgspec.structs.replace(
            tool,
            label=self.text(tool.label),
            description=self.text(tool.description),
            parameters=self.value(tool.parameters),
            provider_schema=self.value(provider) if provider is not None else None,
        )
