"""``panelot-host export``: a thread exported from the shell through the profile's host
(the protocol's ``thread.export``), as JSON to stdout, Markdown to a file, and a clear
error for a thread that is not there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.test_credentials_config import cli_env, host
from tests.conftest import EventLog
from tests.engine.export_support import scripted_thread
from tests.engine.helpers import INIT
from tests.support.fixed_models import FixedModels
from tests.support.tabs import ACT_ON_ANY_TAB
from tests.support.tools import ToolLog, make_test_tools

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import ScriptedProvider
from panelot_host.server.assembly import default_registry
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio


async def made_thread(home: Path, provider: ScriptedProvider) -> str:
    """A scripted thread stored in ``home``'s default profile; the host is closed after,
    so a ``panelot-host`` child can take the profile's lease."""
    registry = default_registry()
    registry.update(add=make_test_tools(ToolLog()))
    models = FixedModels(provider, ModelInfo(id="scripted-model", provider="scripted"))
    config = HostConfig(home=home, lease_wait_s=0.5, environ=ACT_ON_ANY_TAB)
    async with (
        Host(config, models=lambda _db: models, registry=registry) as running,
        DirectTransport.connect(running) as client,
    ):
        await client.send("initialize", INIT)
        log = EventLog()
        client.on_event(log)
        return await scripted_thread(client, provider, log)


async def test_a_thread_exports_from_the_shell(tmp_path: Path, provider: ScriptedProvider) -> None:
    env = cli_env(tmp_path)
    thread_id = await made_thread(Path(env["PANELOT_HOME"]), provider)

    exported = host(env, "export", thread_id)
    assert exported.returncode == 0, exported.stderr
    document = json.loads(exported.stdout)
    assert document["format"] == "panelot.thread-export"
    assert document["thread"]["id"] == thread_id and len(document["turns"]) == 3

    target = tmp_path / "notes.md"
    written = host(env, "export", thread_id, "--md", "-o", str(target))
    assert written.returncode == 0, written.stderr
    assert written.stdout == "" and f"wrote {target}" in written.stderr
    assert target.read_text("utf-8").startswith("# Weather notes\n")

    turn = document["turns"][0]["id"]
    one = json.loads(host(env, "export", thread_id, "--turn", turn, "--json").stdout)
    assert [t["id"] for t in one["turns"]] == [turn]


def test_an_unknown_thread_is_a_clear_error(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    refused = host(env, "export", "thr_missing", "--md")
    assert refused.returncode == 1
    assert refused.stderr.startswith("panelot-host export: ")
    assert "thr_missing" in refused.stderr
    assert refused.stdout == ""
    both = host(env, "export", "thr_missing", "--md", "--html")
    assert both.returncode == 2  # one format at a time
