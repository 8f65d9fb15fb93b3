"""The workflow export document's JSON Schema is generated and committed up to date, and
an exported document validates against it."""

from __future__ import annotations

import json

import jsonschema
import msgspec
from tests.protocol.samples import RESULTS

from panelot_host.protocol.workflow_schema import SCHEMA_PATH, generate, main


def test_the_committed_workflow_schema_is_current() -> None:
    assert main(["--check"]) == 0, "run python -m panelot_host.protocol.workflow_schema --write"


def test_an_exported_document_follows_the_schema() -> None:
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    assert schema == generate()
    document = msgspec.to_builtins(RESULTS["workflow.export"].document)
    jsonschema.Draft202012Validator(schema).validate(document)
    broken = {**document, "version": 2}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken))
