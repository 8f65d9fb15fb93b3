"""After the whole end-to-end suite (this test is sorted last, see conftest): nothing of
it is left running or listening, its environment is as it found it, and the temp
directories its browsers ran in (each profile has its own TMPDIR, named with the suite's
mark) are all gone. Only what carries the mark is counted: other suites and programs on a
shared machine write into the same temp directory."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from .harness import TEMP_PREFIX
from .isolation import (
    SUITE_MARK,
    SUITE_START,
    listening_ports,
    reap,
    suite_needle,
)

OURS = f"{TEMP_PREFIX}{SUITE_MARK}-"  # this suite's browsers' TMPDIRs (harness.Profile)


PYTEST_OWN = "PYTEST_CURRENT_TEST"  # pytest sets it around each test


@pytest.mark.suite_end
def test_the_suite_leaves_no_process_port_variable_or_temp_file(
    pytestconfig: pytest.Config,
) -> None:
    at_start = pytestconfig.stash[SUITE_START]
    left = reap(suite_needle(), grace_s=15)
    assert not left, "processes of the e2e suite still running (killed now):\n" + "\n".join(
        map(str, left)
    )
    assert listening_ports() <= at_start.ports, "loopback servers of the suite still listen"
    changed = {
        name
        for name in set(os.environ) | set(at_start.environ)
        if os.environ.get(name) != at_start.environ.get(name) and name != PYTEST_OWN
    }
    assert not changed, f"the suite changed these environment variables: {sorted(changed)}"
    temp = Path(tempfile.gettempdir())
    written = [entry.name for entry in temp.iterdir() if entry.name.startswith(OURS)]
    assert not written, f"the browsers' temp directories are left in {temp}: {written}"
