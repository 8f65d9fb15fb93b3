"""The ``tools``, ``tools.mcp`` and ``gatekeeper`` packages load their parts on first use."""

from __future__ import annotations

import ast
import subprocess
import sys

_PROBE = """
import sys

def heavy():
    return sorted({m.split('.')[0] for m in sys.modules} & {'jsonschema', 'mcp', 'mcp_types'})

import panelot_host.gatekeeper, panelot_host.tools, panelot_host.tools.mcp
from panelot_host.tools import Target
packages = heavy()
from panelot_host.gatekeeper import Gatekeeper
print(repr((packages, heavy())))
"""


def test_importing_the_packages_loads_no_heavy_part() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, check=True, text=True
    ).stdout
    packages, with_gatekeeper = ast.literal_eval(out)
    assert packages == []  # a light name (Target) costs only its own module
    assert with_gatekeeper == ["jsonschema"]  # the Gatekeeper binds calls: the validators
