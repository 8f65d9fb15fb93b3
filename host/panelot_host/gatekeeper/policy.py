"""Policy rules from settings, grouped by specificity and evaluated most specific first."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from itertools import groupby

import msgspec

from panelot_host.gatekeeper.models import Action, PolicyRule
from panelot_host.tools.descriptor import Effect
from panelot_host.tools.frozen import sha256_hex

_SEVERITY: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


class PolicyMatch(msgspec.Struct, frozen=True):
    action: Action
    rule: PolicyRule


class Policy:
    """Policy rules grouped by specificity, and their digest (any rule change changes it)."""

    __slots__ = ("_groups", "digest", "rules")

    def __init__(self, rules: Iterable[PolicyRule] = ()) -> None:
        self.rules: tuple[PolicyRule, ...] = tuple(rules)
        self.digest = sha256_hex(msgspec.to_builtins(self.rules))
        ordered = sorted(self.rules, key=lambda r: r.specificity, reverse=True)
        self._groups: tuple[tuple[bool, tuple[PolicyRule, ...]], ...] = tuple(
            (key[2], tuple(group)) for key, group in groupby(ordered, key=lambda r: r.specificity)
        )

    def evaluate(
        self, tool: str, effects: frozenset[Effect], origin: str | None
    ) -> PolicyMatch | None:
        """The decision of the most specific matching rules, or None when none decides.

        Among equally specific matches the most restrictive wins (deny > ask > allow).
        Effect-class ``allow`` rules decide only when they cover every effect of the tool
        (an ``allow read`` rule does not allow a tool that also writes).
        """
        for by_effect, group in self._groups:
            matches = [
                r for r in group if glob_matches(r.tool, tool) and glob_matches(r.origin, origin)
            ]
            if by_effect:
                matches = [r for r in matches if r.effect in effects]
            if not matches:
                continue
            strictest = max(matches, key=lambda r: _SEVERITY[r.decision])
            covered = {r.effect for r in matches}
            if strictest.decision == "allow" and by_effect and not effects <= covered:
                continue
            return PolicyMatch(strictest.decision, strictest)
        return None


def glob_matches(pattern: str | None, value: str | None) -> bool:
    """A tool or origin condition of a rule or a grant: no pattern matches everything;
    a glob (``*``, ``?``, ``[...]``, case-sensitive) never matches a missing value."""
    if pattern is None:
        return True
    return value is not None and fnmatchcase(value, pattern)


def rule_label(rule: PolicyRule) -> str:
    """A short human description of a rule for reasons."""
    parts = [f"{k} {v}" for k, v in _conditions(rule) if v is not None]
    name = f"policy rule {rule.id!r}" if rule.id else "a policy rule"
    return f"{name} ({', '.join(parts) or 'any call'}: {rule.decision})"


def _conditions(rule: PolicyRule) -> Sequence[tuple[str, str | None]]:
    return (("tool", rule.tool), ("origin", rule.origin), ("effect", rule.effect))
