"""The thread export document's JSON Schema is generated and committed up to date, and a
document built from the structs follows it."""

from __future__ import annotations

import json

import jsonschema
import msgspec
from tests.protocol.samples import EXPORT_DOCUMENT

from panelot_host.protocol.thread_export_schema import SCHEMA_PATH, generate, main


def test_the_committed_thread_export_schema_is_current() -> None:
    assert main(["--check"]) == 0, (
        "run python -m panelot_host.protocol.thread_export_schema --write"
    )


def test_a_thread_export_document_follows_the_schema() -> None:
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    assert schema == generate()
    validator = jsonschema.Draft202012Validator(schema)
    document = msgspec.to_builtins(EXPORT_DOCUMENT)
    validator.validate(document)
    for broken in (
        {**document, "version": 2},
        {**document, "format": "panelot.workflow"},
        {k: v for k, v in document.items() if k != "items"},
        {**document, "turns": [{**document["turns"][0], "usage": "lots"}]},
    ):
        assert list(validator.iter_errors(broken))
