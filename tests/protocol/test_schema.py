"""The committed JSON Schema is the one the structs generate, and it describes them."""

from __future__ import annotations

import subprocess
import sys

import msgspec
import pytest
from jsonschema import Draft202012Validator

from panelot_host.protocol import EVENTS, OPS, SHIM_REQUESTS, encode
from panelot_host.protocol.schema import REGENERATE, SCHEMA_PATH, generate, main, render

from . import samples


def test_committed_schema_is_current() -> None:
    committed = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
    assert committed == render(), f"{SCHEMA_PATH} is stale; regenerate it with: {REGENERATE}"


def test_check_flag_agrees() -> None:
    assert main(["--check"]) == 0


def test_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(generate())


def _validator(ref: dict[str, str]) -> Draft202012Validator:
    return Draft202012Validator({**ref, "$defs": generate()["$defs"]})


@pytest.mark.parametrize("method", sorted(samples.PARAMS))
def test_samples_validate_against_the_schema(method: str) -> None:
    doc = generate()
    table = doc["x-ops"].get(method) or doc["x-shimRequests"].get(method)
    table = table or doc["x-notifications"][method]
    params = msgspec.json.decode(encode(samples.PARAMS[method]))
    _validator(table["params"]).validate(params)
    if method in samples.RESULTS:
        _validator(table["result"]).validate(msgspec.json.decode(encode(samples.RESULTS[method])))


@pytest.mark.parametrize("method", sorted(EVENTS))
def test_event_samples_validate_against_the_schema(method: str) -> None:
    ref = generate()["x-events"][method]["params"]
    _validator(ref).validate(msgspec.json.decode(encode(samples.EVENTS[method])))


def test_tables_list_every_method() -> None:
    doc = generate()
    assert set(doc["x-ops"]) == set(OPS)
    assert set(doc["x-shimRequests"]) == set(SHIM_REQUESTS)
    assert set(doc["x-events"]) == set(EVENTS)


def test_module_prints_the_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "panelot_host.protocol.schema"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    assert out == render()
