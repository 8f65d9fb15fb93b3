"""Fixtures of the server tests: a real ``panelot-host serve`` over pipes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.wire_client import HostProcess


@pytest.fixture
def host_proc(tmp_path: Path) -> Iterator[HostProcess]:
    proc = HostProcess(tmp_path / "home")
    yield proc
    proc.kill()
