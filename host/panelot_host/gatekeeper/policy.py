"""Policy rules from settings, grouped by specificity and evaluated most specific first."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from fnmatch import translate
from itertools import groupby

import msgspec

from panelot_host.gatekeeper.models import Action, PolicyRule
from panelot_host.tools.descriptor import Effect
from panelot_host.tools.frozen import sha256_hex

_SEVERITY: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


class PolicyMatch(msgspec.Struct, frozen=True):
    action: Action
    rule: PolicyRule


class _Compiled(msgspec.Struct, frozen=True):
    rule: PolicyRule
    tool: re.Pattern[str] | None
    origin: re.Pattern[str] | None

    def matches(self, tool: str, origin: str | None) -> bool:
        if self.tool is not None and not self.tool.match(tool):
            return False
        if self.origin is not None:
            return origin is not None and bool(self.origin.match(origin))
        return True


class Policy:
    """Compiled policy rules and their digest (any change of the rules changes it)."""

    __slots__ = ("_groups", "digest", "rules")

    def __init__(self, rules: Iterable[PolicyRule] = ()) -> None:
        self.rules: tuple[PolicyRule, ...] = tuple(rules)
        self.digest = sha256_hex(msgspec.to_builtins(self.rules))
        ordered = sorted(self.rules, key=lambda r: r.specificity, reverse=True)
        self._groups: tuple[tuple[bool, tuple[_Compiled, ...]], ...] = tuple(
            (key[2], tuple(_compile(r) for r in group))
            for key, group in groupby(ordered, key=lambda r: r.specificity)
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
            matches = [c.rule for c in group if c.matches(tool, origin)]
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


def glob(pattern: str) -> re.Pattern[str]:
    """A compiled, case-sensitive fnmatch pattern (``*``, ``?``, ``[...]``)."""
    return re.compile(translate(pattern))


def _compile(rule: PolicyRule) -> _Compiled:
    return _Compiled(
        rule,
        None if rule.tool is None else glob(rule.tool),
        None if rule.origin is None else glob(rule.origin),
    )


def rule_label(rule: PolicyRule) -> str:
    """A short human description of a rule for reasons."""
    parts = [f"{k} {v}" for k, v in _conditions(rule) if v is not None]
    name = f"policy rule {rule.id!r}" if rule.id else "a policy rule"
    return f"{name} ({', '.join(parts) or 'any call'}: {rule.decision})"


def _conditions(rule: PolicyRule) -> Sequence[tuple[str, str | None]]:
    return (("tool", rule.tool), ("origin", rule.origin), ("effect", rule.effect))
