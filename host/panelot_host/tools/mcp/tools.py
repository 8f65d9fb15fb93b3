"""MCP tools as ``AgentTool`` descriptors: namespaced names, effects, schemas, results."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Mapping
from typing import Any

import mcp_types as mt

from panelot_host.tools.browser_result import wrap_untrusted
from panelot_host.tools.checks import TOP_LEVEL_COMBINATORS
from panelot_host.tools.descriptor import AgentTool, Effect, ExecuteFn, McpBinding
from panelot_host.tools.mcp.config import CredentialRef, McpServerConfig, SecretValue
from panelot_host.tools.result import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ToolResult,
    image_refs,
    plain_if_one_text,
)

NAME_LIMIT = 64  # Anthropic's and OpenAI's tool-name limit
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_EMPTY = "(the MCP tool returned no output)"


def tool_name(server: str, remote: str) -> str:
    """``mcp__<server>__<tool>``, provider-valid (``[a-zA-Z0-9_-]{1,64}``).

    Characters outside that set become ``_``; when anything had to change (or the name
    is too long) a stable 8-hex hash of the real (server, tool) pair is appended, so two
    different tools never share a name.
    """
    raw = f"mcp__{server}__{remote}"
    safe = _UNSAFE.sub("_", raw)
    if safe == raw and len(raw) <= NAME_LIMIT:
        return raw
    digest = hashlib.sha256(f"{server}\0{remote}".encode()).hexdigest()[:8]
    return f"{safe[: NAME_LIMIT - 9]}_{digest}"


def effects_of(annotations: mt.ToolAnnotations | None) -> frozenset[Effect]:
    """Effects from the server's hints, MCP defaults where a hint is absent.

    ``readOnlyHint`` true -> ``read``, otherwise ``write`` (destructive or not);
    ``openWorldHint`` absent or true -> also ``external`` (MCP's default is true).
    """
    hints = annotations or mt.ToolAnnotations()
    effects: set[Effect] = {"read" if hints.read_only_hint else "write"}
    if hints.open_world_hint is not False:
        effects.add("external")
    return frozenset(effects)


def strip_schema_keys(schema: Any) -> Any:
    """A copy without ``$schema`` keywords (providers reject them; the registry checks
    Draft 2020-12). Property *names* are kept even when one is called ``$schema``."""
    if isinstance(schema, Mapping):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "$schema" and isinstance(value, str):
                continue
            if key in ("properties", "$defs", "definitions") and isinstance(value, Mapping):
                out[key] = {k: strip_schema_keys(v) for k, v in value.items()}
            else:
                out[key] = strip_schema_keys(value)
        return out
    if isinstance(schema, list):
        return [strip_schema_keys(v) for v in schema]
    return schema


def parameters_of(tool: mt.Tool) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The runtime schema and, when providers would reject it, a provider schema.

    A top-level ``anyOf``/``oneOf``/``allOf`` stays in the runtime schema (arguments are
    still checked against it) but providers see only the object's properties.
    """
    schema: dict[str, Any] = strip_schema_keys(tool.input_schema)
    schema.setdefault("type", "object")
    if not any(k in schema for k in TOP_LEVEL_COMBINATORS):
        return schema, None
    provider = {k: v for k, v in schema.items() if k not in TOP_LEVEL_COMBINATORS}
    return schema, provider


def endpoint_of(config: McpServerConfig) -> str:
    """The binding's endpoint: the URL, or the stdio command line."""
    if config.url is not None:
        return config.url
    return shlex.join([config.command or "", *config.args])


def auth_identity(config: McpServerConfig) -> str | None:
    """Who we authenticate as: the credential references of ``headers``/``env`` (never a
    secret; a secret rotating behind an unchanged reference keeps the identity), and
    the names of literal values. None when there are none."""
    parts = [f"{key}={_identity_of(value)}" for key, value in sorted(config.secrets.items())]
    return "; ".join(parts) or None


def _identity_of(value: SecretValue) -> str:
    return f"ref:{value.credential_ref}" if isinstance(value, CredentialRef) else "literal"


def tool_fingerprint(tool: mt.Tool) -> str:
    """A digest of everything the server said about ``tool`` (a changed tool differs)."""
    dumped = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return hashlib.sha256(json.dumps(dumped, sort_keys=True).encode()).hexdigest()


def build_tool(
    server: str, config: McpServerConfig, tool: mt.Tool, execute: ExecuteFn
) -> AgentTool:
    """The descriptor of one listed tool: L0, recovery ``remote``, untrusted output."""
    parameters, provider = parameters_of(tool)
    label = tool.title or (tool.annotations.title if tool.annotations else None) or tool.name
    description = (tool.description or "").strip() or f"The `{tool.name}` tool of {server}."
    return AgentTool(
        name=tool_name(server, tool.name),
        label=f"{label} ({server})",
        description=description,
        parameters=parameters,
        provider_schema=provider,
        level="L0",
        effects=effects_of(tool.annotations),
        recovery="remote",
        binding=McpBinding(
            server=server,
            endpoint=endpoint_of(config),
            remote_name=tool.name,
            auth_identity=auth_identity(config),
        ),
        trust="untrusted",
        execute=execute,
    )


def map_result(server: str, remote: str, result: mt.CallToolResult) -> ToolResult:
    """The ``ToolResult`` for an MCP result; ``isError`` stays a result (``is_error``).

    Text (and text resources) is wrapped as untrusted content; images stay in
    ``content`` and are listed in ``details.images``; resource URIs are named in the
    text and listed in ``details.resources``; structured content is kept in details
    (and given as JSON text when the server sent no content).
    """
    blocks: list[ContentBlock] = []
    resources: list[str] = []
    for item in result.content:
        block, uri = _block(item)
        if block is not None:
            blocks.append(block)
        if uri is not None:
            resources.append(uri)
    if not blocks and result.structured_content is not None:
        blocks.append(TextBlock(wrap_untrusted(json.dumps(result.structured_content))))
    details = _details(server, remote, blocks, resources, result.structured_content)
    content = plain_if_one_text(blocks) if blocks else _EMPTY
    return ToolResult(content=content, details=details, is_error=result.is_error)


def _block(item: object) -> tuple[ContentBlock | None, str | None]:
    match item:
        case mt.TextContent(text=text):
            return (TextBlock(wrap_untrusted(text)) if text.strip() else None), None
        case mt.ImageContent(data=data, mime_type=mime):
            return ImageBlock(media_type=mime, data=data), None
        case mt.AudioContent(mime_type=mime):
            return TextBlock(f"[audio ({mime}) omitted: not supported]"), None
        case mt.ResourceLink(uri=uri, name=name, mime_type=mime, description=about):
            text = f"Resource link: {name} <{uri}>" + _suffix(mime, about)
            return TextBlock(wrap_untrusted(text)), str(uri)
        case mt.EmbeddedResource(resource=resource):
            return _embedded(resource), str(resource.uri)
        case _:  # a content type newer than this SDK knows
            return None, None


def _embedded(resource: mt.TextResourceContents | mt.BlobResourceContents) -> ContentBlock:
    mime = resource.mime_type or ""
    if isinstance(resource, mt.TextResourceContents):
        return TextBlock(wrap_untrusted(f"Resource <{resource.uri}>:\n{resource.text}"))
    if mime.startswith("image/"):
        return ImageBlock(media_type=mime, data=resource.blob)
    size = len(resource.blob) * 3 // 4
    kind = mime or "unknown type"
    return TextBlock(f"[binary resource <{resource.uri}> ({kind}, ~{size} bytes)]")


def _suffix(mime: str | None, about: str | None) -> str:
    extra = [part for part in (mime, about) if part]
    return f" ({'; '.join(extra)})" if extra else ""


def _details(
    server: str,
    remote: str,
    blocks: list[ContentBlock],
    resources: list[str],
    structured: Any,
) -> dict[str, Any]:
    details: dict[str, Any] = {"mcp": {"server": server, "tool": remote}}
    images = image_refs(blocks)
    if images:
        details["images"] = images
    if resources:
        details["resources"] = resources
    if structured is not None:
        details["structuredContent"] = structured
    return details
