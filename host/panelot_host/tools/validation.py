"""Runtime argument validation (JSON Schema Draft 2020-12) and its model-facing result."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from panelot_host.tools.frozen import thaw
from panelot_host.tools.result import ToolResult, error_result

MAX_REPORTED = 20
_MAX_MESSAGE = 300
_MAX_LISTED = 40
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Violation(msgspec.Struct, frozen=True):
    """One bad field: its JSON path (``$.tabId``) and what was expected."""

    path: str
    message: str


class ArgumentValidator:
    """A Draft 2020-12 validator compiled once for one descriptor's parameter schema."""

    __slots__ = ("_validator",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        # jsonschema treats only dicts as objects, so it validates against a private thawed copy
        self._validator = Draft202012Validator(thaw(schema))

    def is_valid(self, args: Mapping[str, Any]) -> bool:
        return bool(self._validator.is_valid(args))

    def violations(self, args: Mapping[str, Any]) -> list[Violation]:
        """Every violation, sorted by path (empty when the arguments are valid)."""
        found = {v for e in self._validator.iter_errors(args) for v in _violations(e)}
        return sorted(found, key=lambda v: (v.path, v.message))


def invalid_arguments_result(tool: str, violations: list[Violation]) -> ToolResult:
    """The error result for invalid arguments: names each field and what was expected."""
    lines = [f"- {v.path}: {v.message}" for v in violations[:MAX_REPORTED]]
    if len(violations) > MAX_REPORTED:
        lines.append(f"- ... and {len(violations) - MAX_REPORTED} more")
    text = (
        f"Invalid arguments for tool `{tool}`; nothing was executed. "
        "Correct these fields and call it again:\n" + "\n".join(lines)
    )
    details = {"violations": [msgspec.to_builtins(v) for v in violations]}
    return error_result(text, details=details)


def unknown_tool_result(tool: str, available: list[str]) -> ToolResult:
    """The error result for a tool name outside the run's catalog (nothing is executed)."""
    shown = sorted(available)[:_MAX_LISTED]
    more = len(available) - len(shown)
    names = ", ".join(shown) + (f" and {more} more" if more else "") if shown else "none"
    return error_result(
        f"Unknown tool `{tool}`: it is not available in this conversation; "
        f"nothing was executed. Available tools: {names}."
    )


def _violations(error: ValidationError) -> list[Violation]:
    path = error.json_path
    if error.validator == "required" and isinstance(error.instance, Mapping):
        # jsonschema reports one error per missing name without saying which: list them all
        required: Any = error.validator_value
        missing = [n for n in required if n not in error.instance]
        return [Violation(_child(path, n), f"required property '{n}' is missing") for n in missing]
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        return [Violation(path, _clip(f"{error.message}; allowed: {_allowed(error)}"))]
    message = error.message
    if error.validator in ("anyOf", "oneOf"):
        alternatives: Any = error.validator_value
        names = _required_alternatives(alternatives)
        if names is not None:
            return [Violation(path, f"give at least one of the properties {', '.join(names)}")]
        options = " | ".join(_compact(s) for s in alternatives)
        message = f"{message}; expected one of: {options}"
    return [Violation(path, _clip(message))]


def _required_alternatives(alternatives: Any) -> list[str] | None:
    # anyOf: [{"required": ["ref"]}, {"required": ["direction"]}] reads as "one of ref, direction"
    names: list[str] = []
    for schema in alternatives:
        if not (isinstance(schema, Mapping) and set(schema) == {"required"}):
            return None
        names.extend(schema["required"])
    return names


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if _IDENT.match(name) else f"{path}[{_compact(name)}]"


def _allowed(error: ValidationError) -> str:
    properties = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
    return ", ".join(sorted(properties)) or "none"


def _compact(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"
