"""Upgrades keep everything: a database of every schema version, written by the release
that used it (``fixtures/generate.py``), opens in this host and reads back, over the
protocol, as that release showed it; its receipts replay; its grant still decides; and a
new Turn continues its thread."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tests.store.fixtures.generate import RELEASES, expected_path, fixture_path
from tests.store.fixtures.host_client import HostSession, RemoteFailure, host_environment

from panelot_host.private_files import private_dir
from panelot_host.store.migrate import load_migrations

pytestmark = pytest.mark.slow
VERSIONS = sorted(RELEASES)
# what legitimately differs from the old release's reads: the live MCP status of this
# process, and the event number a new connection sees (thread.open subscribes)
VOLATILE = frozenset({"mcpStatus", "lastSeq"})


def test_every_migration_has_a_fixture() -> None:
    versions = [m.version for m in load_migrations()]
    assert versions == VERSIONS, "add the release of each new schema to generate.RELEASES"
    missing = [v for v in versions if not fixture_path(v).exists() or not expected_path(v).exists()]
    assert not missing, f"run tests/store/fixtures/generate.py {' '.join(map(str, missing))}"


def _open_fixture(version: int, tmp_path: Path) -> tuple[HostSession, dict[str, Any], Path]:
    """The fixture copied into a fresh home, a current host serving it, its expectations."""
    home, scratch = tmp_path / "home", tmp_path / "scratch"
    profile = private_dir(home / "profiles" / "default", home)
    scratch.mkdir()
    database = profile / "panelot.db"
    shutil.copyfile(fixture_path(version), database)
    host = HostSession(host_environment(home, scratch, None), cwd=scratch)
    host.call(
        "initialize",
        {
            "protocolVersion": 1,
            "client": {"name": "pytest", "version": "0"},
            "capabilities": {"browserTools": ["browser_read", "browser_snapshot", "browser_click"]},
        },
    )
    expected = json.loads(expected_path(version).read_text("utf-8"))
    return host, expected, database


def assert_holds(expected: Any, actual: Any, where: str = "$") -> None:
    """``actual`` shows everything ``expected`` showed: the same values, fields added by
    later releases allowed (protocol changes are additive)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        for key, value in expected.items():
            if key not in VOLATILE:
                assert key in actual, f"{where}.{key} is missing"
                assert_holds(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (
            f"{where}: {len(expected)} entries expected, got {actual!r}"
        )
        for index, (old, new) in enumerate(zip(expected, actual, strict=True)):
            assert_holds(old, new, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: {expected!r} became {actual!r}"


@pytest.mark.parametrize("version", VERSIONS)
def test_an_old_database_reads_back_as_its_release_showed_it(version: int, tmp_path: Path) -> None:
    host, expected, database = _open_fixture(version, tmp_path)
    with host:
        listed = host.call("thread.list", {"limit": 200})
        assert_holds(expected["threadList"], listed, "thread.list")
        for thread_id, snapshot in expected["snapshots"].items():
            opened = host.call("thread.open", {"threadId": thread_id})
            assert_holds(snapshot, opened, f"thread.open {thread_id}")
        assert_holds(expected["settings"], host.call("settings.get", {}), "settings.get")
        assert_holds(expected["grants"], host.call("permissions.list", {}), "permissions.list")
        found = host.call("thread.list", {"query": expected["searchWord"]})
        assert expected["grantedThread"] in [t["id"] for t in found["threads"]]
        with pytest.raises(RemoteFailure) as gone:
            host.call("thread.open", {"threadId": expected["deletedThread"]})
        assert gone.value.kind == "not_found"
    with sqlite3.connect(database) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == load_migrations()[-1].version


@pytest.mark.parametrize("version", VERSIONS)
def test_an_old_databases_receipts_replay_their_first_answer(version: int, tmp_path: Path) -> None:
    host, expected, _ = _open_fixture(version, tmp_path)
    with host:
        for command in expected["commands"]:
            again = host.call(command["method"], command["params"])
            assert again == command["result"], f"{command['method']} answered otherwise"


@pytest.mark.parametrize("version", VERSIONS)
def test_a_turn_continues_an_old_thread_under_its_old_grant(version: int, tmp_path: Path) -> None:
    host, expected, _ = _open_fixture(version, tmp_path)
    thread_id = expected["grantedThread"]
    before = expected["snapshots"][thread_id]["items"]
    click = json.dumps({"tabId": expected["grantedTab"], "ref": "e9"})
    with host:
        text = f"One more thing\n[[browser_click {click}]] [[text done again]]"
        turn = host.call(
            "turn.submit", {"commandId": "new-turn", "threadId": thread_id, "text": text}
        )
        done = host.wait_event("turn.complete", turnId=turn["turnId"])
        assert done["status"] == "completed"
        # the click ran without a question: the grant the old release stored still decides
        assert not [e for e in host.events if e["method"] == "approval.request"]
        after = host.call("thread.open", {"threadId": thread_id})["items"]
    assert [i["id"] for i in after[: len(before)]] == [i["id"] for i in before]
    new = after[len(before) :]
    assert [i["kind"] for i in new] == ["user", "assistant", "toolCall", "assistant"]
    assert new[2]["status"] == "succeeded" and new[-1]["text"].startswith("done again")
