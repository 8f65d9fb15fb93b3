"""Reading ``mcp.json`` does not load the MCP SDK; the manager does."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import panelot_host.tools.mcp as mcp

_PROBE = """
import sys
from pathlib import Path
from panelot_host.tools.mcp import McpConfigStore

def heavy():
    return sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types'})

McpConfigStore(Path(sys.argv[1])).public()
imported = heavy()
from panelot_host.tools.mcp import McpManager
print(repr((imported, heavy())))
"""


def test_reading_the_config_does_not_load_the_mcp_sdk(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path)], capture_output=True, check=True, text=True
    ).stdout
    imported, with_manager = ast.literal_eval(out)
    assert imported == []
    assert with_manager == ["mcp", "mcp_types"]


def test_every_public_name_resolves() -> None:
    for name in mcp.__all__:
        assert getattr(mcp, name) is not None
