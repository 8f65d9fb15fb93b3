"""Listing *every* violation of a params (or result) payload, for -32602 error data.

msgspec stops at the first error, so on the error path the payload is checked again
with a Draft 2020-12 jsonschema validator built from the type's generated schema.
Imported lazily: jsonschema is slow to import and never needed on the fast path.

Paths are JSONPath-like, rooted at the message member: ``$.params.attachments[0].mediaType``,
``$.params.mcpServers["my server"].url``. A missing or unknown field is reported at the
field's own path. Messages never repeat the offending value (it may be a secret).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError

Violation = dict[str, str]

_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_MSGSPEC_AT = re.compile(r"^(?P<msg>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.DOTALL)
_MSGSPEC_FIELD = re.compile(
    r"^Object (?P<what>missing required|contains unknown) field `(?P<f>.*)`$"
)


def list_violations(tp: Any, data: bytes, first: msgspec.DecodeError, root: str) -> list[Violation]:
    """All violations of ``data`` against ``tp``'s schema, sorted by path; falls back to
    msgspec's single error (``first``) when the schema finds none (cross-field rules
    checked in ``__post_init__``, numbers out of range, invalid UTF-8)."""
    try:
        instance = msgspec.json.decode(data)
    except msgspec.DecodeError:
        instance = msgspec.UNSET
    found: list[Violation] = []
    if instance is not msgspec.UNSET:
        found = _dedupe(_violations(_validator(tp).iter_errors(instance), root))
    return found or [_from_msgspec(str(first), root)]


@functools.cache
def _validator(tp: Any) -> Draft202012Validator:
    return Draft202012Validator(msgspec.json.schema(tp))


def format_path(root: str, parts: Iterable[str | int]) -> str:
    """``root`` followed by ``.name``, ``["odd name"]`` or ``[index]`` per part."""
    out = [root]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENT.match(part):
            out.append(f".{part}")
        else:
            out.append(f"[{json.dumps(part)}]")
    return "".join(out)


def _dedupe(found: Iterable[Violation]) -> list[Violation]:
    unique = {(v["path"], v["message"]): v for v in found}
    return [unique[k] for k in sorted(unique)]


def _violations(errors: Iterable[SchemaError], root: str) -> Iterator[Violation]:
    for error in errors:
        yield from _explain(error, root)


def _explain(error: SchemaError, root: str) -> Iterator[Violation]:
    path = list(error.absolute_path)
    keyword = error.validator
    value: Any = error.validator_value
    instance: Any = error.instance
    if keyword == "required":
        for name in value:
            if isinstance(instance, dict) and name not in instance:
                yield _v(root, [*path, name], "required field missing")
    elif keyword == "additionalProperties":
        schema: Any = error.schema
        known = schema.get("properties", {})
        for name in instance:
            if name not in known:
                yield _v(root, [*path, name], "unknown field")
    elif keyword in ("anyOf", "oneOf"):
        yield from _explain_alternatives(error, root)
    else:
        yield _v(root, path, _message(error))


def _explain_alternatives(error: SchemaError, root: str) -> Iterator[Violation]:
    alternatives: Any = error.validator_value
    path = list(error.absolute_path)
    if error.validator == "oneOf" and all("required" in alt for alt in alternatives):
        names = ", ".join(f'"{n}"' for alt in alternatives for n in alt["required"])
        yield _v(root, path, f"must have exactly one of {names}")
        return
    branches: dict[int, list[SchemaError]] = {}
    for sub in error.context or ():
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    near: list[list[SchemaError]] = [
        b for b in branches.values() if not any(_misses_at_root(e) for e in b)
    ]
    if near:
        fewest: list[SchemaError] = min(near, key=len)
        yield from _violations(fewest, root)
        return
    types = [t for alt in alternatives for t in _types_of(alt)]
    if types:
        yield _v(root, path, f"expected {_or(types)}, got {_json_type(error.instance)}")
    else:
        yield _v(root, path, "does not match any allowed shape")


def _misses_at_root(error: SchemaError) -> bool:
    return not error.relative_path and error.validator in ("type", "const", "enum")


def _types_of(schema: dict[str, Any]) -> list[str]:
    if "type" in schema:
        t = schema["type"]
        return list(t) if isinstance(t, list) else [t]
    if "$ref" in schema:
        return [schema["$ref"].rsplit("/", 1)[-1]]
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return [json.dumps(v) for v in values]
    return []


_TEMPLATES = {
    "minLength": "must be at least {} characters long",
    "maxLength": "must be at most {} characters long",
    "minimum": "must be >= {}",
    "maximum": "must be <= {}",
    "exclusiveMinimum": "must be > {}",
    "exclusiveMaximum": "must be < {}",
    "minItems": "must have at least {} items",
    "maxItems": "must have at most {} items",
    "pattern": "must match the pattern {}",
}


def _message(error: SchemaError) -> str:
    keyword = str(error.validator)
    value: Any = error.validator_value
    if keyword == "type":
        expected = value if isinstance(value, list) else [value]
        return f"expected {_or(expected)}, got {_json_type(error.instance)}"
    if keyword == "enum":
        return f"must be one of {', '.join(json.dumps(v) for v in value)}"
    if keyword == "const":
        return f"must be {json.dumps(value)}"
    if keyword == "propertyNames":
        return "has an invalid key"
    template = _TEMPLATES.get(keyword)
    return template.format(value) if template else f"fails the {keyword!r} rule"


def _or(names: list[str]) -> str:
    return " or ".join(dict.fromkeys(names))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _v(root: str, parts: Iterable[str | int], message: str) -> Violation:
    return {"path": format_path(root, parts), "message": message}


def _from_msgspec(text: str, root: str) -> Violation:
    match = _MSGSPEC_AT.match(text)
    message, at = (match["msg"], match["path"]) if match else (text, None)
    path = root + (at[1:] if at else "")
    field = _MSGSPEC_FIELD.match(message)
    if field is not None:
        path = format_path(path, [field["f"]])
        message = (
            "required field missing" if field["what"] == "missing required" else "unknown field"
        )
    return {"path": path, "message": message}
