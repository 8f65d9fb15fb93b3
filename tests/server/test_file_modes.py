"""The data directory is private whatever the umask (issue 11, item 4): every folder 0700,
every file 0600, the database's -wal and -shm and the log included."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from tests.support.wire_client import HostProcess, initialize_params

from panelot_host.cli.logs import configure_logging
from panelot_host.private_files import private_dir

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _with_umask(mask: int) -> int:
    return os.umask(mask)


def test_a_served_profile_leaves_nothing_readable_by_others(tmp_path: Path) -> None:
    home = tmp_path / "home"
    old = _with_umask(0o022)  # the child inherits it
    try:
        proc = HostProcess(home)
    finally:
        os.umask(old)
    try:
        proc.call("initialize", initialize_params("p1"))
        proc.call("thread.create", {"commandId": "c", "title": "secret plans"})
        proc.close_stdin()
        assert proc.wait(5) == 0
    finally:
        proc.kill()
    found = list(home.rglob("*"))
    names = {p.name for p in found}
    assert {"profiles", "p1", "logs", "host.log"} <= names
    assert any(n.endswith(".db") for n in names)
    for path in [home, *found]:
        expected = 0o700 if path.is_dir() else 0o600
        assert _mode(path) == expected, f"{path.relative_to(tmp_path)} is {oct(_mode(path))}"


def test_an_older_world_readable_install_is_tightened(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True, mode=0o755)
    log = home / "logs" / "host.log"
    log.write_text("old\n")
    log.chmod(0o644)
    home.chmod(0o755)
    import logging

    root = logging.getLogger()
    before = list(root.handlers)
    try:
        configure_logging(home)
    finally:
        for handler in root.handlers[len(before) :]:
            handler.close()
        root.handlers[:] = before
    assert (_mode(home), _mode(home / "logs"), _mode(log)) == (0o700, 0o700, 0o600)


def test_private_dir_stops_at_its_top(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    made = private_dir(tmp_path / "a" / "b", top=tmp_path / "a")
    assert (_mode(made), _mode(made.parent), _mode(tmp_path)) == (0o700, 0o700, 0o755)
