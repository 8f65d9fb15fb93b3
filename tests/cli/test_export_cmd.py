"""``panelot-host export``: a thread exported from the shell through the profile's host
(the protocol's ``thread.export``), as JSON to stdout, Markdown to a file, and a clear
error for a thread that is not there."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from PIL import Image
from tests.cli.fake_openai import HOST
from tests.cli.test_credentials_config import cli_env, host
from tests.conftest import EventLog
from tests.engine.export_support import scripted_thread, store_frames
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


async def made_thread(home: Path, provider: ScriptedProvider, *, frames: bool = False) -> str:
    """A scripted thread stored in ``home``'s default profile (with ``frames``: a frame
    after each of its actions); the host is closed after, so a ``panelot-host`` child can
    take the profile's lease."""
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
        thread_id = await scripted_thread(client, provider, log)
        if frames:
            exported = await client.send("thread.export", {"threadId": thread_id})
            profile = running.profile
            assert profile is not None
            store_frames(profile.db, thread_id, json.loads(exported["text"])["items"])
        return thread_id


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


async def test_a_gif_goes_to_the_suggested_file_in_the_current_directory(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    env = cli_env(tmp_path)
    thread_id = await made_thread(Path(env["PANELOT_HOME"]), provider, frames=True)
    here = tmp_path / "here"
    here.mkdir()
    with anyio.fail_after(60):
        written = await anyio.run_process(
            [*HOST, "export", thread_id, "--gif"], env=env, cwd=here, check=False
        )
    assert written.returncode == 0, written.stderr
    (gif,) = here.iterdir()
    assert gif.name.startswith("panelot-weather-notes-") and gif.suffix == ".gif"
    assert f"wrote {gif.name}" in written.stderr.decode()
    with Image.open(gif) as animated:
        assert animated.n_frames == 3
    html = host(env, "export", thread_id, "--html")
    assert html.returncode == 0 and html.stdout.count("<img ") == 4


def test_an_unknown_thread_is_a_clear_error(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    refused = host(env, "export", "thr_missing", "--md")
    assert refused.returncode == 1
    assert refused.stderr.startswith("panelot-host export: ")
    assert "thr_missing" in refused.stderr
    assert refused.stdout == ""
    both = host(env, "export", "thr_missing", "--md", "--html")
    assert both.returncode == 2  # one format at a time
