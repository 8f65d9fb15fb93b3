"""A short-lived in-process host for the user commands (``credentials``, ``config``).

The command opens the profile exactly as a client does: a real ``Host`` under the
profile's writer lease, ``initialize`` through ``DirectTransport``, then protocol ops. So
the commands get the protocol's validation, receipts and error messages, and never write
behind the back of a host that serves the profile (it holds the lease: the command waits
about 4 s, then says so).
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio

import panelot_host
from panelot_host.cli.logs import configure_logging
from panelot_host.errors import StartupError
from panelot_host.protocol import ops
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

EXIT_OK, EXIT_FAILED = 0, 1


class CommandFailed(Exception):
    """The command could not do what was asked; the message says why."""


def log_to_file(home: Path) -> None:
    """Logs go to ``PANELOT_HOME/logs``; the terminal only gets errors."""
    configure_logging(home)
    for handler in logging.getLogger().handlers:
        if not isinstance(handler, logging.FileHandler):
            handler.setLevel(logging.ERROR)


def command_id() -> str:
    return str(uuid.uuid4())


def describe(error: RemoteError) -> str:
    """An error response as one line, with the path of each invalid param."""
    violations = error.data.get("errors", []) if isinstance(error.data, dict) else []
    details = "; ".join(
        f"{v.get('path')}: {v.get('message')}"
        for v in violations
        if f"at {v.get('path')}" not in error.message
    )
    return f"{error.message} ({details})" if details else error.message


def initialize_params(name: str, profile: str | None) -> dict[str, Any]:
    """``initialize``'s params for the terminal client ``name``: the versions this package
    speaks (its client and host are one package, so they always meet)."""
    info: dict[str, Any] = {"name": name, "version": panelot_host.__version__}
    if profile:
        info["profileId"] = profile
    return {**ops.version_params(), "client": info}


async def _with_client(
    config: HostConfig,
    profile: str | None,
    work: Callable[[DirectTransport], Awaitable[int]],
    name: str,
) -> int:
    async with Host(config) as host, DirectTransport.connect(host) as client:
        try:
            await client.send("initialize", initialize_params("panelot-cli", profile))
        except RemoteError as exc:
            return _failed(name, f"the host could not start: {describe(exc)}")
        try:
            return await work(client)
        except RemoteError as exc:
            return _failed(name, describe(exc))
        except CommandFailed as exc:
            return _failed(name, str(exc))


def run_with_client(
    config: HostConfig,
    profile: str | None,
    work: Callable[[DirectTransport], Awaitable[int]],
    *,
    name: str,
) -> int:
    """Run ``work`` against the profile's host; errors become a message and status 1."""
    try:
        return anyio.run(partial(_with_client, config, profile, work, name))
    except StartupError as exc:
        return _failed(name, str(exc))


def _failed(name: str, message: str) -> int:
    sys.stderr.write(f"panelot-host {name}: {message}\n")
    return EXIT_FAILED
