"""``panelot-host workflow``: workflows imported, listed, shown, exported and deleted from
the shell through the profile's host (the protocol's ``workflow.*`` ops), and a bad
document refused with what is wrong, nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from tests.cli.test_credentials_config import cli_env, host
from tests.protocol.samples import RESULTS


def test_a_workflow_goes_through_the_shell_and_back(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    document = msgspec.to_builtins(RESULTS["workflow.export"].document)
    source = tmp_path / "socks.json"
    source.write_text(json.dumps(document), encoding="utf-8")

    imported = host(env, "workflow", "import", str(source))
    assert imported.returncode == 0, imported.stderr
    workflow_id = imported.stdout.split()[1]
    listed = host(env, "workflow", "list")
    assert f"{workflow_id}  Buy socks  (1 steps)  parameters: search" in listed.stdout

    shown = json.loads(host(env, "workflow", "show", workflow_id).stdout)
    assert shown["steps"] == document["workflow"]["steps"]
    exported = tmp_path / "out.json"
    assert host(env, "workflow", "export", workflow_id, "--output", str(exported)).returncode == 0
    assert json.loads(exported.read_text("utf-8"))["workflow"] == document["workflow"]

    assert host(env, "workflow", "delete", workflow_id).returncode == 0
    assert host(env, "workflow", "list").stdout == "no workflows saved\n"


def test_a_bad_document_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    refused = host(env, "workflow", "import", "-", stdin='{"format": "panelot.workflow"}')
    assert refused.returncode == 1
    assert "not a Panelot workflow document" in refused.stderr
    assert host(env, "workflow", "list").stdout == "no workflows saved\n"
    assert host(env, "workflow", "show").returncode == 2  # no id given
