"""``HostConfig``: what a host process needs to know, built once by the CLI.

No event loop here: the prelude (``server.prelude``) reads it before anyio is imported.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from panelot_host.store.lease import DEFAULT_WAIT_S


class HostConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a host process needs to know; built once by the CLI and passed in.

    A msgspec struct rather than a pydantic model: importing pydantic alone costs about
    90 ms here, more than half of the start-up budget.
    """

    home: Path
    environ: dict[str, str] = {}
    lease_wait_s: float = DEFAULT_WAIT_S
    key_dir: Path | None = None  # where the credential file's key lives (default: config dir)
