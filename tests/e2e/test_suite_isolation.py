"""After the whole end-to-end suite (this test is sorted last, see conftest): nothing of
it is left running or listening, its environment is as it found it, and its browsers
wrote nothing into the machine's temp directory (each profile has its own TMPDIR)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from .harness import TEMP_PREFIX
from .isolation import SUITE_START, listening_ports, reap, suite_needle

# What Chromium and Playwright's driver name their temp entries.
BROWSER_TEMP_PREFIXES = (
    "org.chromium.",
    ".org.chromium.",
    ".com.google.Chrome.",
    "playwright",
    TEMP_PREFIX,
)


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
    written = [
        entry.name
        for entry in temp.iterdir()
        if entry.name.startswith(BROWSER_TEMP_PREFIXES) and entry.lstat().st_mtime >= at_start.time
    ]
    assert not written, f"the browsers wrote into {temp}: {written}"
