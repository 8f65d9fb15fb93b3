"""Which configuration changes widen authority: what the agent may do without asking, what
runs as the user, and where a key or a conversation goes (``docs/security.md``).

``widening(before, after)`` compares two settings views (stored settings, ``destination``:
the origin model requests go to, and the ``mcpServers`` map with each literal secret
replaced by a digest); the result goes out as ``authority.widened`` after the commit.
Summaries name environment variables, never their values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panelot_host.protocol.events import AuthorityChange
from panelot_host.providers.loopback import is_loopback_url

# how much a decision asks of the user; a rule that asks less than before widens authority
_STRICTNESS = {"deny": 2, "ask": 1, "allow": 0}


def widening(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[AuthorityChange]:
    """The changes from ``before`` to ``after`` that widen authority, each in words."""
    return [
        *_destination(before, after),
        *_policy(before.get("policyRules") or [], after.get("policyRules") or []),
        *_mcp(before.get("mcpServers") or {}, after.get("mcpServers") or {}),
    ]


def credential_widening(ref: str, origin: str | None) -> list[AuthorityChange]:
    """A key stored for ``origin``: it will be sent there."""
    where = origin or "the official APIs and this machine only"
    return [AuthorityChange("credential_origin", f"the key {ref!r} may be sent to {where}")]


def _destination(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[AuthorityChange]:
    """A new ``baseUrl``, or another destination (a provider change, a ``baseUrl`` reset to
    the environment's or the official API's): model requests carry the conversation."""
    old_url, new_url = before.get("baseUrl"), after.get("baseUrl")
    old_origin, new_origin = before.get("destination"), after.get("destination")
    if new_url and new_url != old_url:
        where = new_url
    elif new_origin and new_origin != old_origin:
        where = new_origin
    else:
        return []
    left = old_origin and is_loopback_url(old_origin) and not is_loopback_url(where)
    summary = (
        f"model requests and your conversations now leave this machine ({old_origin}) for {where}"
        if left
        else f"model requests and your conversations now go to {where}"
    )
    return [AuthorityChange("base_url", summary)]


def _policy(old: list[Mapping[str, Any]], new: list[Mapping[str, Any]]) -> list[AuthorityChange]:
    """A new rule that allows; a rule that denied or asked and is gone or asks less (for
    the same tool, origin and effect, the strictest rule is the one that counts)."""
    changes: list[AuthorityChange] = []
    old_allowed = [r for r in old if r.get("decision") == "allow"]
    for rule in new:
        if rule.get("decision") == "allow" and rule not in old_allowed:
            was = _strictest(old, _condition(rule))
            earlier = f" (it was {was})" if was in ("deny", "ask") else ""
            changes.append(
                AuthorityChange("policy_allow", f"allowed without asking: {_rule(rule)}{earlier}")
            )
    seen: set[tuple[Any, ...]] = set()
    for rule in old:
        condition = _condition(rule)
        if condition in seen:
            continue
        seen.add(condition)
        was, now = _strictest(old, condition), _strictest(new, condition)
        if was is None or was == "allow" or now == "allow":
            continue  # nothing asked before, or reported above as a rule that allows
        if now is None:
            summary = f"removed the rule that made Panelot {_verb(was)}: {_rule(rule)}"
        elif _STRICTNESS[now] < _STRICTNESS[was]:
            summary = f"loosened a rule from {was} to {now}: {_rule(rule)}"
        else:
            continue
        changes.append(AuthorityChange("policy_loosened", summary))
    return changes


def _condition(rule: Mapping[str, Any]) -> tuple[Any, ...]:
    return (rule.get("tool"), rule.get("origin"), rule.get("effect"))


def _strictest(rules: list[Mapping[str, Any]], condition: tuple[Any, ...]) -> str | None:
    decisions = [r.get("decision", "") for r in rules if _condition(r) == condition]
    known = [d for d in decisions if d in _STRICTNESS]
    return max(known, key=_STRICTNESS.__getitem__) if known else None


def _verb(decision: str) -> str:
    return "deny" if decision == "deny" else "ask first"


def _rule(rule: Mapping[str, Any]) -> str:
    parts = [f"tool {rule.get('tool') or 'any'}"]
    if rule.get("origin"):
        parts.append(f"on {rule['origin']}")
    if rule.get("effect"):
        parts.append(f"with effect {rule['effect']}")
    if rule.get("id"):
        parts.append(f"(rule {rule['id']!r})")
    return " ".join(parts)


def _mcp(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[AuthorityChange]:
    changes: list[AuthorityChange] = []
    for name, server in new.items():
        previous = old.get(name)
        if previous == server:
            continue
        if server.get("command"):
            command = " ".join([server["command"], *server.get("args", [])])
            summary = f"MCP server {name!r} runs as you: {command}"
            ran = previous if previous and previous.get("command") else {}
            changes.append(AuthorityChange("mcp_command", summary + _environment(ran, server)))
        elif server.get("url"):
            changes.append(
                AuthorityChange("mcp_url", f"MCP server {name!r} at {server['url']} gets tools")
            )
    return changes


def _environment(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """What changed in the environment and directory a command runs with: variable names
    (``LD_PRELOAD`` changes what the command loads), never their values."""
    old_env, new_env = old.get("env") or {}, new.get("env") or {}
    added = sorted(k for k in new_env if k not in old_env)
    changed = sorted(k for k in new_env if k in old_env and new_env[k] != old_env[k])
    parts = []
    if added:
        parts.append(f"new environment variables: {', '.join(added)}")
    if changed:
        parts.append(f"changed environment variables: {', '.join(changed)}")
    cwd = new.get("cwd")
    if cwd != old.get("cwd"):
        parts.append(f"working directory: {cwd}" if cwd else "working directory: the host's")
    return "; " + "; ".join(parts) if parts else ""
