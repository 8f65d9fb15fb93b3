"""The single-writer lease: two host processes never run engines on one database at once.

Chrome may start a new host while the previous one is still settling after stdin EOF (it
has at most 2 s before SIGKILL). The lease is an exclusive OS file lock on
``<database>.lease``: the kernel releases it when its holder exits, even on SIGKILL, so a
crashed host never leaves a stale lease behind. The second process polls for a bounded time,
then refuses clearly.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import TracebackType

from panelot_host.errors import LeaseUnavailable
from panelot_host.private_files import private_dir

DEFAULT_WAIT_S = 4.0  # longer than Chrome's 2 s grace, so a settling host can finish
_POLL_S = 0.05


class WriterLease:
    """An exclusive lease on one database file; use as a context manager or acquire/release."""

    def __init__(self, database_path: Path, *, wait_s: float = DEFAULT_WAIT_S) -> None:
        self.path = Path(str(database_path) + ".lease")
        self.wait_s = wait_s
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lease, waiting up to ``wait_s``; raises ``LeaseUnavailable`` after that."""
        private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.wait_s
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                holder = _read_holder(fd)
                os.close(fd)
                raise LeaseUnavailable(
                    f"another panelot-host process{holder} is using {self.path.with_suffix('')} "
                    f"and did not exit within {self.wait_s:.1f} s; close the other Panelot "
                    "window or stop that process, then try again"
                )
            time.sleep(_POLL_S)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        _unlock(self._fd)
        os.close(self._fd)
        self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> WriterLease:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError, AttributeError):
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
