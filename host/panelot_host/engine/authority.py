"""Which configuration changes widen authority: what the agent may do without asking, what
runs as the user, and where a key or a conversation goes (``docs/security.md``).

``widening(before, after)`` compares two settings views (stored settings plus the
``mcpServers`` map); the result goes out as ``authority.widened`` after the commit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panelot_host.protocol.events import AuthorityChange


def widening(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[AuthorityChange]:
    """The changes from ``before`` to ``after`` that widen authority, each in words."""
    changes: list[AuthorityChange] = []
    old_url, new_url = before.get("baseUrl"), after.get("baseUrl")
    if new_url and new_url != old_url:
        changes.append(
            AuthorityChange(
                "base_url", f"model requests and your conversations now go to {new_url}"
            )
        )
    old_rules = [r for r in before.get("policyRules") or [] if r.get("decision") == "allow"]
    for rule in after.get("policyRules") or []:
        if rule.get("decision") == "allow" and rule not in old_rules:
            changes.append(
                AuthorityChange("policy_allow", f"allowed without asking: {_rule(rule)}")
            )
    old_servers = before.get("mcpServers") or {}
    for name, server in (after.get("mcpServers") or {}).items():
        if old_servers.get(name) == server:
            continue
        if server.get("command"):
            command = " ".join([server["command"], *server.get("args", [])])
            changes.append(
                AuthorityChange("mcp_command", f"MCP server {name!r} runs as you: {command}")
            )
        elif server.get("url"):
            changes.append(
                AuthorityChange("mcp_url", f"MCP server {name!r} at {server['url']} gets tools")
            )
    return changes


def credential_widening(ref: str, origin: str | None) -> list[AuthorityChange]:
    """A key stored for ``origin``: it will be sent there."""
    where = origin or "the official APIs and this machine only"
    return [AuthorityChange("credential_origin", f"the key {ref!r} may be sent to {where}")]


def _rule(rule: Mapping[str, Any]) -> str:
    parts = [f"tool {rule.get('tool') or 'any'}"]
    if rule.get("origin"):
        parts.append(f"on {rule['origin']}")
    if rule.get("effect"):
        parts.append(f"with effect {rule['effect']}")
    return " ".join(parts)
