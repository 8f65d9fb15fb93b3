"""``panelot-host logs [--follow]``: the host's recent log, which Chrome never shows.

The host logs to ``PANELOT_HOME/logs/host.log`` (rotated to ``host.log.1`` ...), with
secrets masked when written. ``--follow`` keeps printing what is appended, across a
rotation, until interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TextIO

from panelot_host.cli.logs import LOG_FILE
from panelot_host.home import panelot_home

POLL_S = 0.5


def log_path(home: Path) -> Path:
    return home / "logs" / LOG_FILE


def tail(path: Path, lines: int) -> list[str]:
    """The last ``lines`` lines of the log, reaching into the previous file after a rotation."""
    kept: deque[str] = deque(maxlen=max(lines, 0))
    for source in (path.with_name(path.name + ".1"), path):
        try:
            with source.open(encoding="utf-8", errors="replace") as handle:
                kept.extend(line.rstrip("\n") for line in handle)
        except FileNotFoundError:
            continue
    return list(kept)


def follow(
    path: Path,
    out: TextIO,
    *,
    stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Print lines appended to ``path`` from its current end until ``stop()`` is true;
    a rotated or truncated file is read again from its start."""
    position, identity = _end(path)
    while not stop():
        try:
            stat = path.stat()
        except FileNotFoundError:
            sleep(POLL_S)
            continue
        if (stat.st_dev, stat.st_ino) != identity or stat.st_size < position:
            position, identity = 0, (stat.st_dev, stat.st_ino)
        if stat.st_size > position:
            with path.open("rb") as handle:
                handle.seek(position)
                chunk = handle.read()
            complete = chunk.rfind(b"\n") + 1  # a line being written waits for its end
            out.write(chunk[:complete].decode("utf-8", errors="replace"))
            out.flush()
            position += complete
        sleep(POLL_S)


def _end(path: Path) -> tuple[int, tuple[int, int]]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return 0, (0, 0)
    return stat.st_size, (stat.st_dev, stat.st_ino)


def run_logs(
    options: argparse.Namespace,
    *,
    out: TextIO = sys.stdout,
    environ: Mapping[str, str] = os.environ,
) -> int:

    path = log_path(panelot_home(environ))
    recent = tail(path, options.lines)
    if not recent and not path.exists():
        print(
            f"no log yet at {path}: the host writes it once a browser (or 'panelot-host "
            "serve') has started it",
            file=sys.stderr,
        )
        if not options.follow:
            return 1
    for line in recent:
        print(line, file=out)
    if options.follow:
        try:
            follow(path, out)
        except KeyboardInterrupt:
            return 0
    return 0
