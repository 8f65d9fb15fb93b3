"""The single-writer lease across real processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from panelot_host.errors import LeaseUnavailable
from panelot_host.store.lease import WriterLease

_HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from panelot_host.store.lease import WriterLease
    lease = WriterLease(Path(sys.argv[1]))
    lease.acquire()
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
    """
)


def _start_holder(db: Path, hold_s: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db), str(hold_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_process_is_refused_clearly_while_the_first_holds(tmp_path: Path) -> None:
    db = tmp_path / "panelot.db"
    holder = _start_holder(db, 30)
    try:
        started = time.monotonic()
        with pytest.raises(LeaseUnavailable, match=rf"pid {holder.pid}"):
            WriterLease(db, wait_s=0.5).acquire()
        assert time.monotonic() - started >= 0.5
    finally:
        holder.kill()
        holder.wait()


def test_second_process_gets_the_lease_when_the_first_exits_in_time(tmp_path: Path) -> None:
    db = tmp_path / "panelot.db"
    holder = _start_holder(db, 0.5)
    try:
        lease = WriterLease(db, wait_s=10)
        lease.acquire()
        assert lease.held
        lease.release()
    finally:
        holder.wait()


def test_killed_holder_leaves_no_stale_lease(tmp_path: Path) -> None:
    db = tmp_path / "panelot.db"
    holder = _start_holder(db, 30)
    holder.kill()
    holder.wait()
    with WriterLease(db, wait_s=0.5) as lease:
        assert lease.held
