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
    # the most one model answer may hold (text, thinking, tool calls; UTF-8 bytes);
    # None: the engine's default, 16 MiB (``engine.stream.MAX_ANSWER_BYTES``)
    max_answer_bytes: int | None = None

    @property
    def injects_crashes(self) -> bool:
        """Whether the ``unexpected_exception`` failpoint is on: SIGUSR1 then raises an
        unexpected exception in the server (the torture harness's fourth way to die)."""
        if not self.environ.get("PANELOT_FAILPOINTS"):
            return False
        # the failpoints module is imported only when failpoints are set (not at start-up)
        from panelot_host.engine.failpoints import enabled_failpoints

        return "unexpected_exception" in enabled_failpoints(self.environ)
