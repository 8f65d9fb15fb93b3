"""msgspec imported without typing_extensions (as ``panelot-host serve`` imports it, see
``panelot_host.msgspec_import``) reads every protocol struct exactly as it does with it:
the same type information for every op, result, shim request and event, and the committed
schema."""

from __future__ import annotations

import subprocess
import sys

_TYPE_INFO = """
import sys
{first}
import msgspec, msgspec.inspect
from panelot_host.protocol.registry import EVENTS, OPS, SHIM_REQUESTS
from panelot_host.protocol.schema import main
types = [t for s in (*OPS.values(), *SHIM_REQUESTS.values()) for t in (s.params, s.result)]
types += list(EVENTS.values())
print(repr(msgspec.inspect.multi_type_info(types)))
print("typing_extensions loaded:", "typing_extensions" in sys.modules)
import typing_extensions  # still importable afterwards
print("schema check:", main(["--check"]))
"""
_HIDDEN = (
    "from panelot_host.msgspec_import import import_msgspec_without_typing_extensions\n"
    "import_msgspec_without_typing_extensions()"
)


def _run(first: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _TYPE_INFO.format(first=first)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.splitlines()


def test_the_protocol_reads_the_same_without_typing_extensions() -> None:
    hidden = _run(_HIDDEN)
    usual = _run("import typing_extensions")
    assert hidden[1:] == ["typing_extensions loaded: False", "schema check: 0"]
    assert usual[1:] == ["typing_extensions loaded: True", "schema check: 0"]
    assert hidden[0] == usual[0]  # every struct's fields, types, defaults and names
    assert len(hidden[0]) > 10_000
