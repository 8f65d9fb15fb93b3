"""The protocol's JSON Schema (Draft 2020-12), generated from the structs.

``python -m panelot_host.protocol.schema`` prints it; ``--write`` writes it to
``schema/protocol.schema.json`` in the repository (committed; a test fails when it is
stale); ``--check`` exits 1 when the committed file differs from the structs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from panelot_host.generated_file import json_text, write_or_check
from panelot_host.protocol.common import PROTOCOL_VERSION
from panelot_host.protocol.items import Item
from panelot_host.protocol.jsonrpc import ERROR_CODES, ErrorData, ErrorObject
from panelot_host.protocol.registry import CONTROL_NOTIFICATIONS, EVENTS, OPS, SHIM_REQUESTS

SCHEMA_PATH: Final = Path(__file__).resolve().parents[3] / "schema" / "protocol.schema.json"
REGENERATE: Final = "python -m panelot_host.protocol.schema --write"
_REF = "#/$defs/{name}"


def _types() -> list[Any]:
    found: list[Any] = [Item, ErrorObject, ErrorData]
    for spec in (*OPS.values(), *SHIM_REQUESTS.values()):
        found += [spec.params, spec.result]
    found += [*EVENTS.values(), *CONTROL_NOTIFICATIONS.values()]
    return list(dict.fromkeys(found))


def generate() -> dict[str, Any]:
    """The schema document: every type under ``$defs``, and method tables under
    ``x-ops``, ``x-shimRequests``, ``x-events`` and ``x-notifications`` that point into it."""
    types = _types()
    schemas, components = msgspec.json.schema_components(types, ref_template=_REF)
    ref = dict(zip(types, schemas, strict=True))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:panelot:protocol:{PROTOCOL_VERSION}",
        "title": f"Panelot host protocol, version {PROTOCOL_VERSION}",
        "description": f"Generated from panelot_host.protocol by `{REGENERATE}`; do not edit.",
        "x-protocolVersion": PROTOCOL_VERSION,
        "x-ops": {
            m: {"params": ref[s.params], "result": ref[s.result], "command": s.command}
            for m, s in OPS.items()
        },
        "x-shimRequests": {
            m: {"params": ref[s.params], "result": ref[s.result]} for m, s in SHIM_REQUESTS.items()
        },
        "x-events": {m: {"params": ref[t]} for m, t in EVENTS.items()},
        "x-notifications": {m: {"params": ref[t]} for m, t in CONTROL_NOTIFICATIONS.items()},
        "x-item": ref[Item],
        "x-errorCodes": dict(ERROR_CODES),
        "$defs": dict(sorted(components.items())),
    }


def render() -> str:
    """``generate()`` as the exact text committed in ``schema/protocol.schema.json``."""
    return json_text(generate())


def main(argv: Sequence[str] | None = None) -> int:
    """Print the schema, or ``--write`` it to ``SCHEMA_PATH``, or ``--check`` it."""
    return write_or_check(
        argv,
        prog="python -m panelot_host.protocol.schema",
        path=SCHEMA_PATH,
        render=render,
        regenerate=REGENERATE,
    )


if __name__ == "__main__":
    raise SystemExit(main())
