"""The JSON Schema (Draft 2020-12) of a thread export document, generated from
``protocol.thread_export.ThreadExportDocument``.

``python -m panelot_host.protocol.thread_export_schema`` prints it; ``--write`` writes it
to ``schema/thread-export.schema.json`` (committed; a test fails when it is stale);
``--check`` exits 1 when the committed file differs from the structs. ``thread.import``
checks a document against the same structs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from panelot_host.generated_file import json_text, write_or_check
from panelot_host.protocol.thread_export import THREAD_EXPORT_VERSION, ThreadExportDocument

SCHEMA_PATH: Final = Path(__file__).resolve().parents[3] / "schema" / "thread-export.schema.json"
REGENERATE: Final = "python -m panelot_host.protocol.thread_export_schema --write"


def generate() -> dict[str, Any]:
    """The export document's schema, its types under ``$defs``."""
    schema: dict[str, Any] = msgspec.json.schema(ThreadExportDocument)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:panelot:thread-export:{THREAD_EXPORT_VERSION}",
        "title": f"Panelot thread export, version {THREAD_EXPORT_VERSION}",
        "description": "Generated from panelot_host.protocol.thread_export by "
        f"`{REGENERATE}`; do not edit.",
        **schema,
    }


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(
        argv,
        prog="python -m panelot_host.protocol.thread_export_schema",
        path=SCHEMA_PATH,
        render=lambda: json_text(generate()),
        regenerate=REGENERATE,
    )


if __name__ == "__main__":
    raise SystemExit(main())
