"""The JSON Schema (Draft 2020-12) of a workflow export document, generated from
``protocol.workflows.WorkflowDocument``.

``python -m panelot_host.protocol.workflow_schema`` prints it; ``--write`` writes it to
``schema/workflow.schema.json`` (committed; a test fails when it is stale); ``--check``
exits 1 when the committed file differs from the structs. ``workflow.import`` checks a
document against the same structs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from panelot_host.generated_file import json_text, write_or_check
from panelot_host.protocol.workflows import WORKFLOW_FORMAT_VERSION, WorkflowDocument

SCHEMA_PATH: Final = Path(__file__).resolve().parents[3] / "schema" / "workflow.schema.json"
REGENERATE: Final = "python -m panelot_host.protocol.workflow_schema --write"


def generate() -> dict[str, Any]:
    """The export document's schema, its types under ``$defs``."""
    schema: dict[str, Any] = msgspec.json.schema(WorkflowDocument)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:panelot:workflow:{WORKFLOW_FORMAT_VERSION}",
        "title": f"Panelot workflow document, version {WORKFLOW_FORMAT_VERSION}",
        "description": f"Generated from panelot_host.protocol.workflows by `{REGENERATE}`; "
        "do not edit.",
        **schema,
    }


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(
        argv,
        prog="python -m panelot_host.protocol.workflow_schema",
        path=SCHEMA_PATH,
        render=lambda: json_text(generate()),
        regenerate=REGENERATE,
    )


if __name__ == "__main__":
    raise SystemExit(main())
